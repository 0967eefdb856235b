/**
 * Agents (issue 17 item 6; spec "Agent runtime surfaces" `/v1/agents`): the agents the user may run,
 * the form to create one (`AgentForm.tsx`: every field of the agent contract), edit and delete for
 * the ones the user may change. The default agent is read-only. Shows "not available" while the runtime has no catalog.
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { AgentView, McpServerView, ProfileView } from '../api/types';
import { useAction } from '../app/use-action';
import { Link } from '../app/Link';
import { TOOL_GROUPS, listOf, notAvailable, useAgentChoice, useFreshQuery } from './catalog';
import { AgentForm } from './AgentForm';
import './agents.css';

/** "model role x · memory agent · approval ask · tags a, b" summary of an agent's settings. */
function settingsLine(a: AgentView): string {
  const k = a.knowledge;
  const knowledge = [k?.audiences?.length ? `audiences ${k.audiences.join(', ')}` : '', k?.tags?.length ? `tags ${k.tags.join(', ')}` : '',
    k?.document_ids?.length ? `${k.document_ids.length} document(s)` : ''].filter(Boolean);
  return [`model ${a.model ?? a.model_role ?? 'default'}${a.model && a.model_role ? ` (${a.model_role})` : ''}`, `memory ${a.memory_scope ?? 'user'}`,
    `approval ${a.tool_approval ?? 'auto'}`, ...knowledge, ...(a.guardrail_policy ? [`guardrail ${a.guardrail_policy}`] : [])].join(' · ');
}

function AgentCard({ a, me, isAdmin, servers }: { a: AgentView; me: string | null; isAdmin: boolean; servers: McpServerView[] }) {
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const { busy, error, run } = useAction();
  const chosen = useAgentChoice((s) => s.agentId);
  const agentPicked = useAgentChoice((s) => s.agentPicked);
  // The server says whether the caller may change it; the fallback mirrors its rule.
  const editable = a.editable ?? (!a.is_default && ((a.scope === 'personal' && a.owner_id === me) || (a.scope === 'tenant' && isAdmin)));
  const toolLabel = (id: string): string => TOOL_GROUPS.find(([g]) => g === id)?.[1] ?? servers.find((s) => s.id === id)?.name ?? id;
  if (editing) return <li><AgentForm agent={a} isAdmin={isAdmin} servers={servers} onDone={() => setEditing(false)} /></li>;
  return (
    <li className="card catalog-item" aria-label={`Agent ${a.name}`}>
      <div className="catalog-head">
        <strong>{a.name}</strong>
        <span className={`scope scope-${a.scope}`}>{a.is_default ? 'default' : a.scope}</span>
        {(chosen ?? 'default') === a.id && <span className="ok small">in use in chat</span>}
      </div>
      {a.description && <p>{a.description}</p>}
      {a.instructions && <p className="muted small clamp">{a.instructions}</p>}
      <p className="small">Tools: {(a.tools ?? []).length ? a.tools.map(toolLabel).join(', ') : 'default set'}</p>
      <p className="small muted" data-testid="agent-settings">{settingsLine(a)}</p>
      <div className="row-buttons">
        <button type="button" className="link" onClick={() => { agentPicked(a.is_default ? null : a.id); }}>Use in chat</button>
        {editable && <button type="button" className="link" onClick={() => setEditing(true)} aria-label={`Edit agent ${a.name}`}>Edit</button>}
        {editable && (confirm ? (
          <>
            <span className="small">Delete this agent?</span>
            <button type="button" className="link danger" disabled={busy} onClick={() => {
              void run(async () => {
                await api(`/v1/agents/${encodeURIComponent(a.id)}`, { method: 'DELETE' });
                if (chosen === a.id) agentPicked(null);
                invalidate('/v1/agents');
              });
            }}>Yes, delete</button>
            <button type="button" className="link" onClick={() => setConfirm(false)}>Keep</button>
          </>
        ) : <button type="button" className="link danger" onClick={() => setConfirm(true)} aria-label={`Delete agent ${a.name}`}>Delete</button>)}
      </div>
      {error && <p className="error small" role="alert">{error}</p>}
    </li>
  );
}

export default function AgentsPage() {
  const me = useQuery<ProfileView>('/v1/user/me');
  const agents = useFreshQuery<unknown>('/v1/agents');
  const servers = useFreshQuery<unknown>('/v1/user/mcp-servers');
  const isAdmin = me.data?.roles.includes('admin') ?? false;
  const serverList = servers.error ? [] : listOf<McpServerView>(servers.data);
  const items = listOf<AgentView>(agents.data);
  const meId = me.data?.id ?? null;
  if (notAvailable(agents.error)) {
    return <div className="page catalog-page"><h1>Agents</h1><p className="muted" role="status">Agents are not available on this server yet.</p></div>;
  }
  return (
    <div className="page catalog-page">
      <h1>Agents</h1>
      <p className="muted">An agent is the assistant with its own instructions and tools. Pick one in the chat, next to the message box. Give agents know-how with <Link to="/skills">skills</Link> and tools from <Link to="/mcp">MCP servers</Link>.</p>
      <div className="catalog-grid">
        <section aria-label="Agents list">
          {agents.error && <p className="error" role="alert">Agents could not be loaded: {agents.error.message}</p>}
          {!agents.loading && !agents.error && items.length === 0 && <div className="empty-box"><p className="muted">No agents yet.</p></div>}
          <ul className="catalog-list" aria-label="Agents">
            {items.map((a) => <AgentCard key={`${a.id}-${a.updated_at}`} a={a} me={meId} isAdmin={isAdmin} servers={serverList} />)}
          </ul>
        </section>
        <AgentForm agent={null} isAdmin={isAdmin} servers={serverList} onDone={() => {}} />
      </div>
    </div>
  );
}
