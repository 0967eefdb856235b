/**
 * What the memory domain needs from persistence and the outside world. `store/` implements the
 * stores over SQLite and `store/pg/` over PostgreSQL (issue 21 item 1), `clients/` the memory role
 * over the inference router; tests may pass fakes. Nothing here names a database type. Repository
 * methods answer `Awaitable<T>` (now on SQLite, later on PostgreSQL); the use cases await them and
 * group writes with an `AsyncTransactor` (inside it, await only store calls).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { MemoryType } from '../contracts.js';

/** Run `fn` in one transaction of the store's database, either engine (await only store calls inside). */
export type { AsyncTransactor } from '../../../shared/db/async-store.js';

/** A stored memory. Times RFC 3339 UTC. */
export interface MemoryRow {
  /** Internal row id: ascending with insertion, the list cursor. */
  rid: number;
  /** ULID. */
  id: string;
  tenant_id: string;
  user_id: string;
  /** `{tenant_id}:{user_id}`. */
  scope_key: string;
  agent_id: string | null;
  session_id: string | null;
  memory_type: MemoryType;
  content: string;
  /** Normalised content, for exact-duplicate checks (`contentKey`). */
  content_key: string;
  pinned: boolean;
  expires_at: string | null;
  source: string | null;
  why_stored: string | null;
  last_recalled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A new memory (the store sets `rid`, times and `last_recalled_at`). */
export type NewMemory = Omit<MemoryRow, 'rid' | 'created_at' | 'updated_at' | 'last_recalled_at'>;

/** The mutable fields of a memory. */
export interface MemoryChange {
  content: string;
  content_key: string;
  memory_type: MemoryType;
  pinned: boolean;
  expires_at: string | null;
  why_stored: string | null;
}

/** Scope filter: `scopeKey` always; agent, session and type narrow when set; expired rows drop unless asked. */
export interface ScopeFilter {
  scopeKey: string;
  agentId?: string | null;
  sessionId?: string | null;
  memoryType?: string | null;
  /** RFC 3339 time against which `expires_at` is compared. */
  now: string;
  includeExpired?: boolean;
}

/** A scope that holds memories. */
export interface ScopeRef { scope_key: string; tenant_id: string; user_id: string }

/** Memories and their keyword index. */
export interface MemoryRepository {
  /** Insert `m` and index `terms` (space-separated analysed terms). @returns the stored row. */
  insert(m: NewMemory, terms: string, now: string): Awaitable<MemoryRow>;
  /**
   * Change a memory; `terms` re-indexes it (null: content unchanged, index kept). A content change
   * marks the memory as not embedded.
   */
  update(rid: number, change: MemoryChange, terms: string | null, now: string): Awaitable<void>;
  /** Delete a memory with its keyword entry and vector. */
  delete(rid: number): Awaitable<void>;
  byId(id: string): Awaitable<MemoryRow | null>;
  byRids(rids: readonly number[]): Awaitable<MemoryRow[]>;
  /** The memory of a scope, type, agent and session with this content key. */
  byKey(scopeKey: string, contentKey: string, type: string, agentId: string | null, sessionId: string | null): Awaitable<MemoryRow | null>;
  /** Memories of a scope, newest first (rid descending), `limit` rows with rid < `beforeRid` when set. */
  list(f: ScopeFilter, limit: number, beforeRid: number | null): Awaitable<MemoryRow[]>;
  /** Every memory of a scope (for dense scoring and consolidation). */
  all(f: ScopeFilter): Awaitable<MemoryRow[]>;
  /** Keyword search (BM25, best first) for memories holding any of `terms`; at most `limit`. */
  keywordSearch(f: ScopeFilter, terms: readonly string[], limit: number): Awaitable<Array<{ rid: number }>>;
  /** Set `last_recalled_at` of the rows. */
  touch(rids: readonly number[], now: string): Awaitable<void>;
  /** Memories whose `expires_at` is at or before `now`. */
  expired(now: string): Awaitable<MemoryRow[]>;
  /** Every scope that holds a memory. */
  scopes(): Awaitable<ScopeRef[]>;
}

/** Embedding vectors of memories (unit length, one width per store). */
export interface VectorRepository {
  /** Adopt `dims` as the width; when it changed, drop every vector. @returns true when vectors were dropped. */
  ensureDims(dims: number): Awaitable<boolean>;
  /** Vectors of the rows that have one. */
  vectors(rids: readonly number[]): Awaitable<Map<number, Float32Array>>;
  /** Store a vector if the memory still holds `content` (an update meanwhile invalidates it). */
  putVector(rid: number, content: string, vec: Float32Array): Awaitable<void>;
  /** Up to `limit` memories without a vector for their current content, oldest first. */
  unembedded(limit: number): Awaitable<Array<{ rid: number; content: string }>>;
}

/** One recorded change (`event`: ADD UPDATE DELETE FORGET MERGE EXPIRE). */
export interface HistoryEntry {
  memory_id: string;
  tenant_id: string;
  user_id: string;
  event: string;
  actor_id: string;
  user_initiated: boolean;
  old_content: string | null;
  new_content: string | null;
  reason: string | null;
  at: string;
}

/** The history of every change, for the user's own record of what was stored and forgotten. */
export interface HistoryRepository {
  add(e: HistoryEntry): Awaitable<void>;
  /** Changes of one memory, oldest first. */
  of(memoryId: string): Awaitable<Array<Omit<HistoryEntry, 'memory_id' | 'tenant_id' | 'user_id'>>>;
}

/** Headers forwarded to the memory role: the caller's principal, turn and capability token. */
export type StampedHeaders = Record<string, string>;

/** The `memory` model role (through the inference router). */
export interface MemoryRole {
  /**
   * Ask the role with a system prompt and a user message; the parsed JSON object of its answer,
   * or null on any failure (role not mapped, router unreachable, an answer that is not JSON).
   */
  ask(headers: StampedHeaders, system: string, user: string): Promise<Record<string, unknown> | null>;
}

/** Turn events (`memory_op`, spec "Events"). */
export interface EventSink {
  emit(turnId: string, principalId: string, type: 'memory_op', payload: unknown): void;
  /** Wait until pending events landed or `timeoutMs` passed. @returns true when all landed. */
  deliver(timeoutMs?: number): Promise<boolean>;
}
