/**
 * Public surface of the memory service (spec "Memory"; "Events" memory_op): the one door other
 * services and the renderer use. TypeBox request and response schemas, the types derived from them,
 * the settings type and the error table. Imports nothing from Node or from non-contract modules.
 *
 * Routes (gateway-stamped principal required). Scope: `{tenant_id, user_id, agent_id?, session_id?}`;
 * missing tenant/user default to the principal's. Authorization: a caller acts on its own user;
 * `admin`/`tenant_admin` (and service accounts) on any user of the pinned tenant; `platform_admin`
 * across tenants. Another user's memory answers 404, as if absent.
 * - `POST /v1/memory` `StoreRequest` -> 201 `StoreResult` (200 when nothing new was stored)
 * - `POST /v1/memory/search` `SearchRequest` -> 200 `{memories: MemoryRecord[] (with score)}`
 * - `GET /v1/memory?tenant_id&user_id&agent_id&session_id&memory_type&limit&cursor` -> 200 `{items, next_cursor?}`
 * - `GET /v1/memory/:memory_id?tenant_id&user_id` -> 200 `MemoryDetail` (record and history)
 * - `PUT /v1/memory/:memory_id` `UpdateRequest` -> 200 `MemoryRecord`
 * - `DELETE /v1/memory/:memory_id?tenant_id&user_id` -> 200 `{id, deleted: true}`
 * - `POST /v1/memory/:memory_id/forget` (query or body tenant_id, user_id) -> 200 `{id, deleted: true, forgotten: true, initiated_by: 'user'}`
 * - `POST /v1/memory/prefetch` `PrefetchRequest` -> 200 `PrefetchResult`
 * - `POST /v1/memory/consolidate` `{scope?}` -> 200 `ConsolidationReport` (own scope; admins: tenant)
 * - `GET /v1/memory/status` -> 200 `MemoryStatus`
 * Errors: `{error, code}`; 400 `invalid_request` (with `field`), 403 `scope_forbidden`, 404 `memory_not_found`.
 */
import { Type, type Static } from '../../shared/kit/typebox.js';
import { Nullable } from '../../shared/kit/schema.js';
import type { CommonServiceConfig } from '../../shared/config.js';
import type { ErrorTable } from '../../shared/kit/domain-error.js';

/** Settings of main/config/services/memory.ts (defaults live there only). */
export interface MemorySettings {
  /** Vector width (EMBEDDING_DIMS). */
  embeddingDims: number;
  /** Folders searched for the embedding model, in order. */
  modelDirs: string[];
  /** Model folder name (SVC_EMBEDDING_MODEL). */
  embeddingModel: string;
  /** Period of consolidation, hours; 0 turns the timer off (CONSOLIDATION_INTERVAL_HOURS). */
  consolidationIntervalHours: number;
  /** Default token budget of prefetch (MEMORY_PREFETCH_TOKEN_BUDGET). */
  prefetchTokenBudget: number;
  /** Cosine at or above which two memories of a scope are near-duplicates (MEMORY_DUPLICATE_SIMILARITY). */
  duplicateSimilarity: number;
}

/** The memory service's config slice. */
export type MemoryConfig = CommonServiceConfig & MemorySettings;

/** The memory service's error codes beyond the common ones, and their HTTP statuses. */
export const MEMORY_ERRORS = {
  /** The scope names another user (without a tenant role) or another tenant (without a platform role). */
  scope_forbidden: 403,
  /** No memory with that id the caller may see. */
  memory_not_found: 404,
} as const satisfies ErrorTable;

/** Error codes the memory service throws beyond the common ones. */
export type MemoryErrorCode = keyof typeof MEMORY_ERRORS;


// ---- shared pieces -----------------------------------------------------------------------------

/** The four memory types (spec). */
export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;

/** A memory type. */
export const MemoryTypeSchema = Type.Enum(MEMORY_TYPES, { type: 'string' });
/** The four memory types (spec). */
export type MemoryType = Static<typeof MemoryTypeSchema>;

/** MemoryScope in request bodies (spec); missing tenant/user mean the principal's. */
export const MemoryScopeSchema = Type.Object({
  tenant_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  user_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  agent_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
  session_id: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
});
/** MemoryScope (spec). */
export type MemoryScope = Static<typeof MemoryScopeSchema>;

/** A scope in a query string. */
export const ScopeQuerySchema = Type.Object({
  tenant_id: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  agent_id: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
});
/** A scope in a query string. */
export type ScopeQuery = Static<typeof ScopeQuerySchema>;

/** Chat messages to extract from (`content` a string or content parts). */
export const MessagesSchema = Type.Array(Type.Object({ role: Type.String(), content: Type.Optional(Type.Unknown()) }), { maxItems: 500 });
/** Chat messages. */
export type Messages = Static<typeof MessagesSchema>;

/** `:memory_id` path parameter. */
export const MemoryIdParamsSchema = Type.Object({ memory_id: Type.String({ minLength: 1, maxLength: 64 }) });
/** `:memory_id` path parameter. */
export type MemoryIdParams = Static<typeof MemoryIdParamsSchema>;

/** Memory record (spec); `score` (0-1) on search and prefetch only. Times RFC 3339 UTC. */
export const MemoryRecordSchema = Type.Object({
  id: Type.String(),
  content: Type.String(),
  memory_type: MemoryTypeSchema,
  scope: Type.Object({
    tenant_id: Type.String(), user_id: Type.String(), agent_id: Nullable(Type.String()), session_id: Nullable(Type.String()),
  }),
  pinned: Type.Boolean(),
  expires_at: Nullable(Type.String()),
  source: Nullable(Type.String()),
  last_recalled_at: Nullable(Type.String()),
  why_stored: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
  score: Type.Optional(Type.Number()),
});
/** Memory record (spec). */
export type MemoryRecord = Static<typeof MemoryRecordSchema>;

/** One change of a memory, in `GET /v1/memory/:id` (`user_initiated` 1 or 0). */
export const MemoryHistoryEntrySchema = Type.Object({
  event: Type.String(),
  actor_id: Type.String(),
  user_initiated: Type.Integer(),
  old_content: Nullable(Type.String()),
  new_content: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  at: Type.String(),
});
/** One change of a memory. */
export type MemoryHistoryEntry = Static<typeof MemoryHistoryEntrySchema>;

/** Answer of `GET /v1/memory/:id`: the record and its history, oldest first. */
export const MemoryDetailSchema = Type.Object({ ...MemoryRecordSchema.properties, history: Type.Array(MemoryHistoryEntrySchema) });
/** Answer of `GET /v1/memory/:id`. */
export type MemoryDetail = Static<typeof MemoryDetailSchema>;

// ---- store -------------------------------------------------------------------------------------

/** Body of `POST /v1/memory`: `content`, or `messages` to extract from. */
export const StoreRequestSchema = Type.Object({
  content: Type.Optional(Type.String({ maxLength: 8000 })),
  messages: Type.Optional(MessagesSchema),
  memory_type: Type.Optional(MemoryTypeSchema),
  scope: Type.Optional(MemoryScopeSchema),
  pinned: Type.Optional(Type.Boolean()),
  expires_at: Type.Optional(Nullable(Type.String())),
  why_stored: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  source: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
});
/** Body of `POST /v1/memory`. */
export type StoreRequest = Static<typeof StoreRequestSchema>;

/** What happened to one candidate memory. */
export const StoreOutcomeSchema = Type.Object({
  event: Type.Enum(['ADD', 'UPDATE', 'NONE'], { type: 'string' }),
  memory: MemoryRecordSchema,
  reason: Type.Optional(Type.String()),
});
/** What happened to one candidate memory. */
export type StoreOutcome = Static<typeof StoreOutcomeSchema>;

/**
 * Answer of `POST /v1/memory`. `extraction`: `content` when stored as sent, `memory_role` when the
 * `memory` model role extracted the candidates, else `deterministic`.
 */
export const StoreResultSchema = Type.Object({
  results: Type.Array(StoreOutcomeSchema),
  memories: Type.Array(MemoryRecordSchema),
  extraction: Type.Enum(['content', 'memory_role', 'deterministic'], { type: 'string' }),
});
/** Answer of `POST /v1/memory`. */
export type StoreResult = Static<typeof StoreResultSchema>;

// ---- search and prefetch -----------------------------------------------------------------------

/** Body of `POST /v1/memory/search`. */
export const SearchRequestSchema = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 8000 }),
  scope: Type.Optional(MemoryScopeSchema),
  memory_type: Type.Optional(MemoryTypeSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  min_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});
/** Body of `POST /v1/memory/search`. */
export type SearchRequest = Static<typeof SearchRequestSchema>;

/** Answer of `POST /v1/memory/search`: best first, each with `score`. */
export const SearchResultSchema = Type.Object({ memories: Type.Array(MemoryRecordSchema) });
/** Answer of `POST /v1/memory/search`. */
export type SearchResult = Static<typeof SearchResultSchema>;

/** Body of `POST /v1/memory/prefetch`; `token_budget` estimated tokens (4 characters each), default MEMORY_PREFETCH_TOKEN_BUDGET. */
export const PrefetchRequestSchema = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 16000 })),
  messages: Type.Optional(MessagesSchema),
  scope: Type.Optional(MemoryScopeSchema),
  token_budget: Type.Optional(Type.Integer({ minimum: 16, maximum: 32768 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
/** Body of `POST /v1/memory/prefetch`. */
export type PrefetchRequest = Static<typeof PrefetchRequestSchema>;

/** Prefetch answer: memories within the budget (pinned first) and a ready-to-insert context block. */
export const PrefetchResultSchema = Type.Object({
  memories: Type.Array(MemoryRecordSchema),
  tokens_used: Type.Integer(),
  token_budget: Type.Integer(),
  context: Type.String(),
});
/** Prefetch answer. */
export type PrefetchResult = Static<typeof PrefetchResultSchema>;

// ---- list, update, delete ----------------------------------------------------------------------

/** Query of `GET /v1/memory`; `cursor` is the `next_cursor` of the previous page. */
export const ListQuerySchema = Type.Object({
  ...ScopeQuerySchema.properties,
  memory_type: Type.Optional(MemoryTypeSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 32 })),
  include_expired: Type.Optional(Type.Boolean()),
});
/** Query of `GET /v1/memory`. */
export type ListQuery = Static<typeof ListQuerySchema>;

/** Answer of `GET /v1/memory`: newest first. */
export const MemoryPageSchema = Type.Object({ items: Type.Array(MemoryRecordSchema), next_cursor: Type.Optional(Type.String()) });
/** Answer of `GET /v1/memory`. */
export type MemoryPage = Static<typeof MemoryPageSchema>;

/** Body of `PUT /v1/memory/:id`. */
export const UpdateRequestSchema = Type.Object({
  content: Type.Optional(Type.String({ minLength: 1, maxLength: 8000 })),
  scope: Type.Optional(MemoryScopeSchema),
  memory_type: Type.Optional(MemoryTypeSchema),
  pinned: Type.Optional(Type.Boolean()),
  expires_at: Type.Optional(Nullable(Type.String())),
  why_stored: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
});
/** Body of `PUT /v1/memory/:id`. */
export type UpdateRequest = Static<typeof UpdateRequestSchema>;

/** Optional body of `POST /v1/memory/:id/forget` (the scope may also come in the query). */
export const ForgetRequestSchema = Nullable(Type.Object({
  scope: Type.Optional(MemoryScopeSchema), tenant_id: Type.Optional(Type.String()), user_id: Type.Optional(Type.String()),
}));
/** Optional body of `POST /v1/memory/:id/forget`. */
export type ForgetRequest = Static<typeof ForgetRequestSchema>;

/** Answer of delete (`{id, deleted}`) and forget (also `forgotten`, `initiated_by`). */
export const DeleteResultSchema = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
  forgotten: Type.Optional(Type.Literal(true)),
  initiated_by: Type.Optional(Type.Literal('user')),
});
/** Answer of delete and forget. */
export type DeleteResult = Static<typeof DeleteResultSchema>;

// ---- consolidation and status ------------------------------------------------------------------

/** Optional body of `POST /v1/memory/consolidate`. */
export const ConsolidateRequestSchema = Nullable(Type.Object({ scope: Type.Optional(MemoryScopeSchema) }));
/** Optional body of `POST /v1/memory/consolidate`. */
export type ConsolidateRequest = Static<typeof ConsolidateRequestSchema>;

/** A consolidation decision. */
export const ConsolidationDecisionSchema = Type.Object({
  event: Type.Enum(['ADD', 'UPDATE', 'DELETE', 'NONE'], { type: 'string' }),
  memory_id: Type.String(),
  merged_into: Type.Optional(Type.String()),
  reason: Type.String(),
});
/** A consolidation decision. */
export type ConsolidationDecision = Static<typeof ConsolidationDecisionSchema>;

/** Consolidation answer. */
export const ConsolidationReportSchema = Type.Object({
  scopes: Type.Integer(),
  expired_removed: Type.Integer(),
  merged: Type.Integer(),
  decisions: Type.Array(ConsolidationDecisionSchema),
  decided_by: Type.Enum(['memory_role', 'deterministic'], { type: 'string' }),
});
/** Consolidation answer. */
export type ConsolidationReport = Static<typeof ConsolidationReportSchema>;

/**
 * Answer of `GET /v1/memory/status`; `embedder` is the embedder's status object as it reports it to
 * admins, and without its model folder and with a `dense_reason` that names no directory to anyone
 * else (issue 11 item 9).
 */
export const MemoryStatusSchema = Type.Object({
  dense_enabled: Type.Boolean(),
  dense_reason: Nullable(Type.String()),
  embedder: Type.Object({}, { additionalProperties: true }),
  sparse_enabled: Type.Boolean(),
});
/** Answer of `GET /v1/memory/status`. */
export type MemoryStatus = Static<typeof MemoryStatusSchema>;
