/**
 * Parked logins in this process (issue 14 item 3; spec "Mobile-push second factor" step 3: "in-process
 * otherwise"): a Map with a deadline per entry, swept every `SWEEP_INTERVAL_MS`. One gateway only:
 * with several gateways behind a balancer, set `REDIS_URL` (store/challenge-parking-redis.ts).
 */
import type { ChallengeParking, ParkedLogin } from '../domain/ports.js';

/** How often expired entries are dropped, ms. */
export const SWEEP_INTERVAL_MS = 30_000;

/** `ChallengeParking` over a Map. */
export class MemoryChallengeParking implements ChallengeParking {
  private readonly entries = new Map<string, { login: ParkedLogin; deadline: number }>();

  /** @param clock current time, Unix ms (test seam). */
  constructor(private readonly clock: () => number = Date.now) {}

  /** Park `login` until now + `ttlMs`. A second park under the same id replaces the first. */
  async park(challengeId: string, login: ParkedLogin, ttlMs: number): Promise<void> {
    this.entries.set(challengeId, { login, deadline: this.clock() + Math.max(0, ttlMs) });
  }

  /** Remove and return the entry (the event loop makes get-and-delete atomic); null when absent or past its deadline. */
  async take(challengeId: string): Promise<ParkedLogin | null> {
    const e = this.entries.get(challengeId);
    if (!e) return null;
    this.entries.delete(challengeId);
    return e.deadline > this.clock() ? e.login : null;
  }

  /** Drop every entry past its deadline. @returns how many were dropped. */
  sweep(): number {
    const now = this.clock();
    let dropped = 0;
    for (const [id, e] of this.entries) {
      if (e.deadline <= now) { this.entries.delete(id); dropped++; }
    }
    return dropped;
  }

  /** Entries held (expired ones included until the next sweep). */
  get size(): number {
    return this.entries.size;
  }

  /** Start the periodic sweep (background work). @returns how to stop it. */
  startSweep(intervalMs = SWEEP_INTERVAL_MS): () => void {
    const timer = setInterval(() => { this.sweep(); }, intervalMs);
    timer.unref();
    return () => { clearInterval(timer); this.entries.clear(); };
  }
}
