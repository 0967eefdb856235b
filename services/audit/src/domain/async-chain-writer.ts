/**
 * The audit chain's writer on an asynchronous store that several processes share (PostgreSQL,
 * issue 21 item 1), with group commit like the SQLite `ChainWriter`: appends queued within one
 * event-loop turn (and while the previous commit is in flight) go to the store as one transaction
 * per tenant, holding that tenant's chain lock, so the chain stays gap-free and strictly ordered
 * whichever process writes. Rows are built by chain-row.ts, the same code as the SQLite writer's.
 * Every promise settles after its transaction commits (an acknowledged row is a committed row).
 *
 * Jobs (`run`: event ingestion, sealing, checkpoints, the egress cursor) run inside the same
 * locked transaction as the appends queued beside them for their tenant, each in its own savepoint,
 * so an anchor row, its envelope and the turn's state commit together under the tenant's chain lock
 * (docs/scale-out.md). A tenant group without jobs takes the one-statement `appendLocked` path.
 */
import type { AsyncChainAppender, AsyncChainLocker, LockedChain } from './async-ports.js';
import { buildChainRow, tipAfter, type AppendInput, type ChainedRow } from './chain-row.js';
import type { AppendedRow } from './chain-writer.js';
import type { KeyProvider, KeyRing } from './keys.js';
import { drive } from './maybe-async.js';
import type { AuditWriter, JobTx, WriterJob } from './writer.js';

interface Job { input: AppendInput; resolve: (r: AppendedRow) => void; reject: (e: unknown) => void }
interface TaskJob { tenantId: string; job: WriterJob<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void }
type Entry = ({ kind: 'append' } & Job) | ({ kind: 'job' } & TaskJob);
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Most appends per transaction; a larger burst continues in the next commit. */
export const MAX_APPENDS_PER_COMMIT = 1000;

/** Group-committing writer of the audit chain over an `AsyncChainAppender` and `AsyncChainLocker`. */
export class AsyncChainWriter implements AuditWriter {
  private queue: Entry[] = [];
  private running: Promise<void> | null = null;
  private scheduled = false;
  private closed = false;

  /**
   * @param store the chain appender (locks the tenant's chain head per transaction).
   * @param keyProvider the key ring in force, resolved per commit.
   * @param now clock of row timestamps (test seam).
   */
  constructor(private readonly store: AsyncChainAppender & AsyncChainLocker, private readonly keyProvider: KeyProvider, private readonly now: () => Date = () => new Date()) {}

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
      this.queue.push({ kind: 'append', input, resolve, reject });
      this.schedule();
    });
  }

  /** `AuditWriter.run`: the job runs in its tenant's next locked transaction, in its own savepoint. */
  run<T>(tenantId: string, job: WriterJob<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('audit writer is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ kind: 'job', tenantId, job: job as WriterJob<unknown>, resolve: resolve as (v: unknown) => void, reject });
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
      const byTenant = new Map<string, Entry[]>();
      for (const j of batch) {
        const t = j.kind === 'append' ? j.input.tenant_id : j.tenantId;
        const l = byTenant.get(t);
        if (l) l.push(j); else byTenant.set(t, [j]);
      }
      await Promise.all([...byTenant].map(([tenant, entries]) => (entries.every((e) => e.kind === 'append')
        ? this.commit(tenant, entries as Job[])
        : this.commitWithJobs(tenant, entries))));
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

  /** One locked transaction for a tenant's appends and jobs, in queue order (see the module header). */
  private async commitWithJobs(tenantId: string, entries: Entry[]): Promise<void> {
    const outcomes = new Map<Entry, Outcome>();
    try {
      await this.store.withChainLock(tenantId, async (c) => {
        outcomes.clear();
        const state = { tip: tipAfter(tenantId, c.last) };
        for (let i = 0; i < entries.length;) {
          const e = entries[i]!;
          if (e.kind === 'append') {
            let j = i;
            while (j < entries.length && entries[j]!.kind === 'append') j++;
            await this.appendRun(c, state, entries.slice(i, j) as Array<{ kind: 'append' } & Job>, outcomes);
            i = j;
            continue;
          }
          const before = state.tip;
          try {
            const value = await c.savepoint(async () => await drive(e.job(this.jobTx(c, state, tenantId))));
            outcomes.set(e, { ok: true, value });
          } catch (err) {
            state.tip = before;
            outcomes.set(e, { ok: false, error: err });
          }
          i++;
        }
      });
    } catch (err) {
      for (const e of entries) e.reject(err);
      return;
    }
    for (const e of entries) {
      const o = outcomes.get(e)!;
      if (o.ok) e.resolve(o.value as AppendedRow); else e.reject(o.error);
    }
  }

  /** Consecutive plain appends inside a locked transaction: one id reservation, one insert. */
  private async appendRun(c: LockedChain, state: { tip: { seq: number; chainHash: string } }, run: Job[], outcomes: Map<Entry, Outcome>): Promise<void> {
    const keys = this.keyProvider();
    const ids = await c.ids(run.length);
    const rows: ChainedRow[] = [];
    let next = 0;
    for (const a of run) {
      try {
        const r = buildChainRow(a.input, state.tip, ids[next]!, keys, this.now().toISOString());
        next++;
        state.tip = { seq: r.row.seq, chainHash: r.chainHash };
        rows.push(r);
        outcomes.set(a as Entry, { ok: true, value: { ...r.row, chain_hash: r.chainHash } });
      } catch (err) {
        outcomes.set(a as Entry, { ok: false, error: err });
      }
    }
    if (rows.length) await c.insert(rows);
  }

  /** The handle of a job: appends go straight into the locked transaction, after the tip. */
  private jobTx(c: LockedChain, state: { tip: { seq: number; chainHash: string } }, tenantId: string): JobTx {
    return {
      keys: () => this.keyProvider(),
      append: async (input: AppendInput, ring?: KeyRing): Promise<AppendedRow> => {
        if (input.tenant_id !== tenantId) throw new Error('a writer job appends rows of its own tenant only');
        const keys = ring ?? this.keyProvider();
        const [id] = await c.ids(1);
        const r = buildChainRow(input, state.tip, id!, keys, this.now().toISOString());
        await c.insert([r]);
        state.tip = { seq: r.row.seq, chainHash: r.chainHash };
        return { ...r.row, chain_hash: r.chainHash };
      },
    };
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
