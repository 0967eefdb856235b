/**
 * The agent create / edit form (issue 17 items 1 and 6; contract services/agent-runtime/src/contracts/
 * agents.ts): name, description, instructions, model role (the inference router's role aliases) and
 * model (suggested from `GET /v1/models`), tools allowed (tool groups and the user's visible MCP servers), knowledge (audiences, tags,
 * document ids), memory scope, guardrail policy, tool approval, and scope (tenant for admins only).
 * A save is `POST /v1/agents` or `PUT /v1/agents/{id}` (a replace: cleared fields are sent as null);
 * validation errors of the API are shown next to their field.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import { MODEL_ROLES, type AgentInput, type AgentView, type CatalogScope, type McpServerView } from '../api/types';
import { TOOL_GROUPS } from './catalog';
import { TokenInput } from './TokenInput';
import { fieldErrors, type FieldErrors } from './field-errors';

type MemoryScope = AgentView['memory_scope'];
type ToolApproval = AgentView['tool_approval'];

/** Form state of an agent. */
interface Draft {
  name: string; description: string; instructions: string; tools: string[]; scope: CatalogScope;
  model_role: string; model: string; audiences: string[]; tags: string[]; document_ids: string[];
  memory_scope: MemoryScope; guardrail_policy: string; tool_approval: ToolApproval;
}

const EMPTY: Draft = {
  name: '', description: '', instructions: '', tools: [], scope: 'personal', model_role: '', model: '',
  audiences: [], tags: [], document_ids: [], memory_scope: 'user', guardrail_policy: '', tool_approval: 'auto',
};

function draftOf(a: AgentView): Draft {
  return {
    name: a.name, description: a.description ?? '', instructions: a.instructions ?? '', tools: [...(a.tools ?? [])], scope: a.scope,
    model_role: a.model_role ?? '', model: a.model ?? '', audiences: [...(a.knowledge?.audiences ?? [])], tags: [...(a.knowledge?.tags ?? [])],
    document_ids: [...(a.knowledge?.document_ids ?? [])], memory_scope: a.memory_scope ?? 'user', guardrail_policy: a.guardrail_policy ?? '',
    tool_approval: a.tool_approval ?? 'auto',
  };
}

/** The request body of a draft (`scope` only on create; empty optional fields as null). */
export function bodyOf(d: Draft, create: boolean): AgentInput {
  const knowledge = d.audiences.length || d.tags.length || d.document_ids.length
    ? { ...(d.audiences.length ? { audiences: d.audiences } : {}), ...(d.tags.length ? { tags: d.tags } : {}), ...(d.document_ids.length ? { document_ids: d.document_ids } : {}) }
    : null;
  return {
    name: d.name.trim(), description: d.description.trim(), instructions: d.instructions, tools: d.tools,
    model_role: d.model_role.trim() || null, model: d.model.trim() || null, knowledge,
    memory_scope: d.memory_scope, guardrail_policy: d.guardrail_policy.trim() || null, tool_approval: d.tool_approval,
    ...(create ? { scope: d.scope } : {}),
  };
}

const MEMORY: ReadonlyArray<readonly [MemoryScope, string]> = [
  ['user', 'The user\'s memory (shared with their other chats)'],
  ['agent', 'Its own memory (kept per user for this agent)'],
  ['none', 'No memory'],
];
const APPROVAL: ReadonlyArray<readonly [ToolApproval, string]> = [
  ['auto', 'auto: the tool policies decide'],
  ['ask', 'ask: approve every tool call'],
  ['deny', 'deny: no tools'],
];

function Err({ e, k }: { e: FieldErrors; k: string }) {
  return e[k] ? <span className="error small" role="alert" data-field={k}>{e[k]}</span> : null;
}

/** The create / edit form. `agent` null = create. */
export function AgentForm({ agent, isAdmin, servers, onDone }: { agent: AgentView | null; isAdmin: boolean; servers: McpServerView[]; onDone: () => void }) {
  const [d, setD] = useState<Draft>(agent ? draftOf(agent) : EMPTY);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const set = <K extends keyof Draft>(k: K, v: Draft[K]): void => setD((prev) => ({ ...prev, [k]: v }));
  const toggle = (id: string, on: boolean): void => setD((prev) => ({ ...prev, tools: on ? [...prev.tools, id] : prev.tools.filter((t) => t !== id) }));
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    void (async () => {
      try {
        if (agent) await api<AgentView>(`/v1/agents/${encodeURIComponent(agent.id)}`, { method: 'PUT', json: bodyOf(d, false) });
        else await api<AgentView>('/v1/agents', { method: 'POST', json: bodyOf(d, true) });
        invalidate('/v1/agents');
        if (!agent) setD(EMPTY);
        onDone();
      } catch (err) {
        setErrors(fieldErrors(err, agent ? {} : { forbidden: 'scope' }));
      } finally { setBusy(false); }
    })();
  };
  const known = new Set([...TOOL_GROUPS.map(([id]) => id), ...servers.map((s) => s.id)]);
  const named = d.tools.filter((t) => !known.has(t));
  const roles = [...new Set([...MODEL_ROLES, ...(d.model_role ? [d.model_role] : [])])];
  // Suggestions for the model field: the router's model list (role aliases left out).
  const models = useQuery<{ data?: Array<{ id: string }> }>('/v1/models');
  const modelIds = (models.data?.data ?? []).map((m) => m.id).filter((id) => !(MODEL_ROLES as readonly string[]).includes(id));
  return (
    <form className="card catalog-form" aria-label={agent ? `Edit agent ${agent.name}` : 'New agent'} onSubmit={submit} noValidate>
      <h2>{agent ? `Edit ${agent.name}` : 'New agent'}</h2>
      <label>Name<input value={d.name} maxLength={200} required onChange={(e) => set('name', e.target.value)} /><Err e={errors} k="name" /></label>
      <label>Description<input value={d.description} maxLength={2000} onChange={(e) => set('description', e.target.value)} /><Err e={errors} k="description" /></label>
      <label>Instructions<textarea value={d.instructions} rows={6} placeholder="How this agent should work, what it should focus on…"
        onChange={(e) => set('instructions', e.target.value)} /><Err e={errors} k="instructions" /></label>
      <div className="form-pair">
        <label>Model role
          <select value={d.model_role} onChange={(e) => set('model_role', e.target.value)}>
            <option value="">default (the chat model)</option>
            {roles.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
          <Err e={errors} k="model_role" />
        </label>
        <label>Model <span className="muted small">(optional, recorded; the role routes)</span>
          <input value={d.model} placeholder="e.g. gpt-4o-mini" list="agent-model-ids" onChange={(e) => set('model', e.target.value)} /><Err e={errors} k="model" />
          <datalist id="agent-model-ids">{modelIds.map((id) => <option key={id} value={id} />)}</datalist>
        </label>
      </div>
      <fieldset className="tool-choice">
        <legend>Tools <span className="muted small">(none ticked = the default set, no MCP servers)</span></legend>
        {TOOL_GROUPS.map(([id, label]) => (
          <label key={id}><input type="checkbox" checked={d.tools.includes(id)} onChange={(e) => toggle(id, e.target.checked)} />{label}</label>
        ))}
        {servers.filter((s) => !s.opted_out).map((s) => (
          <label key={s.id}><input type="checkbox" checked={d.tools.includes(s.id)} onChange={(e) => toggle(s.id, e.target.checked)} />MCP: {s.name}</label>
        ))}
        {named.map((t) => <label key={t}><input type="checkbox" checked onChange={() => toggle(t, false)} />{t}</label>)}
        <Err e={errors} k="tools" />
      </fieldset>
      <fieldset className="knowledge-choice">
        <legend>Knowledge it may search <span className="muted small">(all empty = what the user may read)</span></legend>
        <TokenInput label="Audiences" values={d.audiences} onChange={(v) => set('audiences', v)} placeholder="audience tag, Enter" error={errors['knowledge.audiences']} />
        <TokenInput label="Tags" values={d.tags} onChange={(v) => set('tags', v)} placeholder="document tag, Enter" error={errors['knowledge.tags']} />
        <TokenInput label="Document ids" values={d.document_ids} onChange={(v) => set('document_ids', v)} placeholder="document id, Enter" error={errors['knowledge.document_ids']} />
        <Err e={errors} k="knowledge" />
      </fieldset>
      <div className="form-pair">
        <label>Memory scope
          <select value={d.memory_scope} onChange={(e) => set('memory_scope', e.target.value as MemoryScope)}>
            {MEMORY.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
          <Err e={errors} k="memory_scope" />
        </label>
        <label>Tool approval
          <select value={d.tool_approval} onChange={(e) => set('tool_approval', e.target.value as ToolApproval)}>
            {APPROVAL.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
          <Err e={errors} k="tool_approval" />
        </label>
      </div>
      <label>Guardrail policy <span className="muted small">(empty = the tenant's policy)</span>
        <input value={d.guardrail_policy} onChange={(e) => set('guardrail_policy', e.target.value)} /><Err e={errors} k="guardrail_policy" />
      </label>
      <label>Scope
        <select value={d.scope} disabled={!!agent} onChange={(e) => set('scope', e.target.value as CatalogScope)}>
          <option value="personal">Personal (only me)</option>
          {(isAdmin || d.scope === 'tenant') && <option value="tenant">Tenant (everyone)</option>}
        </select>
        <Err e={errors} k="scope" />
      </label>
      <div className="row-buttons">
        <button type="submit" className="primary" disabled={busy || !d.name.trim()}>{agent ? 'Save agent' : 'Create agent'}</button>
        {agent && <button type="button" className="link" onClick={onDone}>Cancel</button>}
      </div>
      {errors[''] && <p className="error small" role="alert">{errors['']}</p>}
    </form>
  );
}
