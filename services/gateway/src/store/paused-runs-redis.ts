/**
 * The paused-run directory on Redis (issue 21; domain/ports.ts `PausedRunDirectory`): key
 * `svc-agui-paused:<approval id>` holds the base URL of the gateway keeping the paused AG-UI run,
 * with the run's own expiry (`PX`), so a directory entry never outlives the run. Approval ids are
 * ULIDs, unique across tenants; the owner check stays with the holding gateway (only who ran a run
 * may resume it). Errors reject: the caller logs them and answers as if the run were unknown.
 */
import type { Redis } from 'ioredis';
import type { PausedRunDirectory } from '../domain/ports.js';

/** Prefix of the directory keys. */
export const PAUSED_RUN_KEY_PREFIX = 'svc-agui-paused:';

/** `PausedRunDirectory` over the gateway's ioredis connection. */
export class RedisPausedRuns implements PausedRunDirectory {
  /**
   * @param redis a connected client (shared with the rate limiter).
   * @param selfUrl this gateway's base URL as its peers reach it (SVC_GATEWAY_INSTANCE_URL or the bind address).
   */
  constructor(private readonly redis: Redis, private readonly selfUrl: () => string | null) {}

  async announce(ids: readonly string[], ttlMs: number): Promise<void> {
    const url = this.selfUrl();
    if (!url || !ids.length) return;
    const tx = this.redis.multi();
    for (const id of ids) tx.set(PAUSED_RUN_KEY_PREFIX + id, url, 'PX', Math.max(1, Math.ceil(ttlMs)));
    await tx.exec();
  }

  async forget(ids: readonly string[]): Promise<void> {
    if (ids.length) await this.redis.del(...ids.map((id) => PAUSED_RUN_KEY_PREFIX + id));
  }

  async holder(ids: readonly string[]): Promise<string | null> {
    if (!ids.length) return null;
    const urls = await this.redis.mget(...ids.map((id) => PAUSED_RUN_KEY_PREFIX + id));
    return urls.find((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u)) ?? null;
  }
}
