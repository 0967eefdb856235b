/**
 * Asynchronous ports of the audit chain (issue 21 item 1), beside the synchronous ones of
 * ports.ts, for stores that answer over the network (PostgreSQL, services/audit/src/store/pg/).
 * The row shapes are the same (`AuditRowRecord`, `ChainHeadRecord`, `RowWithHead`), so the chain
 * check (chain-verify.ts) and the row builder (chain-row.ts) serve both.
 *
 * Wiring (next step): `AuditLogService` and the turn/receipt services take these instead of the sync
 * ports once every audit table group has an async implementation; the SQLite stores satisfy them as
 * they are (a sync return is a valid `Awaitable`).
 */
import type { AuditRowRecord, AuditLogStore, ListFilter, RowWithHead } from './ports.js';
import type { ChainedRow } from './chain-row.js';

/** A value or a promise of it: what a port method may return when SQLite and PostgreSQL both implement it. */
export type Awaitable<T> = T | Promise<T>;

/** The reads of the chain check (`verifyChain`), sync (SQLite) or async (PostgreSQL). */
export type ChainReads = {
  [K in 'logStats' | 'headStats' | 'nthNewestSeq' | 'rowBefore' | 'rowsWithHeads']:
    (...args: Parameters<AuditLogStore[K]>) => Awaitable<ReturnType<AuditLogStore[K]>>;
};

/** The audit log's reads, asynchronous (same meaning as `AuditLogStore`'s). */
export interface AsyncAuditLogReads {
  /** Highest audit_log id, 0 when empty. */
  maxId(): Promise<number>;
  lastRow(tenantId: string): Promise<AuditRowRecord | undefined>;
  list(f: ListFilter): Promise<AuditRowRecord[]>;
  rowsWithHeads(tenantId: string, fromSeq: number, toSeq: number, limit: number): Promise<RowWithHead[]>;
  suffixFrom(tenantId: string, seq: number): Promise<AuditRowRecord[]>;
  rowBefore(tenantId: string, seq: number): Promise<AuditRowRecord | undefined>;
  nthNewestSeq(tenantId: string, n: number): Promise<number | undefined>;
  logStats(tenantId: string): Promise<{ n: number; m: number | null; lo: number | null }>;
  headStats(tenantId: string): Promise<{ n: number; m: number | null }>;
}

/**
 * Appending to a tenant's chain when several processes write it: the store serialises writers of
 * one tenant (a lock on the chain head held to commit), so `build` always sees the true newest row.
 */
export interface AsyncChainAppender {
  /**
   * In one transaction holding the tenant's chain lock: read the newest row, reserve `count` ids
   * (increasing), call `build(last, ids)` and insert every row it returns with its checkpoint.
   * @returns what `build` returned, once committed.
   * @throws the commit's or `build`'s error (nothing of the call is stored).
   */
  appendLocked<T extends { rows: ChainedRow[] }>(tenantId: string, count: number, build: (last: AuditRowRecord | undefined, ids: number[]) => T): Promise<T>;
}

/** The audit log on an asynchronous store: reads, chained appends, readiness and close. */
export interface AsyncAuditLogStore extends AsyncAuditLogReads, AsyncChainAppender {}
