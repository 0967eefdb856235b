/**
 * Background sealer (spec "States and transitions": background sealer pass; "Limits":
 * TURN_SEAL_INTERVAL_SECONDS 10, TURN_SEAL_WATERMARK_SECONDS 300, TURN_SEAL_BATCH_LIMIT 100).
 *
 * Every `intervalSeconds` it seals at most `batchLimit` pending turns older than
 * `watermarkSeconds` (seal_reason `watermark_timeout`). Passes never overlap; a pass that filled
 * its batch runs again at once so a backlog drains without waiting a full interval.
 */
import type { TurnService } from './turns.js';
import type { SealPassTracker } from './seal-jobs.js';

/** Sealer settings, in seconds and turns. */
export interface SealerOptions { intervalSeconds: number; watermarkSeconds: number; batchLimit: number; onError?: (err: unknown) => void; /** Issue 19 item 5: records passes as jobs and carries cancel (domain/seal-jobs.ts). */ tracker?: SealPassTracker }

/** Periodic stalled-turn sealer. */
export class Sealer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly turns: TurnService, private readonly opts: SealerOptions) {}

  /** Start the periodic passes (timer unref'd: it never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => { void this.pass(); }, Math.max(0.05, this.opts.intervalSeconds) * 1000);
    this.timer.unref();
  }

  /** Run one pass now (or join the running one). @returns turns sealed by the pass. */
  pass(): Promise<number> {
    this.running ??= (async () => {
      let total = 0;
      const job = this.opts.tracker?.begin();
      let failed: unknown;
      try {
        for (;;) {
          if (job?.cancelled) break;
          const n = await this.turns.sealStalled(this.opts.watermarkSeconds, this.opts.batchLimit);
          total += n;
          job?.progress(total);
          if (n < this.opts.batchLimit || !this.timer) break;
        }
      } catch (err) {
        failed = err;
        this.opts.onError?.(err);
      } finally {
        job?.end(total, failed);
        this.running = null;
      }
      return total;
    })();
    return this.running;
  }

  /** Stop the timer and wait for a running pass. */
  async stop(): Promise<void> {
    if (this.timer) { clearInterval(this.timer); this.timer = null; }
    if (this.running) await this.running;
  }
}
