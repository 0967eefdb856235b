/**
 * Agents (issue 17 item 6; spec "Agent runtime surfaces" `/v1/agents`): the agents the user may run,
 * a form to create one (name, description, instructions, tools: tool groups and MCP servers, scope:
 * personal, or tenant for admins), edit and delete for the ones the user may change. The default
 * agent is read-only. Shows "not available" while the runtime has no catalog.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { AgentInput, AgentView, CatalogScope, McpServerView, ProfileView } from '../api/types';
import { useAction } from '../app/use-action';
import { Link } from '../app/Link';
import { TOOL_GROUPS, listOf, notAvailable, useAgentChoice, useFreshQuery } from './catalog';
import './agents.css';

/** Form state of an agent. */
interface Draft { name: string; description: string; instructions: string; tools: string[]; scope: CatalogScope }

const EMPTY: Draft = { name: '', description: '', instructions: '', tools: [], scope: 'personal' };

function draftOf(a: AgentView): Draft {
  return { name: a.name, description: a.description ?? '', instructions: a.instructions ?? '', tools: [...(a.tools ?? [])], scope: a.scope };
}

function bodyOf(d: Draft): AgentInput {
  return { name: d.name.trim(), description: d.description.trim(), instructions: d.instructions, tools: d.tools, scope: d.scope };
}

/** The create / edit form. `agent` null = create. */
function AgentForm({ agent, isAdmin, servers, onDone }: { agent: AgentView | null; isAdmin: boolean; servers: McpServerView[]; onDone: () => void }) {
  const [d, setD] = useState<Draft>(agent ? draftOf(agent) : EMPTY);
  const { busy, error, run } = useAction();
  const toggle = (id: string, on: boolean): void => setD({ ...d, tools: on ? [...d.tools, id] : d.tools.filter((t) => t !== id) });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    void run(async () => {
      if (agent) await api<AgentView>(`/v1/agents/${encodeURIComponent(agent.id)}`, { method: 'PUT', json: bodyOf(d) });
      else await api<AgentView>('/v1/agents', { method: 'POST', json: bodyOf(d) });
      invalidate('/v1/agents');
      if (!agent) setD(EMPTY);
      onDone();
    });
  };
  const known = new Set([...TOOL_GROUPS.map(([id]) => id), ...servers.map((s) => s.id)]);
  const named = d.tools.filter((t) => !known.has(t));
  return (
    <form className="card catalog-form" aria-label={agent ? `Edit agent ${agent.name}` : 'New agent'} onSubmit={submit}>
      <h2>{agent ? `Edit ${agent.name}` : 'New agent'}</h2>
      <label>Name<input value={d.name} maxLength={128} required onChange={(e) => setD({ ...d, name: e.target.value })} /></label>
      <label>Description<input value={d.description} maxLength={1000} onChange={(e) => setD({ ...d, description: e.target.value })} /></label>
      <label>Instructions<textarea value={d.instructions} rows={6} maxLength={32000} placeholder="How this agent should work, what it should focus on…"
        onChange={(e) => setD({ ...d, instructions: e.target.value })} /></label>
      <fieldset className="tool-choice">
        <legend>Tools <span className="muted small">(none ticked = the default set, no MCP servers)</span></legend>
        {TOOL_GROUPS.map(([id, label]) => (
          <label key={id}><input type="checkbox" checked={d.tools.includes(id)} onChange={(e) => toggle(id, e.target.checked)} />{label}</label>
        ))}
        {servers.filter((s) => !s.opted_out).map((s) => (
          <label key={s.id}><input type="checkbox" checked={d.tools.includes(s.id)} onChange={(e) => toggle(s.id, e.target.checked)} />MCP: {s.name}</label>
        ))}
        {named.map((t) => <label key={t}><input type="checkbox" checked onChange={() => toggle(t, false)} />{t}</label>)}
      </fieldset>
      <label>Scope
        <select value={d.scope} disabled={!!agent} onChange={(e) => setD({ ...d, scope: e.target.value as CatalogScope })}>
          <option value="personal">Personal (only me)</option>
          {(isAdmin || d.scope === 'tenant') && <option value="tenant">Tenant (everyone)</option>}
        </select>
      </label>
      <div className="row-buttons">
        <button type="submit" className="primary" disabled={busy || !d.name.trim()}>{agent ? 'Save agent' : 'Create agent'}</button>
        {agent && <button type="button" className="link" onClick={onDone}>Cancel</button>}
      </div>
      {error && <p className="error small" role="alert">{error}</p>}
    </form>
  );
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
