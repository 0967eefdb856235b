/**
 * In-process fan-out of notification events to the live streams of a (tenant, user)
 * (`GET /v1/notifications/stream`; issue 13 item 1). A user keeps at most `maxPerUser` streams:
 * opening one more closes the oldest (a tab that reconnects before its old stream noticed the
 * drop must not be refused).
 */
import type { NotificationStreamEventMap } from '../../contracts.js';

/** One live stream. */
export interface StreamListener {
  /** Deliver one event (must not throw). */
  send<K extends keyof NotificationStreamEventMap>(name: K, data: NotificationStreamEventMap[K]): void;
  /** End the stream (superseded by a newer one of the same user). */
  close(): void;
}

/** Default streams per user. */
export const STREAMS_PER_USER = 8;

function keyOf(tenantId: string, userId: string): string {
  return `${tenantId}\u0000${userId}`;
}

/** Listeners by (tenant, user). */
export class NotificationHub {
  private readonly byUser = new Map<string, Set<StreamListener>>();

  constructor(private readonly maxPerUser = STREAMS_PER_USER) {}

  /** Add a listener; the oldest of the user's is closed beyond the cap. @returns remove it. */
  subscribe(tenantId: string, userId: string, l: StreamListener): () => void {
    const k = keyOf(tenantId, userId);
    let set = this.byUser.get(k);
    if (!set) { set = new Set(); this.byUser.set(k, set); }
    set.add(l);
    while (set.size > this.maxPerUser) {
      const oldest = set.values().next().value!;
      set.delete(oldest);
      oldest.close();
    }
    return () => {
      const s = this.byUser.get(k);
      if (!s) return;
      s.delete(l);
      if (s.size === 0) this.byUser.delete(k);
    };
  }

  /** Whether the user has a live stream (publishers skip work otherwise). */
  watched(tenantId: string, userId: string): boolean {
    return this.byUser.has(keyOf(tenantId, userId));
  }

  /** Send an event to every stream of the user. */
  publish<K extends keyof NotificationStreamEventMap>(tenantId: string, userId: string, name: K, data: NotificationStreamEventMap[K]): void {
    const set = this.byUser.get(keyOf(tenantId, userId));
    if (!set) return;
    for (const l of [...set]) l.send(name, data);
  }

  /** Live streams in all. */
  get size(): number {
    let n = 0;
    for (const s of this.byUser.values()) n += s.size;
    return n;
  }

  /** Close every stream (shutdown). */
  closeAll(): void {
    for (const set of [...this.byUser.values()]) for (const l of [...set]) l.close();
    this.byUser.clear();
  }
}
