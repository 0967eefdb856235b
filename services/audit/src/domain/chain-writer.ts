/**
 * The single writer of the audit chain, with group commit (spec "Audit log row"; DESIGN.md
 * "Receipt format v1").
 *
 * Every write of the service (appends, event ingestion, sealing) is a synchronous job submitted
 * here. Jobs that arrive within the same event-loop turn run in one SQLite transaction (each in
 * its own savepoint, so one failing job does not sink the others), and every job's promise settles
 * only after that transaction commits: an acknowledged row is a committed row (WAL,
 * synchronous=NORMAL survives a process kill).
 *
 * Appending a row, inside a job: seq = head.seq + 1, previous_hash = head.chain_hash (genesis for
 * the first row), signed_payload = JCS(signed fields), signature = HMAC(active key),
 * chain_hash = H(JCS({id, previous_hash, signature})); the audit row and its chain-head checkpoint
 * are inserted together. The active key is resolved at each append.
 */
import type { AuditLogStore, AuditRowRecord, WriteTransactions } from './ports.js';
import { genesisHash } from '../verifier/format.js';
import { buildChainRow, tipAfter, type AppendInput } from './chain-row.js';
import { nodeHashProvider, type KeyProvider, type KeyRing } from './keys.js';
import { driveSync } from './maybe-async.js';
import type { AuditWriter, WriterJob } from './writer.js';

export type { AppendInput } from './chain-row.js';

/** A row as appended: the stored record plus its chain_hash. */
export interface AppendedRow extends AuditRowRecord {
  chain_hash: string;
}

/** Handle given to a job: append rows inside the running transaction. */
export interface WriterTx {
  /** Append one row; `keys` pins the ring (sealing signs envelope and anchor with one key). */
  append(input: AppendInput, keys?: KeyRing): AppendedRow;
  /** Resolve the key ring in force now. */
  keys(): KeyRing;
}

interface Job {
  fn: (tx: WriterTx) => unknown;
  /** Run in its own savepoint. False only for single appends, whose failures come before any write. */
  savepoint: boolean;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  ok?: boolean;
  value?: unknown;
  error?: unknown;
}

interface Head { seq: number; chainHash: string }

/** Most jobs per transaction; a larger burst continues in the next turn. */
export const MAX_JOBS_PER_COMMIT = 1000;

/** Group-committing single writer of the audit store. */
export class ChainWriter implements AuditWriter {
  private readonly heads = new Map<string, Head>();
  private nextId: number;
  private queue: Job[] = [];
  private scheduled = false;
  private closed = false;
  private undo: Array<() => void> = [];
  private readonly genesis = new Map<string, string>();
  private readonly tx: WriterTx;
  private readonly db: WriteTransactions;
  private readonly log: AuditLogStore;

  /**
   * @param ports the writer's transactions and the audit log tables.
   * @param keyProvider the key ring in force, resolved at each append.
   * @param now clock of row timestamps (test seam).
   */
  constructor(ports: { tx: WriteTransactions; log: AuditLogStore }, private readonly keyProvider: KeyProvider, private readonly now: () => Date = () => new Date()) {
    this.db = ports.tx;
    this.log = ports.log;
    this.nextId = this.log.maxId() + 1;
    this.tx = { append: (input, keys) => this.appendNow(input, keys), keys: () => this.keyProvider() };
  }

  /** Jobs waiting for the next commit. */
  get pending(): number { return this.queue.length; }

  /**
   * Queue `fn` to run inside the next group transaction.
   * @returns `fn`'s result once committed; rejects with `fn`'s error (its savepoint rolled back)
   *   or with the commit error (the whole group rolled back).
   */
  submit<T>(fn: (tx: WriterTx) => T): Promise<T> {
    return this.enqueue(fn, true);
  }

  /**
   * `AuditWriter.run` on SQLite: the job runs synchronously inside the next group transaction, in
   * its own savepoint (exactly as a `submit` of the same body). `tenantId` is not needed: the
   * single writer already orders every job.
   */
  run<T>(tenantId: string, job: WriterJob<T>): Promise<T> {
    void tenantId;
    return this.enqueue((tx) => driveSync(job(tx)), true);
  }

  private enqueue<T>(fn: (tx: WriterTx) => T, savepoint: boolean): Promise<T> {
    if (this.closed) return Promise.reject(new Error('audit writer is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, savepoint, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Append one row as its own job (the hot path: no savepoint, since everything that can fail on
   * bad input runs before the row is written; a failure after a write aborts the whole group).
   */
  append(input: AppendInput): Promise<AppendedRow> {
    return this.enqueue((tx) => tx.append(input), false);
  }

  /** Run everything queued now (also used by close). */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_JOBS_PER_COMMIT);
      this.runBatch(batch);
      if (this.queue.length && !this.closed) {
        // Let I/O in between large bursts; the rest runs next turn.
        this.scheduled = true;
        setImmediate(() => this.flush());
        return;
      }
    }
  }

  private runBatch(batch: Job[]): void {
    try {
      this.db.transaction(() => {
        for (const job of batch) {
          this.undo = [];
          if (job.savepoint) this.db.savepoint();
          try {
            job.value = job.fn(this.tx);
            if (job.savepoint) this.db.release();
            job.ok = true;
          } catch (err) {
            // A job without savepoint that already wrote cannot be undone alone: abort the group.
            if (!job.savepoint && this.undo.length > 0) throw err;
            if (job.savepoint) this.db.rollbackToSavepoint();
            for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!();
            job.ok = false;
            job.error = err;
          }
        }
      });
    } catch (err) {
      // The commit itself failed: nothing of the batch is stored; resync the heads from disk.
      this.resync();
      for (const job of batch) job.reject(err);
      return;
    }
    for (const job of batch) {
      if (job.ok) job.resolve(job.value); else job.reject(job.error);
    }
  }

  private resync(): void {
    this.heads.clear();
    this.nextId = this.log.maxId() + 1;
  }

  private head(tenantId: string): Head {
    let h = this.heads.get(tenantId);
    if (!h) {
      const last = this.log.lastRow(tenantId);
      h = last ? tipAfter(tenantId, last) : { seq: 0, chainHash: this.genesisOf(tenantId) };
      this.heads.set(tenantId, h);
    }
    return h;
  }

  private genesisOf(tenantId: string): string {
    let g = this.genesis.get(tenantId);
    if (!g) { g = genesisHash(tenantId, nodeHashProvider); this.genesis.set(tenantId, g); }
    return g;
  }

  private appendNow(input: AppendInput, ring?: KeyRing): AppendedRow {
    const keys = ring ?? this.keyProvider();
    const head = this.head(input.tenant_id);
    const prevHead = { ...head };
    const prevId = this.nextId;
    const id = this.nextId;
    const { row, head: checkpoint, chainHash: ch } = buildChainRow(input, head, id, keys, this.now().toISOString());
    // Registered before the write: a failing insert marks the job as having written (see runBatch).
    this.undo.push(() => { head.seq = prevHead.seq; head.chainHash = prevHead.chainHash; this.nextId = prevId; });
    this.log.insertRowAndHead(row, checkpoint);
    this.nextId = id + 1;
    head.seq = row.seq;
    head.chainHash = ch;
    return { ...row, chain_hash: ch };
  }

  /** Commit what is queued and refuse further jobs. */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
