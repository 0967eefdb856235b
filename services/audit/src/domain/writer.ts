/**
 * The audit writer as the domain sees it (issue 21 item 1): the SQLite `ChainWriter` (one process,
 * group commit in one better-sqlite3 transaction) and the PostgreSQL `AsyncChainWriter` (several
 * processes, one transaction per tenant holding the tenant's chain lock) both implement it.
 *
 * A job (`run`) is a `Steps` body (maybe-async.ts): every store call inside it is
 * `yield* aw(...)`, so over SQLite it runs synchronously inside the group transaction and over
 * PostgreSQL it awaits each call inside the locked transaction. Its appends, its other writes (an
 * envelope, its signature, the turn's state, a checkpoint, the egress cursor) commit together or,
 * when the job throws, not at all (its savepoint rolls back; the rest of its group commits).
 */
import type { AppendInput } from './chain-row.js';
import type { AppendedRow } from './chain-writer.js';
import type { KeyRing } from './keys.js';
import type { Awaitable, Steps } from './maybe-async.js';

/** Handle given to a job: append rows inside the running transaction, resolve the key ring. */
export interface JobTx {
  /** Append one row of the job's tenant; `keys` pins the ring (sealing signs envelope and anchor with one key). */
  append(input: AppendInput, keys?: KeyRing): Awaitable<AppendedRow>;
  /** The key ring in force now. */
  keys(): KeyRing;
}

/** A writer job: a `Steps` body over the job handle. */
export type WriterJob<T> = (tx: JobTx) => Steps<T>;

/** The single writer of the audit store (every write of the service goes through it). */
export interface AuditWriter {
  /** Append one row. @returns the row with its chain hash once committed. */
  append(input: AppendInput): Promise<AppendedRow>;
  /**
   * Run `job` in the next group transaction, under `tenantId`'s chain lock where the engine has one
   * (the job appends only rows of `tenantId`). @returns its result once committed; rejects with its
   * error (its writes rolled back) or the commit's error.
   */
  run<T>(tenantId: string, job: WriterJob<T>): Promise<T>;
  /** Commit what is queued and refuse further work. */
  close(): void | Promise<void>;
}
