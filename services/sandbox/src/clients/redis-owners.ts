/**
 * The sandbox session registry on Redis (issue 21 item 3; domain/owners.ts says why it routes).
 * Keys, under `svc:sandbox:<deployment>:`:
 * - `instance:<id>` = this instance's URL, written every 5 s with a 15 s expiry (heartbeat);
 * - `owner:<tenant>/<session>` = the id of the instance holding the session, expiring after the
 *   idle timeout plus a minute and refreshed by every call.
 * `resolve` is one Lua script: claim when the session is free, already ours, or its owner's
 * heartbeat is gone; else answer the owner's URL. Redis errors fail soft to "here" (the desktop
 * behaviour: the call runs on this instance), logged without the URL's password.
 */
import type { Redis } from 'ioredis';
import type { Owner, PeerInstance, SessionOwners } from '../domain/owners.js';
import type { SessionKey } from '../domain/sessions.js';

const RESOLVE = `
local cur = redis.call('GET', KEYS[1])
if (not cur) or cur == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, ARGV[1], ''}
end
local url = redis.call('GET', ARGV[3] .. cur)
if not url then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, ARGV[1], ''}
end
return {0, cur, url}`;

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Where the registry reports Redis trouble (a pino logger fits). */
export interface OwnersLog { warn(obj: object, msg: string): void }

/** Options of `RedisOwners`. */
export interface RedisOwnersOptions {
  redis: Redis;
  /** The deployment id (a hash of the shared data directory). */
  deployment: string;
  /** This instance's id (its containers carry it as a label). */
  instance: string;
  /** This instance's URL, once it listens (null before). */
  url: () => string | null;
  /** How long an idle session lives, s (the owner key outlives it by a minute). */
  idleTimeoutSeconds: number;
  log: OwnersLog;
  /** Heartbeat period, ms (default 5000; the key expires after three). */
  heartbeatMs?: number;
}

/** `SessionOwners` over Redis. */
export class RedisOwners implements SessionOwners {
  private readonly prefix: string;
  private readonly held = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private beaten: Promise<void> | null = null;

  constructor(private readonly o: RedisOwnersOptions) {
    this.prefix = `svc:sandbox:${o.deployment}:`;
  }

  private ownerKey(k: SessionKey): string { return `${this.prefix}owner:${k.tenantId}/${k.sessionId}`; }

  /** Write the heartbeat now and every `heartbeatMs` (idempotent). */
  start(): Promise<void> {
    if (!this.timer) {
      const every = this.o.heartbeatMs ?? 5000;
      this.timer = setInterval(() => { void this.beat(); }, every);
      this.timer.unref();
    }
    return this.beat();
  }

  private async beat(): Promise<void> {
    const url = this.o.url();
    if (!url) return;
    try {
      await this.o.redis.set(`${this.prefix}instance:${this.o.instance}`, url, 'PX', (this.o.heartbeatMs ?? 5000) * 3);
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'sandbox registry heartbeat failed (other instances may take this one\'s sessions over)');
    }
  }

  async resolve(key: SessionKey): Promise<Owner> {
    this.beaten ??= this.start();
    await this.beaten;
    const k = this.ownerKey(key);
    try {
      const ttl = (this.o.idleTimeoutSeconds + 60) * 1000;
      const r = await this.o.redis.eval(RESOLVE, 1, k, this.o.instance, String(ttl), `${this.prefix}instance:`) as [number, string, string];
      if (r[0] === 1) { this.held.add(k); return { here: true }; }
      this.held.delete(k);
      return { here: false, instance: r[1], url: r[2] };
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'sandbox registry unreachable: the call runs on this instance');
      return { here: true };
    }
  }

  async release(key: SessionKey): Promise<void> {
    const k = this.ownerKey(key);
    this.held.delete(k);
    try { await this.o.redis.eval(RELEASE, 1, k, this.o.instance); } catch { /* expires on its own */ }
  }

  async isLive(instance: string): Promise<boolean> {
    if (instance === this.o.instance) return true;
    try { return (await this.o.redis.exists(`${this.prefix}instance:${instance}`)) === 1; } catch { return true; }
  }

  async peers(): Promise<PeerInstance[]> {
    const out: PeerInstance[] = [];
    try {
      let cursor = '0';
      const keys: string[] = [];
      do {
        const [next, batch] = await this.o.redis.scan(cursor, 'MATCH', `${this.prefix}instance:*`, 'COUNT', 100);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      const others = keys.filter((k) => k !== `${this.prefix}instance:${this.o.instance}`);
      const urls = others.length ? await this.o.redis.mget(...others) : [];
      others.forEach((k, i) => { const url = urls[i]; if (url) out.push({ instance: k.slice(`${this.prefix}instance:`.length), url }); });
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'sandbox registry unreachable: the session list shows this instance only');
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      for (const k of this.held) await this.o.redis.eval(RELEASE, 1, k, this.o.instance);
      await this.o.redis.del(`${this.prefix}instance:${this.o.instance}`);
    } catch { /* keys expire */ }
    this.held.clear();
    this.o.redis.disconnect();
  }
}

/**
 * Open the Redis registry for `redisUrl`.
 * @returns the registry; its first heartbeat is written on the first call or `start()`.
 */
export async function openRedisOwners(redisUrl: string, o: Omit<RedisOwnersOptions, 'redis'>): Promise<RedisOwners> {
  const { Redis: RedisCtor } = await import('ioredis');
  const redis = new RedisCtor(redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  redis.on('error', (err: Error) => o.log.warn({ err: err.message }, 'sandbox registry redis error'));
  return new RedisOwners({ ...o, redis });
}
