/**
 * Asynchronous ports of the audit chain (issue 21 item 1), beside the synchronous ones of
 * ports.ts, for stores that answer over the network (PostgreSQL, services/audit/src/store/pg/).
 * The row shapes are the same (`AuditRowRecord`, `ChainHeadRecord`, `RowWithHead`), so the chain
 * check (chain-verify.ts) and the row builder (chain-row.ts) serve both.
 *
 * The domain services take `AsyncPort<...>` of the table groups of ports.ts: the SQLite stores
 * satisfy them as they are (a sync return is a valid `Awaitable`), the PostgreSQL ones answer
 * promises.
 */
import type { AuditRowRecord, AuditLogStore, ListFilter, RowWithHead } from './ports.js';
import type { ChainedRow } from './chain-row.js';

import type { Awaitable } from '../../../shared/db/async-store.js';

export type { Awaitable } from '../../../shared/db/async-store.js';

/** A port whose every method may answer now (SQLite) or later (PostgreSQL), same arguments and meaning. */
export type AsyncPort<P> = { [K in keyof P]: P[K] extends (...a: infer A) => infer R ? (...a: A) => Awaitable<R> : P[K] };

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

/** A tenant's chain inside one transaction that holds its chain lock (`withChainLock`). */
export interface LockedChain {
  /** The tenant's newest row when the lock was taken. */
  readonly last: AuditRowRecord | undefined;
  /** Reserve `count` increasing ids. */
  ids(count: number): Promise<number[]>;
  /** Insert rows and their checkpoints (one statement). */
  insert(rows: ChainedRow[]): Promise<void>;
  /** Run `fn` in a savepoint: its writes roll back alone when it throws. */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
}

/** Writer jobs under the tenant's chain lock (ingestion, sealing, checkpoints: async-chain-writer.ts). */
export interface AsyncChainLocker {
  /**
   * In one transaction holding the tenant's chain lock, run `fn`; every store call it awaits joins
   * that transaction. @returns `fn`'s result once committed. @throws `fn`'s or the commit's error (nothing stored).
   */
  withChainLock<T>(tenantId: string, fn: (chain: LockedChain) => Promise<T>): Promise<T>;
}

/** The audit log on an asynchronous store: reads, chained appends, readiness and close. */
export interface AsyncAuditLogStore extends AsyncAuditLogReads, AsyncChainAppender, AsyncChainLocker {}
