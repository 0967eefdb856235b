/**
 * Consolidation passes as jobs (issue 19 item 5): every pass (the service's timer over every scope,
 * or `POST /v1/memory/consolidate` over one) is recorded with its progress in scopes, and a running
 * pass can be cancelled: it stops before its next cluster (what was merged stays merged; each
 * cluster's decision is one transaction). Listed by `GET /v1/memory/consolidations`, cancelled by
 * `POST /v1/memory/consolidations/{id}/cancel` (admins), aggregated by the gateway's `/v1/admin/jobs`.
 */
import type { ConsolidationReport } from '../contracts.js';

/** One consolidation pass. */
export interface ConsolidationJob {
  id: string;
  /** `all`: every scope (the timer); `scope`: one scope (on request). */
  target: 'all' | 'scope';
  actor: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  scopes_done: number;
  scopes_total: number;
  merged: number | null;
  expired_removed: number | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** What a running pass sees. */
export interface ConsolidationHandle {
  readonly cancelled: boolean;
  progress(done: number, total: number): void;
  end(report: ConsolidationReport | null, err?: unknown): void;
}

/** Records consolidation passes (the newest `keep`). */
export class ConsolidationJobs {
  private seq = 0;
  private readonly jobs: ConsolidationJob[] = [];
  private readonly cancels = new Map<string, () => void>();

  constructor(private readonly now: () => Date = () => new Date(), private readonly keep = 50) {}

  /** A pass starts. */
  begin(actor: string, target: ConsolidationJob['target']): ConsolidationHandle {
    const job: ConsolidationJob = {
      id: `cons_${this.now().getTime().toString(36)}_${(++this.seq).toString(36)}`, target, actor, state: 'running',
      scopes_done: 0, scopes_total: 0, merged: null, expired_removed: null, error: null, started_at: this.now().toISOString(), finished_at: null,
    };
    let cancelled = false;
    this.jobs.unshift(job);
    this.jobs.splice(this.keep);
    this.cancels.set(job.id, () => { cancelled = true; });
    return {
      get cancelled() { return cancelled; },
      progress: (done, total) => { job.scopes_done = done; job.scopes_total = total; },
      end: (report, err) => {
        this.cancels.delete(job.id);
        job.finished_at = this.now().toISOString();
        job.state = err !== undefined ? 'failed' : cancelled ? 'cancelled' : 'done';
        job.error = err !== undefined ? (err instanceof Error ? err.message : String(err)) : null;
        if (report) { job.merged = report.merged; job.expired_removed = report.expired_removed; }
      },
    };
  }

  /** Passes, newest first. */
  list(): ConsolidationJob[] { return this.jobs.map((j) => ({ ...j })); }

  /**
   * Cancel running pass `id`.
   * @returns the pass, `'finished'` when it has ended, or null when unknown.
   */
  cancel(id: string): ConsolidationJob | 'finished' | null {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) return null;
    const c = this.cancels.get(id);
    if (!c) return 'finished';
    c();
    return { ...job };
  }
}
