/**
 * The audit chain's writer on an asynchronous store that several processes share (PostgreSQL,
 * issue 21 item 1), with group commit like the SQLite `ChainWriter`: appends queued within one
 * event-loop turn (and while the previous commit is in flight) go to the store as one transaction
 * per tenant, holding that tenant's chain lock, so the chain stays gap-free and strictly ordered
 * whichever process writes. Rows are built by chain-row.ts, the same code as the SQLite writer's.
 * Every promise settles after its transaction commits (an acknowledged row is a committed row).
 *
 * Only appends run here; event ingestion and sealing stay on the SQLite writer until their stores
 * have asynchronous implementations (see async-ports.ts).
 */
import type { AsyncChainAppender } from './async-ports.js';
import { buildChainRow, tipAfter, type AppendInput, type ChainedRow } from './chain-row.js';
import type { AppendedRow } from './chain-writer.js';
import type { KeyProvider } from './keys.js';

interface Job { input: AppendInput; resolve: (r: AppendedRow) => void; reject: (e: unknown) => void }

/** Most appends per transaction; a larger burst continues in the next commit. */
export const MAX_APPENDS_PER_COMMIT = 1000;

/** Group-committing writer of the audit chain over an `AsyncChainAppender`. */
export class AsyncChainWriter {
  private queue: Job[] = [];
  private running: Promise<void> | null = null;
  private scheduled = false;
  private closed = false;

  /**
   * @param store the chain appender (locks the tenant's chain head per transaction).
   * @param keyProvider the key ring in force, resolved per commit.
   * @param now clock of row timestamps (test seam).
   */
  constructor(private readonly store: AsyncChainAppender, private readonly keyProvider: KeyProvider, private readonly now: () => Date = () => new Date()) {}

  /** Appends waiting for the next commit. */
  get pending(): number { return this.queue.length; }

  /**
   * Append one row.
   * @returns the row with its chain hash once committed; rejects with the input's own error
   *   (e.g. a detail that cannot be canonicalised: nothing of it is stored) or the commit's error.
   */
  append(input: AppendInput): Promise<AppendedRow> {
    if (this.closed) return Promise.reject(new Error('audit writer is closed'));
    return new Promise<AppendedRow>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.drain().finally(() => { this.running = null; if (this.queue.length) this.schedule(); });
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_APPENDS_PER_COMMIT);
      const byTenant = new Map<string, Job[]>();
      for (const j of batch) {
        const l = byTenant.get(j.input.tenant_id);
        if (l) l.push(j); else byTenant.set(j.input.tenant_id, [j]);
      }
      await Promise.all([...byTenant].map(([tenant, jobs]) => this.commit(tenant, jobs)));
    }
  }

  private async commit(tenantId: string, jobs: Job[]): Promise<void> {
    const keys = this.keyProvider();
    const failed = new Map<Job, unknown>();
    let built: Array<{ job: Job; r: ChainedRow }> = [];
    try {
      await this.store.appendLocked(tenantId, jobs.length, (last, ids) => {
        // A retried build starts over: the lock holder's view of the head is the only truth.
        failed.clear();
        built = [];
        let tip = tipAfter(tenantId, last);
        let next = 0;
        for (const job of jobs) {
          try {
            const r = buildChainRow(job.input, tip, ids[next]!, keys, this.now().toISOString());
            next++;
            tip = { seq: r.row.seq, chainHash: r.chainHash };
            built.push({ job, r });
          } catch (err) {
            failed.set(job, err);
          }
        }
        return { rows: built.map((b) => b.r) };
      });
    } catch (err) {
      for (const j of jobs) j.reject(err);
      return;
    }
    for (const [job, err] of failed) job.reject(err);
    for (const { job, r } of built) job.resolve({ ...r.row, chain_hash: r.chainHash });
  }

  /** Commit what is queued and refuse further appends. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running || this.scheduled || this.queue.length) {
      if (this.running) await this.running;
      else await new Promise<void>((r) => setImmediate(r));
    }
  }
}
