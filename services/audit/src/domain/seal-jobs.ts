/**
 * Sealing passes as jobs (issue 19 item 5): `SealPassTracker` records each background sealer pass
 * (domain/sealer.ts calls `begin` / `progress` / `end` through its `tracker` option) so
 * `GET /v1/admin/audit/seal-passes` lists the running pass and recent ones, and
 * `POST /v1/admin/audit/seal-passes/{id}/cancel` stops a running pass between batches (a batch is one
 * transaction: what was sealed stays sealed; the rest waits for the next pass).
 *
 * Passes run every TURN_SEAL_INTERVAL_SECONDS and most seal nothing: only passes that sealed a turn,
 * failed or were cancelled are kept (the newest `keep`), with totals over all passes.
 */

/** One sealing pass. `sealed`: turns sealed so far; `batches`: batches run. */
export interface SealPass {
  id: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  sealed: number;
  batches: number;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** The answer of the list route. */
export interface SealPassList { passes: SealPass[]; totals: { passes: number; sealed: number } }

/** What the sealer sees of its running pass. */
export interface SealPassHandle {
  /** True once an admin cancelled the pass (the sealer stops before its next batch). */
  readonly cancelled: boolean;
  progress(sealed: number): void;
  end(sealed: number, err?: unknown): void;
}

/** Records sealing passes (see the file comment). */
export class SealPassTracker {
  private seq = 0;
  private current: { pass: SealPass; cancelled: boolean } | null = null;
  private readonly recent: SealPass[] = [];
  private readonly totals = { passes: 0, sealed: 0 };

  constructor(private readonly now: () => Date = () => new Date(), private readonly keep = 50) {}

  /** A pass starts. */
  begin(): SealPassHandle {
    const pass: SealPass = { id: `seal_${this.now().getTime().toString(36)}_${(++this.seq).toString(36)}`, state: 'running', sealed: 0, batches: 0, error: null, started_at: this.now().toISOString(), finished_at: null };
    const entry = { pass, cancelled: false };
    this.current = entry;
    return {
      get cancelled() { return entry.cancelled; },
      progress: (sealed) => { pass.sealed = sealed; pass.batches++; },
      end: (sealed, err) => {
        pass.sealed = sealed;
        pass.finished_at = this.now().toISOString();
        pass.state = err !== undefined ? 'failed' : entry.cancelled ? 'cancelled' : 'done';
        pass.error = err !== undefined ? (err instanceof Error ? err.message : String(err)) : null;
        if (this.current === entry) this.current = null;
        this.totals.passes++;
        this.totals.sealed += sealed;
        if (pass.sealed > 0 || pass.state !== 'done') { this.recent.unshift(pass); this.recent.splice(this.keep); }
      },
    };
  }

  /** The running pass (if any) then the kept recent ones, newest first. */
  list(): SealPassList {
    const passes = [...(this.current ? [this.current.pass] : []), ...this.recent].map((p) => ({ ...p }));
    return { passes, totals: { ...this.totals } };
  }

  /** Cancel the running pass `id`. @returns the pass, or null when no running pass has that id. */
  cancel(id: string): SealPass | null {
    if (!this.current || this.current.pass.id !== id) return null;
    this.current.cancelled = true;
    return { ...this.current.pass };
  }

  /** A finished pass `id` (for a clear 409), or null. */
  finished(id: string): SealPass | null { return this.recent.find((p) => p.id === id) ?? null; }
}
