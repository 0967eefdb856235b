/**
 * What the admin surfaces need from the outside (issue 13 item 8), as interfaces: the stores of
 * permission profiles and turn statistics (`store/admin.ts` over SQLite; plain rows, no statement
 * types, so a PostgreSQL implementation could stand behind them) and the peers mission control,
 * onboarding, policies and AgentOps read (`clients/admin-peers.ts` over HTTP).
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';

// ---- Stores -------------------------------------------------------------------------------------

/** A stored permission profile (list columns are JSON text). */
export interface ProfileRow {
  id: string; tenant_id: string; name: string; roles: string; groups: string; agents: string; tools: string; knowledge: string;
  created_at: string; updated_at: string; updated_by: string | null;
}

/** Permission profiles of a tenant. */
export interface ProfileStore {
  /** By name. */
  list(tenantId: string): Awaitable<ProfileRow[]>;
  get(tenantId: string, id: string): Awaitable<ProfileRow | undefined>;
  /** @returns false when the name is taken in the tenant. */
  insert(row: ProfileRow): Awaitable<boolean>;
  /** Replace every field but `id`, `tenant_id`, `created_at`. @returns 'ok', 'missing', or 'name_taken'. */
  update(row: ProfileRow): Awaitable<'ok' | 'missing' | 'name_taken'>;
  /** @returns whether it existed. */
  delete(tenantId: string, id: string): Awaitable<boolean>;
}

/** One finished turn as recorded (migration 0006 `turn_stats`). */
export interface TurnStatRow {
  id: string; turn_id: string | null; tenant_id: string; agent_id: string; user_id: string; session_id: string;
  status: string; error_code: string | null; error_message: string | null; guard_unavailable: number;
  tool_calls: number; tool_errors: number; latency_ms: number; prompt_tokens: number; completion_tokens: number;
  started_at: string; ended_at: string; day: string;
}

/** One tool call of a recorded turn. */
export interface TurnToolRow { tool: string; status: string }

/** Error counts of a window. */
export interface ErrorCounts { turn_failed: number; tool_errors: number; guard_unavailable: number }

/** One recent error (newest first). */
export interface ErrorRow {
  at: string; kind: 'turn_failed' | 'tool_error' | 'guard_unavailable'; code: string | null; message: string | null; turn_id: string | null; agent_id: string;
}

/** Per (agent, tool) counts of a window. */
export interface ToolCountRow { agent_id: string; tool: string; calls: number; errors: number }

/** Turn statistics (AgentOps, mission control errors). */
export interface TurnStatsStore {
  /** Record a finished turn and its tool calls (one transaction; a repeated id is ignored). */
  record(row: TurnStatRow, tools: readonly TurnToolRow[]): Awaitable<void>;
  /** Turns of the tenant that ended at or after `since` (ISO). */
  since(tenantId: string, since: string): Awaitable<TurnStatRow[]>;
  /** Tool calls per agent and tool since `since`; errors are statuses `error` and `invalid`. */
  toolCounts(tenantId: string, since: string): Awaitable<ToolCountRow[]>;
  /** Error counts since `since`: failed turns (not `client_closed`, not guard), tool errors, guard unavailable. */
  errorCounts(tenantId: string, since: string): Awaitable<ErrorCounts>;
  /** The newest errors since `since`. */
  recentErrors(tenantId: string, since: string, limit: number): Awaitable<ErrorRow[]>;
}

// ---- Peers --------------------------------------------------------------------------------------

/** A peer's JSON answer, or why there was none. */
export type PeerAnswer<T> = { ok: true; body: T } | { ok: false; status: number; code: string | null; error: string; body?: unknown };

/** One `/readyz` probe. */
export interface ProbeResult { state: 'ready' | 'starting' | 'failed'; latencyMs: number; detail: string | null }

/**
 * The peers of the admin surfaces. `as` is the admin's own stamped identity headers (forwarded for
 * routes that need the admin role: knowledge documents, router registry, guardrail policy writes);
 * the other calls carry the runtime's service stamp.
 */
export interface AdminPeers {
  /** `GET <service>/readyz` with a short timeout. */
  probe(service: string): Promise<ProbeResult>;
  /** Observability `GET /v1/internal/budgets/{tenant}` (service stamp). */
  budget(tenantId: string): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Sandbox `GET /sessions` (service stamp). */
  sandboxSessions(): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Sandbox `GET /readyz` (its readiness fields, also on 503). */
  sandboxReadiness(): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Knowledge `GET /v1/knowledge/documents?status&archived=include&limit` as the admin. */
  documents(as: Record<string, string>, status: 'failed' | 'indexing', limit: number): Promise<PeerAnswer<{ items: Array<Record<string, unknown>>; next_cursor?: string }>>;
  /** Knowledge `GET /v1/knowledge/status` as the admin. */
  knowledgeStatus(as: Record<string, string>): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Memory `GET /v1/memory/status` as the admin. */
  memoryStatus(as: Record<string, string>): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Router `GET /v1/internal/providers` as the admin. */
  providers(as: Record<string, string>): Promise<PeerAnswer<{ items: Array<Record<string, unknown>> }>>;
  /** Router `GET /v1/internal/roles` as the admin. */
  modelRoles(as: Record<string, string>): Promise<PeerAnswer<{ items: Array<Record<string, unknown>> }>>;
  /** The admin's own paired phones (auth `GET /v1/account/devices`, as the admin; issue 14); absent = no auth peer. */
  devices?(as: Record<string, string>): Promise<PeerAnswer<{ items: Array<Record<string, unknown>> }>>;
  /** Guardrail `GET /v1/guard/policy?agent_id` (service stamp). */
  guardPolicy(agentId: string | undefined): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Guardrail `PUT /v1/guard/policy` as the admin. */
  putGuardPolicy(as: Record<string, string>, body: { agent_id?: string; policy: Record<string, unknown> }): Promise<PeerAnswer<Record<string, unknown>>>;
  /** Guardrail `DELETE /v1/guard/policy?agent_id` as the admin. */
  deleteGuardPolicy(as: Record<string, string>, agentId: string | undefined): Promise<PeerAnswer<null>>;
  /** Observability `GET /v1/generations?since&limit&cursor` (service stamp: every user's records). */
  generations(since: string, limit: number, cursor: string | undefined): Promise<PeerAnswer<{ items: Array<Record<string, unknown>>; next_cursor?: string }>>;
}
