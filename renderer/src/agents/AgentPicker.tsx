/**
 * The chat composer's agent picker (issue 17 item 6): a select named "Agent" listing the agents the
 * user may run (`GET /v1/agents`); the choice is sent as `agent_id` with the next turns (a remembered
 * agent no longer listed falls back to the default). Hidden when
 * the catalog is not available (the default agent runs, as before).
 */
import type { AgentView } from '../api/types';
import { useEffect } from 'react';
import { listOf, useAgentChoice, useFreshQuery } from './catalog';
import './agents.css';

export function AgentPicker({ disabled }: { disabled?: boolean }) {
  const agents = useFreshQuery<unknown>('/v1/agents');
  const agentId = useAgentChoice((s) => s.agentId);
  const agentPicked = useAgentChoice((s) => s.agentPicked);
  const items = listOf<AgentView>(agents.data);
  const known = !agentId || items.some((a) => a.id === agentId);
  // A remembered agent that is gone (deleted, or another user's on this browser) falls back to the default.
  const stale = agents.data !== undefined && !agents.error && !known;
  useEffect(() => { if (stale) agentPicked(null); }, [stale, agentPicked]);
  if (agents.error || items.length === 0) return null;
  const others = items.filter((a) => !a.is_default && a.id !== 'default');
  return (
    <select className="agent-picker" aria-label="Agent" title="Which agent answers" disabled={disabled}
      value={known ? agentId ?? 'default' : 'default'} onChange={(e) => agentPicked(e.target.value === 'default' ? null : e.target.value)}>
      <option value="default">{items.find((a) => a.is_default || a.id === 'default')?.name || 'Default agent'}</option>
      {others.map((a) => <option key={a.id} value={a.id}>{a.name}{a.scope === 'tenant' ? '' : ' (mine)'}</option>)}
    </select>
  );
}
