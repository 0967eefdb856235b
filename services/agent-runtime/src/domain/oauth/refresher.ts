/**
 * The token refresher (issue 18 item 1): the runtime's background work that renews OAuth access
 * tokens before they expire. It sleeps until the soonest connection is due (its expiry minus
 * min(60 s, a third of its lifetime)), at most `maxSleepMs`, refreshes what is due and sleeps
 * again; `poke()` (a token was stored or a connection removed) reschedules at once. `stop()` clears
 * the timer, so a closed runtime leaves none behind.
 */

/** What the refresher drives (`OAuthFlows.refreshDue`). */
export interface RefreshTarget {
  /** Refresh what is due; @returns the next due time (ms epoch) or null. */
  refreshDue(): Promise<number | null>;
}

/** The longest sleep between two looks, ms. */
export const REFRESHER_MAX_SLEEP_MS = 60_000;
/** The shortest sleep, ms (a refresh that keeps failing cannot spin). */
export const REFRESHER_MIN_SLEEP_MS = 250;

/** The background refresher. */
export class TokenRefresher {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(private readonly target: RefreshTarget, private readonly log: { warn(obj: object, msg: string): void }, private readonly maxSleepMs = REFRESHER_MAX_SLEEP_MS) {}

  /** Start (first look now). */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Look again now (a connection changed). */
  poke(): void {
    if (this.stopped) return;
    if (this.running) { this.again = true; return; }
    this.schedule(0);
  }

  /** Stop; no timer is left. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; void this.tick(); }, ms);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    this.running = true;
    let next: number | null = null;
    try {
      next = await this.target.refreshDue();
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'oauth token refresh round failed');
    } finally {
      this.running = false;
    }
    if (this.again) { this.again = false; this.schedule(0); return; }
    const wait = next === null ? this.maxSleepMs : Math.min(this.maxSleepMs, Math.max(REFRESHER_MIN_SLEEP_MS, next - Date.now()));
    this.schedule(wait);
  }
}
