/**
 * In-process wake-ups for the device channel (issue 14 item 5): a new login challenge of a user
 * wakes that user's long polls and event streams at once. One auth process holds every challenge
 * in the desktop default; a scaled-out deployment would put a shared pub/sub (Redis) behind the same
 * two calls, and the channel re-reads the store on a short timer anyway (docs/mobile-2fa.md).
 */

/** Subscribe to and publish "something changed for user X". */
export class ChallengeBus {
  private readonly subs = new Map<string, Set<() => void>>();

  /** Call `fn` on each publish for `userId`. @returns the unsubscribe function. */
  subscribe(userId: string, fn: () => void): () => void {
    let set = this.subs.get(userId);
    if (!set) this.subs.set(userId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0 && this.subs.get(userId) === set) this.subs.delete(userId);
    };
  }

  /** Wake every subscriber of `userId` (a throwing subscriber does not stop the others). */
  publish(userId: string): void {
    for (const fn of [...(this.subs.get(userId) ?? [])]) {
      try { fn(); } catch { /* a subscriber's failure is its own */ }
    }
  }

  /** Subscribers now (tests, metrics). */
  get size(): number {
    let n = 0;
    for (const s of this.subs.values()) n += s.size;
    return n;
  }
}
