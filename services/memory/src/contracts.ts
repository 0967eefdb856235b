/**
 * Public surface of the memory service (spec "Memory"; "Events" memory_op).
 *
 * Routes (gateway-stamped principal required). Scope: `{tenant_id, user_id, agent_id?, session_id?}`;
 * missing tenant/user default to the principal's. Authorization: a caller acts on its own user;
 * `admin`/`tenant_admin` (and service accounts) on any user of the pinned tenant; `platform_admin`
 * across tenants. Another user's memory answers 404, as if absent.
 * - `POST /v1/memory` `StoreRequest` -> 201 `StoreResult` (200 when nothing new was stored)
 * - `POST /v1/memory/search` `SearchRequest` -> 200 `{memories: MemoryRecord[] (with score)}`
 * - `GET /v1/memory?tenant_id&user_id&agent_id&session_id&memory_type&limit&cursor` -> 200 `{items, next_cursor?}`
 * - `GET /v1/memory/:memory_id?tenant_id&user_id` -> 200 `MemoryRecord`
 * - `PUT /v1/memory/:memory_id` `UpdateRequest` -> 200 `MemoryRecord`
 * - `DELETE /v1/memory/:memory_id?tenant_id&user_id` -> 200 `{id, deleted: true}`
 * - `POST /v1/memory/:memory_id/forget` (query or body tenant_id, user_id) -> 200 `{id, deleted: true, forgotten: true, initiated_by: 'user'}`
 * - `POST /v1/memory/prefetch` `PrefetchRequest` -> 200 `PrefetchResult`
 * - `POST /v1/memory/consolidate` `{scope?}` -> 200 `ConsolidationReport` (own scope; admins: tenant)
 * - `GET /v1/memory/status` -> 200 `{dense_enabled, dense_reason, embedder, ...}`
 */
import type { CommonServiceConfig } from '../../shared/config.js';

/** Settings of main/config/services/memory.ts. */
export interface MemorySettings {
  embeddingDims: number;
  modelDirs: string[];
  embeddingModel: string;
  consolidationIntervalHours: number;
  prefetchTokenBudget: number;
  duplicateSimilarity: number;
}

/** The memory service's config slice. */
export type MemoryConfig = CommonServiceConfig & MemorySettings;

/** The four memory types (spec). */
export type MemoryType = 'user' | 'feedback' | 'project' | 'reference';
export const MEMORY_TYPES: readonly MemoryType[] = ['user', 'feedback', 'project', 'reference'];

/** MemoryScope (spec). */
export interface MemoryScope { tenant_id?: string | null; user_id?: string | null; agent_id?: string | null; session_id?: string | null }

/** Memory record (spec); `score` on search only. */
export interface MemoryRecord {
  id: string;
  content: string;
  memory_type: MemoryType;
  scope: { tenant_id: string; user_id: string; agent_id: string | null; session_id: string | null };
  pinned: boolean;
  expires_at: string | null;
  source: string | null;
  last_recalled_at: string | null;
  why_stored: string | null;
  created_at: string;
  updated_at: string;
  score?: number;
}

/** Body of `POST /v1/memory`. */
export interface StoreRequest {
  content?: string;
  messages?: Array<{ role: string; content: unknown }>;
  memory_type?: MemoryType;
  scope?: MemoryScope;
  pinned?: boolean;
  expires_at?: string | null;
  why_stored?: string | null;
  source?: string | null;
}

/** What happened to each candidate memory. */
export interface StoreOutcome { event: 'ADD' | 'UPDATE' | 'NONE'; memory: MemoryRecord; reason?: string }

/** Body of the store answer. */
export interface StoreResult {
  results: StoreOutcome[];
  memories: MemoryRecord[];
  /** `memory_role` when the `memory` model role extracted the candidates, else `deterministic`. */
  extraction: 'content' | 'memory_role' | 'deterministic';
}

/** Body of `POST /v1/memory/search`. */
export interface SearchRequest { query: string; scope?: MemoryScope; memory_type?: MemoryType; limit?: number; min_score?: number }

/** Body of `PUT /v1/memory/:id`. */
export interface UpdateRequest { content?: string; scope?: MemoryScope; memory_type?: MemoryType; pinned?: boolean; expires_at?: string | null; why_stored?: string | null }

/** Body of `POST /v1/memory/prefetch`. */
export interface PrefetchRequest {
  query?: string;
  messages?: Array<{ role: string; content: unknown }>;
  scope?: MemoryScope;
  /** Estimated tokens (4 characters each) the memories may take; default MEMORY_PREFETCH_TOKEN_BUDGET. */
  token_budget?: number;
  limit?: number;
}

/** Prefetch answer: memories within the budget (pinned first) and a ready-to-insert context block. */
export interface PrefetchResult { memories: MemoryRecord[]; tokens_used: number; token_budget: number; context: string }

/** A consolidation decision. */
export interface ConsolidationDecision { event: 'ADD' | 'UPDATE' | 'DELETE' | 'NONE'; memory_id: string; merged_into?: string; reason: string }

/** Consolidation answer. */
export interface ConsolidationReport {
  scopes: number;
  expired_removed: number;
  merged: number;
  decisions: ConsolidationDecision[];
  decided_by: 'memory_role' | 'deterministic';
}

/** Error codes beyond the shared ones. */
export type MemoryErrorCode = 'scope_forbidden' | 'memory_not_found' | 'nothing_to_store';
