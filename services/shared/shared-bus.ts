/**
 * A small publish/subscribe port shared by the instances of a scaled-out deployment (issue 21 item
 * 3; DESIGN.md "Real parts": key-value, Redis): approval wake-ups and notification streams reach
 * every agent runtime, whichever one the decision or the event happened on.
 *
 * `openSharedBus(redisUrl)` gives a Redis bus (two ioredis connections: one publishes, one
 * subscribes, as Redis requires) when `REDIS_URL` is set, else `null`: the callers keep their
 * in-process path, the desktop default. Delivery is Redis pub/sub: at most once, to the instances
 * connected at that moment; every caller keeps its own fallback for a missed message (approval
 * waits expire, notification lists and counts are read from the store).
 *
 * Messages are strings (callers send JSON); a subscriber that throws does not stop the others.
 */
import type { Redis } from 'ioredis';

/** Publish/subscribe across instances. */
export interface SharedBus {
  /** Send `message` to every subscriber of `channel` on every instance (this one included). */
  publish(channel: string, message: string): void;
  /** Call `fn` for each message on `channel`. @returns unsubscribe. */
  subscribe(channel: string, fn: (message: string) => void): () => void;
  /** Close the connections. */
  close(): Promise<void>;
}

/** Where the bus reports connection trouble (a pino logger fits). */
export interface BusLog { warn(obj: object, msg: string): void }

/** `SharedBus` over Redis pub/sub. */
export class RedisBus implements SharedBus {
  private readonly handlers = new Map<string, Set<(m: string) => void>>();

  constructor(private readonly pub: Redis, private readonly sub: Redis) {
    sub.on('message', (channel: string, message: string) => {
      for (const fn of [...(this.handlers.get(channel) ?? [])]) {
        try { fn(message); } catch { /* a subscriber's failure is its own */ }
      }
    });
  }

  publish(channel: string, message: string): void {
    this.pub.publish(channel, message).catch(() => { /* reported by the connection's error handler */ });
  }

  /** The publishing connection, for plain commands (keys with an expiry: conversation run locks). */
  get commands(): Redis { return this.pub; }

  subscribe(channel: string, fn: (message: string) => void): () => void {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      void this.sub.subscribe(channel).catch(() => { /* reported by the connection's error handler */ });
    }
    set.add(fn);
    return () => {
      const s = this.handlers.get(channel);
      if (!s) return;
      s.delete(fn);
      if (s.size === 0) { this.handlers.delete(channel); void this.sub.unsubscribe(channel).catch(() => {}); }
    };
  }

  /** Resolves once every subscription of this bus is in force on the server (tests, start-up). */
  async ready(): Promise<void> {
    const channels = [...this.handlers.keys()];
    if (channels.length) await this.sub.subscribe(...channels);
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await Promise.allSettled([this.pub.quit(), this.sub.quit()]);
  }
}

/**
 * Open the bus for `redisUrl`, or null without one (in-process default).
 * @param log connection errors (the URL's password never appears: ioredis reports host and port).
 */
export async function openSharedBus(redisUrl: string | null | undefined, log: BusLog): Promise<RedisBus | null> {
  if (!redisUrl) return null;
  // ioredis loads only when configured (as in the gateway): it is a large share of an idle heap.
  const { Redis: RedisCtor } = await import('ioredis');
  const opts = { connectTimeout: 2000, maxRetriesPerRequest: 2, enableOfflineQueue: true };
  const pub = new RedisCtor(redisUrl, opts);
  const sub = new RedisCtor(redisUrl, opts);
  for (const c of [pub, sub]) c.on('error', (err: Error) => log.warn({ err: err.message }, 'redis bus error (cross-instance wake-ups degrade to timers and store reads)'));
  // Subscribe and run commands only on ready connections (a subscription queued while the
  // connection starts up raced its ready check): wait for both, at most 2 s (Redis down: go on).
  await Promise.all([pub, sub].map((c) => new Promise<void>((resolve) => {
    if (c.status === 'ready') { resolve(); return; }
    const t = setTimeout(resolve, 2000);
    t.unref();
    c.once('ready', () => { clearTimeout(t); resolve(); });
  })));
  return new RedisBus(pub, sub);
}
