/**
 * The agent catalog (issue 17 item 1; spec "Agent runtime surfaces": `/v1/agents`): create, read,
 * replace, patch and delete agents, and resolve the agent a chat runs.
 *
 * Rules: `tenant` agents are written by admins only (403 `forbidden`) and seen by every user of the
 * tenant; `personal` agents by their owner only (to anyone else, admins included, 404
 * `agent_not_found`). The default agent (settings `defaultAgentId`) always exists: tenant scope, no
 * instructions, the default tool set; admins may edit it (stored on first edit), nobody deletes it.
 */
import type { AgentCreate, AgentPatch, AgentView, CatalogScope } from '../../contracts.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { runtimeError } from '../errors.js';
import type { AgentConfig, AgentRow, AgentStore, CatalogCaller } from './ports.js';

const newId = ulidFactory();

/** The configuration of an agent nothing was said about. */
const DEFAULT_CONFIG: AgentConfig = {
  description: '', instructions: '', tools: [], model_role: null, model: null, knowledge: null, memory_scope: 'user', guardrail_policy: null, tool_approval: 'auto',
};

/** What a chat turn needs of its agent. */
export interface ResolvedAgent {
  id: string;
  name: string;
  /** Instructions added to the system prompt ('' = none). */
  instructions: string;
  /** Allowed tool entries (names, groups, MCP server ids); empty = the default set (no MCP tools). */
  tools: string[];
  modelRole: string | null;
  toolApproval: 'ask' | 'auto' | 'deny';
  /**
   * `user`: memories shared across the user's agents (the prefetch reads the shared ones and the
   * agent's own); `agent`: memories stored and searched under the agent only; `none`: no memory
   * prefetch and no memory tools (scoped-calls.ts applies it to the memory tools).
   */
  memoryScope: 'user' | 'agent' | 'none';
  /** A concrete model the turn's completions ask the router for (the role routes when null). */
  model: string | null;
  /** What the turn's knowledge retrieval may reach, within the user's own visibility; null = the user's whole visibility. */
  knowledge: { audiences?: string[]; tags?: string[]; document_ids?: string[] } | null;
  /** The guardrail policy the turn's checks apply (the guardrail's agent-level override of that name), or null (the agent's own id). */
  guardrailPolicy: string | null;
}

/** Dependencies of the catalog. */
export interface AgentCatalogDeps {
  store: AgentStore;
  /** The id of the default agent (settings `defaultAgentId`). */
  defaultAgentId: string;
  now?: () => string;
}

/** The agent catalog. */
export class AgentCatalog {
  private readonly now: () => string;

  constructor(private readonly d: AgentCatalogDeps) {
    this.now = d.now ?? (() => new Date().toISOString());
  }

  /** Every agent the caller sees: the default agent first, then the tenant's and the caller's own, by name. */
  async list(who: CatalogCaller): Promise<AgentView[]> {
    const rows = (await this.d.store.visible(who.tenantId, who.userId)).filter((r) => r.id !== this.d.defaultAgentId);
    return [this.view(who, await this.defaultRow(who.tenantId)), ...rows.map((r) => this.view(who, r))];
  }

  /** One agent. @throws DomainError `agent_not_found` (absent, or another user's personal agent). */
  async get(who: CatalogCaller, id: string): Promise<AgentView> {
    return this.view(who, await this.visibleRow(who, id));
  }

  /**
   * Create an agent (`scope` default `personal`).
   * @throws DomainError `forbidden` (403) for `tenant` without the admin role.
   */
  async create(who: CatalogCaller, body: AgentCreate): Promise<AgentView> {
    const scope: CatalogScope = body.scope ?? 'personal';
    if (scope === 'tenant' && !who.isAdmin) throw runtimeError('forbidden', 'only admins create tenant agents');
    const at = this.now();
    const row: AgentRow = { id: newId(), tenant_id: who.tenantId, owner_id: who.userId, scope, name: body.name.trim() || body.name, config: configOf(DEFAULT_CONFIG, body), created_at: at, updated_at: at };
    await this.d.store.put(row);
    return this.view(who, row);
  }

  /**
   * Replace an agent's configuration (fields left out return to their defaults; `scope` cannot change).
   * @throws DomainError `agent_not_found`, `forbidden` (a tenant agent without the admin role), `invalid_request` (a scope change).
   */
  async replace(who: CatalogCaller, id: string, body: AgentCreate): Promise<AgentView> {
    const row = await this.editableRow(who, id);
    if (body.scope !== undefined && body.scope !== row.scope) throw runtimeError('invalid_request', 'the scope of an agent cannot change', { extra: { field: 'body.scope' } });
    return this.save(who, { ...row, name: body.name, config: configOf(DEFAULT_CONFIG, body), updated_at: this.now() });
  }

  /** Change some fields of an agent. @throws DomainError `agent_not_found`, `forbidden`. */
  async patch(who: CatalogCaller, id: string, body: AgentPatch): Promise<AgentView> {
    const row = await this.editableRow(who, id);
    return this.save(who, { ...row, name: body.name ?? row.name, config: configOf(row.config, body), updated_at: this.now() });
  }

  /** Delete an agent. @throws DomainError `agent_not_found`, `forbidden` (the default agent; a tenant agent without the admin role). */
  async delete(who: CatalogCaller, id: string): Promise<void> {
    if (id === this.d.defaultAgentId) throw runtimeError('forbidden', 'the default agent cannot be deleted');
    await this.editableRow(who, id);
    await this.d.store.delete(who.tenantId, id);
  }

  /**
   * The agent a chat turn runs, for its caller.
   * @throws DomainError `agent_not_found` (404) when the agent does not exist or is another user's personal agent.
   */
  async resolve(tenantId: string, userId: string, id: string): Promise<ResolvedAgent> {
    const row = await this.visibleRow({ tenantId, userId, isAdmin: false }, id);
    const c = row.config;
    return {
      id: row.id, name: row.name, instructions: c.instructions, tools: c.tools, modelRole: c.model_role, toolApproval: c.tool_approval, memoryScope: c.memory_scope,
      model: c.model ?? null, knowledge: c.knowledge ?? null, guardrailPolicy: c.guardrail_policy ?? null,
    };
  }

  private async save(who: CatalogCaller, row: AgentRow): Promise<AgentView> {
    await this.d.store.put(row);
    return this.view(who, row);
  }

  private async defaultRow(tenantId: string): Promise<AgentRow> {
    return (await this.d.store.get(tenantId, this.d.defaultAgentId)) ?? {
      id: this.d.defaultAgentId, tenant_id: tenantId, owner_id: '', scope: 'tenant', name: 'Default assistant', config: DEFAULT_CONFIG,
      created_at: '1970-01-01T00:00:00.000Z', updated_at: '1970-01-01T00:00:00.000Z',
    };
  }

  private async visibleRow(who: CatalogCaller, id: string): Promise<AgentRow> {
    if (id === this.d.defaultAgentId) return this.defaultRow(who.tenantId);
    const row = await this.d.store.get(who.tenantId, id);
    if (!row || (row.scope === 'personal' && row.owner_id !== who.userId)) throw runtimeError('agent_not_found', `no agent ${id}`);
    return row;
  }

  private async editableRow(who: CatalogCaller, id: string): Promise<AgentRow> {
    const row = await this.visibleRow(who, id);
    if (!canEdit(who, row)) throw runtimeError('forbidden', 'only admins edit tenant agents');
    return row;
  }

  private view(who: CatalogCaller, r: AgentRow): AgentView {
    return {
      id: r.id, name: r.name, ...r.config, tools: [...r.config.tools], scope: r.scope, owner_id: r.owner_id,
      is_default: r.id === this.d.defaultAgentId, editable: canEdit(who, r), created_at: r.created_at, updated_at: r.updated_at,
    };
  }
}

/** Whether `who` may change `row`: its owner for a personal agent, an admin for a tenant one. */
function canEdit(who: CatalogCaller, row: AgentRow): boolean {
  return row.scope === 'tenant' ? who.isAdmin : row.owner_id === who.userId;
}

/** `base` with the fields `body` names. */
function configOf(base: AgentConfig, body: AgentPatch): AgentConfig {
  const pick = <K extends keyof AgentConfig>(k: K): AgentConfig[K] => (body[k] !== undefined ? body[k] as AgentConfig[K] : base[k]);
  return {
    description: pick('description'), instructions: pick('instructions'),
    tools: [...new Set((body.tools ?? base.tools).map((t) => t.trim()).filter(Boolean))],
    model_role: pick('model_role'), model: pick('model'), knowledge: pick('knowledge'), memory_scope: pick('memory_scope'),
    guardrail_policy: pick('guardrail_policy'), tool_approval: pick('tool_approval'),
  };
}

/**
 * Whether an agent's `tools` allow a registered tool of `source` named `name`: empty = every tool
 * but MCP ones (source `mcp:*`); else an entry equal to the name, the source (`builtin`, `sandbox`,
 * `knowledge`, `memory`, `mcp:<id>`) or an MCP server id (`<id>` for source `mcp:<id>`).
 */
export function agentAllows(tools: readonly string[], name: string, source: string): boolean {
  if (tools.length === 0) return !source.startsWith('mcp:');
  return tools.some((e) => e === name || e === source || `mcp:${e}` === source);
}
