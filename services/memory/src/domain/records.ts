/**
 * Pure helpers of the memory domain: scope keys, content keys for duplicate checks, term overlap,
 * token estimates, the wire shape of a stored memory, and expiry parsing.
 */
import { DomainError, type CommonErrorCode } from '../../../shared/kit/domain-error.js';
import type { MemoryHistoryEntry, MemoryRecord, MemoryType } from '../contracts.js';
import { MEMORY_TYPES } from '../contracts.js';
import type { HistoryRepository, MemoryRow } from './ports.js';

/** A resolved scope. */
export interface Scope { tenant_id: string; user_id: string; agent_id: string | null; session_id: string | null }

/** Now, RFC 3339 UTC. */
export function nowIso(): string { return new Date().toISOString(); }

/** The scope key of a tenant and user: `{tenant_id}:{user_id}`. */
export function scopeKey(s: { tenant_id: string; user_id: string }): string { return `${s.tenant_id}:${s.user_id}`; }

/** Normalised content for exact-duplicate checks. */
export function contentKey(s: string): string { return s.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim(); }

/** Jaccard overlap of two term sets (1 for two empty sets). */
export function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Estimated tokens of a text (4 characters per token, the usual English rule of thumb). */
export function estimateTokens(s: string): number { return Math.ceil(s.length / 4); }

/** The wire record of a stored memory; `score` rounded to 4 decimals when given. */
export function record(r: MemoryRow, score?: number): MemoryRecord {
  const out: MemoryRecord = {
    id: r.id, content: r.content, memory_type: r.memory_type, scope: { tenant_id: r.tenant_id, user_id: r.user_id, agent_id: r.agent_id, session_id: r.session_id },
    pinned: r.pinned, expires_at: r.expires_at, source: r.source, last_recalled_at: r.last_recalled_at, why_stored: r.why_stored,
    created_at: r.created_at, updated_at: r.updated_at,
  };
  if (score !== undefined) out.score = Number(score.toFixed(4));
  return out;
}

/** The wire history of a memory (`user_initiated` 1 or 0, as the API has always answered). */
export async function historyOf(history: HistoryRepository, memoryId: string): Promise<MemoryHistoryEntry[]> {
  return (await history.of(memoryId)).map((h) => ({ ...h, user_initiated: h.user_initiated ? 1 : 0 }));
}

/** The `scope` of a memory_op event payload. */
export function eventScope(s: { user_id: string; agent_id: string | null; session_id: string | null }): { user_id: string; agent_id: string | null; session_id: string | null } {
  return { user_id: s.user_id, agent_id: s.agent_id, session_id: s.session_id };
}

/**
 * Parse an optional expiry. @returns RFC 3339 UTC or null.
 * @throws DomainError `invalid_request` (field `expires_at`) when not a time.
 */
export function checkExpiry(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw invalidField('expires_at must be an RFC 3339 time', 'expires_at');
  return new Date(v).toISOString();
}

/** @throws DomainError `invalid_request` (field `field`) unless `t` is absent or a memory type. */
export function checkType(t: string | null | undefined, field: string): void {
  if (t && !MEMORY_TYPES.includes(t as MemoryType)) throw invalidField('memory_type must be user, feedback, project or reference', field);
}

/** A 400 `invalid_request` naming the offending field. */
export function invalidField(message: string, field: string): DomainError<CommonErrorCode> {
  return new DomainError<CommonErrorCode>('invalid_request', message, { extra: { field } });
}
