/**
 * Agent catalog contracts (spec "Agent runtime surfaces": `/v1/agents`, `/v1/agents/*`; issue 17
 * item 1). An agent is a named configuration a chat runs (`agent_id` of a chat request): its
 * instructions (added to the system prompt), the tools it may use, the model role, the knowledge
 * and memory it may reach, its guardrail policy and tool approval policy. `tenant` agents are
 * written by admins and seen by every user of the tenant; `personal` ones by their owner only
 * (another user's is 404 `agent_not_found`, also to use in a chat). The default agent (id
 * `default`, settings `defaultAgentId`) always exists, tenant scope, read-only to users.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum, Timestamp } from './atoms.js';

/** Most entries of an agent's `tools`. */
export const MAX_AGENT_TOOLS = 64;
/** Longest agent instructions, characters. */
export const MAX_AGENT_INSTRUCTIONS = 20_000;

/**
 * Tool groups an agent's `tools` may name (besides a tool's function name and an MCP server id):
 * the source of the registry's tools.
 */
export const AGENT_TOOL_GROUPS = ['builtin', 'sandbox', 'knowledge', 'memory'] as const;

/** A scope of an agent or skill. */
export const CatalogScopeSchema = StringEnum(['personal', 'tenant'] as const);
/** A scope of an agent or skill. */
export type CatalogScope = Static<typeof CatalogScopeSchema>;

/** A tool entry: a function name, a group (`builtin`, `sandbox`, `knowledge`, `memory`), an MCP server id or `mcp:<id>`. */
const ToolEntry = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' });
const Tag = Type.String({ minLength: 1, maxLength: 128 });

/**
 * What knowledge an agent may search (issue 17 item 1): documents with one of `tags`, shared with one
 * of `audiences`, or among `document_ids` (any of the three), always within what the user may read;
 * absent, null or all lists empty = everything the user may read. Applies to the prefetched context
 * and to the `knowledge_search` tool (knowledge's search `filter`).
 */
export const AgentKnowledgeSchema = Type.Object({
  audiences: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
  tags: Type.Optional(Type.Array(Tag, { maxItems: 64 })),
  document_ids: Type.Optional(Type.Array(Tag, { maxItems: 256 })),
}, { additionalProperties: false });

/** The configurable fields of an agent (all optional: PATCH takes any subset). */
const agentFields = {
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  instructions: Type.Optional(Type.String({ maxLength: MAX_AGENT_INSTRUCTIONS })),
  /** Tools the agent may use; empty or absent = the default set (every tool but MCP ones). */
  tools: Type.Optional(Type.Array(ToolEntry, { maxItems: MAX_AGENT_TOOLS })),
  /** Model role the agent's turns use (`vision` still wins for images); absent = `default`. */
  model_role: Type.Optional(OrNull(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' }))),
  /** A concrete model the agent's completions ask the router for (a model id the router offers); absent/null = `model_role` routes. An image in the prompt still goes to the `vision` role. */
  model: Type.Optional(OrNull(Type.String({ minLength: 1, maxLength: 200 }))),
  knowledge: Type.Optional(OrNull(AgentKnowledgeSchema)),
  /** `user`: memories shared across the user's agents (default); `agent`: stored and searched under this agent only; `none`: no memory. */
  memory_scope: Type.Optional(StringEnum(['user', 'agent', 'none'] as const)),
  /**
   * Guardrail policy name: the turn's guardrail checks run with `scope.agent_id` = this name, so the
   * guardrail's agent-level override stored under it (`PUT /v1/guard/policy {agent_id: <name>, policy}`)
   * applies over the tenant's; absent/null = the agent's own id (as before).
   */
  guardrail_policy: Type.Optional(OrNull(Type.String({ minLength: 1, maxLength: 128 }))),
  /** Floor of the approval policy of the agent's tool calls: `ask` asks for every call, `deny` offers no tools; `auto` keeps the policies in force. */
  tool_approval: Type.Optional(StringEnum(['ask', 'auto', 'deny'] as const)),
};

/** `POST /v1/agents` and `PUT /v1/agents/{id}` body (`scope` only on create; `tenant` for admins only). */
export const AgentCreateSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scope: Type.Optional(CatalogScopeSchema),
  ...agentFields,
}, { additionalProperties: false });
/** An agent create or replace. */
export type AgentCreate = Static<typeof AgentCreateSchema>;

/** `PATCH /v1/agents/{id}` body: the fields to change. */
export const AgentPatchSchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...agentFields,
}, { additionalProperties: false });
/** An agent patch. */
export type AgentPatch = Static<typeof AgentPatchSchema>;

/** An agent as answers carry it. */
export const AgentViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  instructions: Type.String(),
  tools: Type.Array(Type.String()),
  scope: CatalogScopeSchema,
  /** Who created it (`''` for the built-in default agent). */
  owner_id: Type.String(),
  model_role: OrNull(Type.String()),
  model: OrNull(Type.String()),
  knowledge: OrNull(AgentKnowledgeSchema),
  memory_scope: StringEnum(['user', 'agent', 'none'] as const),
  guardrail_policy: OrNull(Type.String()),
  tool_approval: StringEnum(['ask', 'auto', 'deny'] as const),
  /** True for the default agent. */
  is_default: Type.Boolean(),
  /** Whether the caller may edit it. */
  editable: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** An agent as answers carry it. */
export type AgentView = Static<typeof AgentViewSchema>;

/** `GET /v1/agents`: the default agent, the tenant's agents, then the caller's own (each by name). */
export const AgentListSchema = Type.Object({ items: Type.Array(AgentViewSchema) });
/** The agent list. */
export type AgentList = Static<typeof AgentListSchema>;
