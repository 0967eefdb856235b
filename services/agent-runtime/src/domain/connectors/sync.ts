/**
 * Connector sync (issue 18 item 3): jobs that bring the knowledge service in line with a source,
 * incrementally, on demand (`enqueue`) and on a schedule (`startSchedule`).
 *
 * A run lists the source's current items and compares them with the stored per-item state:
 * an item not stored is new; a stored one whose size or mtime differ is fetched, and when its
 * sha256 differs too it is changed (ingested again, then the old documents deleted); a stored item
 * no longer listed is deleted (its knowledge documents too). Immutable sources (IMAP messages by
 * UIDVALIDITY/UID) skip every stored item. Each item's state is written as soon as it is done, so a
 * job cut short by a stop (left `queued`/`running` in the store) resumes at the next start and
 * redoes only what is not done. A part that fails to parse is stored `failed` with `last_error`;
 * a knowledge call that fails stores the item without a fingerprint so the next run tries again.
 * Jobs run one at a time; items of a job `CONCURRENCY` at a time.
 *
 * Several runtimes on one database (issue 21): jobs run on the instance that leads (holds the
 * `connector-sync` lease, services/shared/db/leases.ts; on the desktop the only one). Any instance
 * accepts a sync or a cancel (a row in the store); the leader picks queued jobs up at its next
 * tick and reads a job's state between items, so a cancel sent through another instance stops it.
 * A leader that loses its lease stops between items and leaves the job for the next leader.
 */
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { DomainError } from '../../../../shared/kit/domain-error.js';
import type { SyncJobView } from '../../contracts/connectors.js';
import { connectorNotFound } from './service.js';
import type { ConnectorRow, ConnectorSource, ConnectorStore, DocumentRow, JobRow, KnowledgeSink, SourceFactory, SourceItem } from './ports.js';

const newId = ulidFactory();

/** Items of one job handled at the same time. */
export const CONCURRENCY = 4;

/** How often the schedule is looked at, ms. */
export const SCHEDULE_TICK_MS = 30_000;

/** Dependencies of the sync. */
export interface ConnectorSyncDeps {
  store: ConnectorStore;
  open: SourceFactory;
  sink: KnowledgeSink;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  now?: () => Date;
  /** Start as a follower: run no job until `lead()` (several instances on one database; default false: this instance runs jobs). */
  follower?: boolean;
}

/** The answer shape of a job. */
export function jobView(j: JobRow): SyncJobView {
  return {
    job_id: j.id, connector_id: j.connector_id, state: j.state, progress: { total: j.total, done: j.done, failed: j.failed },
    started_at: j.started_at, finished_at: j.finished_at, error: j.error,
  };
}

/** Runs sync jobs; `close()` stops between items (the job resumes at the next start). */
export class ConnectorSync {
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private ticking = false;
  private timer: NodeJS.Timeout | null = null;
  /** Whether this instance runs jobs: from the start unless `follower`, then after `lead` until `follow`. */
  private leading: boolean;
  /** Jobs in this instance's chain (scheduled, not yet finished). */
  private readonly known = new Set<string>();
  /** Jobs an admin cancelled while queued or running (issue 19 item 5). */
  private readonly cancelled = new Set<string>();
  private readonly now: () => Date;

  constructor(private readonly d: ConnectorSyncDeps) {
    this.now = d.now ?? (() => new Date());
    this.leading = !d.follower;
  }

  private iso(): string { return this.now().toISOString(); }

  /**
   * Queue a sync of one connector (or all of the tenant); an unfinished job for the same target is
   * answered instead of a second one. @throws DomainError `connector_not_found`.
   */
  async enqueue(tenantId: string, connectorId: string | null): Promise<JobRow> {
    if (connectorId && !(await this.d.store.get(tenantId, connectorId))) throw connectorNotFound();
    const active = await this.d.store.activeJob(tenantId, connectorId);
    if (active) return active;
    const job: JobRow = { id: newId(), tenant_id: tenantId, connector_id: connectorId, state: 'queued', total: 0, done: 0, failed: 0, started_at: null, finished_at: null, error: null, created_at: this.iso() };
    await this.d.store.putJob(job);
    if (this.leading) this.schedule(job);
    return job;
  }

  /** A job of the tenant. @throws DomainError `sync_job_not_found`. */
  async job(tenantId: string, id: string): Promise<SyncJobView> {
    const j = await this.d.store.job(tenantId, id);
    if (!j) throw new DomainError('sync_job_not_found', 'no such sync job');
    return jobView(j);
  }

  /** The tenant's newest jobs (issue 19 item 5). */
  async list(tenantId: string, limit = 100): Promise<SyncJobView[]> {
    return (await this.d.store.jobs(tenantId, limit)).map(jobView);
  }

  /**
   * Cancel a queued or running job (issue 19 item 5): a queued one ends now, a running one after
   * the items in flight; items already synced stay. @throws DomainError `sync_job_not_found`, `sync_job_finished`.
   */
  async cancel(tenantId: string, id: string): Promise<SyncJobView> {
    const j = await this.d.store.job(tenantId, id);
    if (!j) throw new DomainError('sync_job_not_found', 'no such sync job');
    if (j.state !== 'queued' && j.state !== 'running') throw new DomainError('sync_job_finished', `the job already ended (${j.state})`);
    this.cancelled.add(id);
    const row: JobRow = { ...j, state: 'cancelled', finished_at: this.iso(), error: null };
    await this.d.store.putJob(row);
    return jobView(row);
  }

  private halted(jobId: string): boolean { return this.closed || !this.leading || this.cancelled.has(jobId); }

  /** Read a job's state: a cancel written by another instance joins `cancelled`. */
  private async refreshCancelled(tenantId: string, jobId: string): Promise<void> {
    if ((await this.d.store.job(tenantId, jobId))?.state === 'cancelled') this.cancelled.add(jobId);
  }

  /**
   * Run jobs here: resume what a stop (or a previous leader) left, then look at the schedule and
   * for jobs other instances queued every `tickMs`.
   */
  lead(tickMs = SCHEDULE_TICK_MS): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.leading = true;
    return this.resume().catch((err: unknown) => { this.d.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'connector jobs could not be resumed'); return 0; })
      .then(() => { this.startSchedule(tickMs); });
  }

  /** Stop running jobs here (the lease went to another instance): the job in progress stops between items and stays for the next leader. */
  follow(): void {
    this.leading = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Resume the jobs a stop left unfinished; returns how many. */
  async resume(): Promise<number> {
    const jobs = (await this.d.store.unfinishedJobs()).filter((j) => !this.known.has(j.id));
    for (const j of jobs) this.schedule(j);
    if (jobs.length) this.d.log.info({ jobs: jobs.length }, 'connector sync jobs cut short by a stop resumed');
    return jobs.length;
  }

  /** Look at the schedule now and every `tickMs` (timer unref'd; cleared by `close`). */
  startSchedule(tickMs = SCHEDULE_TICK_MS): void {
    if (this.closed || this.timer) return;
    const tick = (): void => {
      this.tick().catch((err: unknown) => { this.d.log.warn({ err: (err as Error).message }, 'the connector schedule could not be read'); });
    };
    tick();
    this.timer = setInterval(tick, tickMs);
    this.timer.unref();
  }

  /**
   * Queue the scheduled connectors that are due and take up jobs other instances queued (a look
   * still in progress makes this one a no-op).
   */
  async tick(): Promise<void> {
    if (this.closed || this.ticking || !this.leading) return;
    this.ticking = true;
    try {
      for (const j of await this.d.store.unfinishedJobs()) if (!this.known.has(j.id)) this.schedule(j);
      const now = this.now().getTime();
      for (const c of await this.d.store.scheduled()) {
        if (!c.schedule_minutes) continue;
        const last = c.last_sync_at ? Date.parse(c.last_sync_at) : 0;
        if (now - last < c.schedule_minutes * 60_000) continue;
        if (await this.d.store.activeJob(c.tenant_id, c.id)) continue;
        await this.enqueue(c.tenant_id, c.id);
      }
    } finally {
      this.ticking = false;
    }
  }

  /** Stop the schedule and wait for the running item(s) to finish; unfinished jobs stay for `resume`. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.chain;
  }

  /** Wait until every queued job has run (tests, benchmarks). */
  async idle(): Promise<void> { await this.chain; }

  private schedule(job: JobRow): void {
    this.known.add(job.id);
    this.chain = this.chain.then(() => this.run(job.tenant_id, job.id)).catch((err: unknown) => {
      this.d.log.warn({ job_id: job.id, err: (err as Error).message }, 'a connector sync job failed unexpectedly');
    }).finally(() => { this.known.delete(job.id); });
  }

  private async run(tenantId: string, jobId: string): Promise<void> {
    if (this.closed || !this.leading) return;
    let job = await this.d.store.job(tenantId, jobId);
    if (!job || job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled') { this.cancelled.delete(jobId); return; }
    job = { ...job, state: 'running', started_at: job.started_at ?? this.iso() };
    await this.d.store.putJob(job);
    const targets = job.connector_id ? [await this.d.store.get(tenantId, job.connector_id)].filter((c): c is ConnectorRow => !!c) : await this.d.store.list(tenantId);
    if (job.connector_id && !targets.length) {
      await this.d.store.putJob({ ...job, state: 'failed', error: 'the connector was deleted', finished_at: this.iso() });
      return;
    }
    const errors: string[] = [];
    for (const c of targets) {
      if (this.halted(jobId)) break;
      try {
        job = await this.syncConnector(job, c);
      } catch (err) {
        const msg = (err as Error).message;
        errors.push(targets.length > 1 ? `${c.name}: ${msg}` : msg);
        await this.d.store.setStatus(tenantId, c.id, 'error', msg, this.iso());
        job = (await this.d.store.job(tenantId, jobId)) ?? job;
      }
    }
    if (this.closed || !this.leading) return;
    await this.refreshCancelled(tenantId, jobId);
    if (this.cancelled.delete(jobId)) {
      const last = (await this.d.store.job(tenantId, jobId)) ?? job;
      await this.d.store.putJob({ ...job, state: 'cancelled', error: null, finished_at: last.finished_at ?? this.iso() });
      return;
    }
    await this.d.store.putJob({ ...job, state: errors.length ? 'failed' : 'succeeded', error: errors.length ? errors.join('; ') : null, finished_at: this.iso() });
  }

  /** Sync one connector under `job`; returns the job with its progress. @throws Error when the source cannot be opened or listed. */
  private async syncConnector(job: JobRow, c: ConnectorRow): Promise<JobRow> {
    await this.d.store.setStatus(c.tenant_id, c.id, 'syncing', c.last_error, c.last_sync_at);
    const src = await this.d.open(c);
    try {
      const items = await src.list(c.selected);
      const stored = new Map<string, DocumentRow[]>();
      for (const r of await this.d.store.documents(c.tenant_id, c.id)) {
        const list = stored.get(r.item_key);
        if (list) list.push(r); else stored.set(r.item_key, [r]);
      }
      const listed = new Set(items.map((i) => i.key));
      const todo = items.filter((i) => {
        const rows = stored.get(i.key);
        if (!rows) return true;
        if (src.immutable) return rows.some((r) => r.sha256 === null && r.status === 'failed' && r.size === null);
        return rows[0]!.size !== i.size || rows[0]!.mtime_ms !== i.mtime_ms;
      });
      const gone = [...stored.keys()].filter((k) => !listed.has(k));
      const progress = { ...job, total: job.total + todo.length + gone.length };
      await this.d.store.putJob(progress);
      // Progress writes go one after another (two workers' writes never land out of order).
      let writes: Promise<void> = Promise.resolve();
      const step = async (failed: boolean): Promise<void> => {
        progress.done += 1;
        if (failed) progress.failed += 1;
        await this.refreshCancelled(job.tenant_id, job.id);
        if (this.cancelled.has(job.id)) return;
        const snapshot = { ...progress };
        writes = writes.then(async () => { await this.d.store.putJob(snapshot); });
        await writes;
      };
      for (const key of gone) {
        if (this.halted(job.id)) return progress;
        await step(!(await this.removeItem(c, key, stored.get(key) ?? [])));
      }
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < todo.length && !this.halted(job.id)) {
          const item = todo[next++]!;
          await step(!(await this.syncItem(c, src, item, stored.get(item.key) ?? [])));
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, todo.length) }, worker));
      if (!this.closed) await this.d.store.setStatus(c.tenant_id, c.id, 'idle', null, this.iso());
      return progress;
    } finally {
      await src.close().catch(() => {});
    }
  }

  /** Delete an item's documents and state; false when knowledge could not be reached (kept for the next run). */
  private async removeItem(c: ConnectorRow, key: string, rows: DocumentRow[]): Promise<boolean> {
    try {
      for (const r of rows) if (r.document_id) await this.d.sink.remove(c.tenant_id, c.owner, r.document_id);
    } catch (err) {
      this.d.log.warn({ connector_id: c.id, err: (err as Error).message }, 'a deleted source item could not be removed from knowledge');
      return false;
    }
    await this.d.store.deleteItem(c.tenant_id, c.id, key);
    return true;
  }

  /** Ingest a new or changed item; true when every part indexed. */
  private async syncItem(c: ConnectorRow, src: ConnectorSource, item: SourceItem, old: DocumentRow[]): Promise<boolean> {
    const now = this.iso();
    const base = { tenant_id: c.tenant_id, connector_id: c.id, item_key: item.key, synced_at: now };
    let fetched;
    try {
      fetched = await src.fetch(item);
    } catch (err) {
      await this.d.store.putDocument({ ...base, path_or_uid: item.key, document_id: old[0]?.document_id ?? null, status: 'failed', last_error: `read failed: ${(err as Error).message}`, size: null, mtime_ms: null, sha256: null });
      return false;
    }
    if (!fetched) return this.removeItem(c, item.key, old);
    if (old.length && fetched.sha256 && old.every((r) => r.sha256 === fetched.sha256)) {
      for (const r of old) await this.d.store.putDocument({ ...r, size: item.size, mtime_ms: item.mtime_ms });
      return true;
    }
    const v = { visibility_mode: c.visibility_mode, audience_tags: c.audience_tags, user_grants: c.user_grants };
    const rows: DocumentRow[] = [];
    let ok = true;
    for (const part of fetched.parts) {
      try {
        const out = await this.d.sink.ingest(c.tenant_id, c.owner, part, v);
        rows.push({ ...base, path_or_uid: part.path_or_uid, document_id: out.document_id, status: out.error ? 'failed' : 'indexed', last_error: out.error, size: item.size, mtime_ms: item.mtime_ms, sha256: fetched.sha256 });
        if (out.error) ok = false;
      } catch (err) {
        // Knowledge unreachable: no fingerprint, so the next run takes the item again.
        rows.push({ ...base, path_or_uid: part.path_or_uid, document_id: null, status: 'failed', last_error: (err as Error).message, size: null, mtime_ms: null, sha256: null });
        ok = false;
      }
    }
    const kept = new Set(rows.map((r) => r.document_id));
    for (const r of old) {
      if (!r.document_id || kept.has(r.document_id)) continue;
      try { await this.d.sink.remove(c.tenant_id, c.owner, r.document_id); } catch (err) {
        this.d.log.warn({ connector_id: c.id, err: (err as Error).message }, 'a replaced connector document could not be deleted from knowledge');
      }
    }
    await this.d.store.deleteItem(c.tenant_id, c.id, item.key);
    for (const r of rows) await this.d.store.putDocument(r);
    return ok;
  }
}
