/**
 * Conversation runs across the runtimes of a scaled-out deployment (issue 21; REDIS_URL;
 * domain/conversations/service.ts `SharedRuns`): a run in progress holds
 * `svc:conv-run:<conversation id>` = its run id, with an expiry (`ttlMs`, renewed every third of
 * it while the run goes on), so a conversation is busy for every runtime while a run is alive on
 * any, and a runtime that died frees it after at most `ttlMs`. A cancel through a runtime that does
 * not hold the run is published on `svc:conversation-run-cancel`; the holder aborts it.
 */
import type { Redis } from 'ioredis';
import type { SharedBus } from '../../../shared/shared-bus.js';
import type { SharedRuns } from '../domain/conversations/service.js';

/** Key prefix of the run locks. */
export const CONVERSATION_RUN_KEY = 'svc:conv-run:';
/** The cancel channel. */
export const RUN_CANCEL_CHANNEL = 'svc:conversation-run-cancel';

/** Delete or extend the key only while it still names this run. */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/** `SharedRuns` over Redis (keys with an expiry) and the bus (cancels). */
export class RedisSharedRuns implements SharedRuns {
  readonly renewMs: number;

  /** @param ttlMs how long a claim outlives its last renewal (default 30 s). */
  constructor(private readonly redis: Redis, private readonly bus: SharedBus, private readonly ttlMs = 30_000) {
    this.renewMs = Math.max(100, Math.floor(ttlMs / 3));
  }

  async claim(conversationId: string, runId: string): Promise<boolean> {
    return (await this.redis.set(CONVERSATION_RUN_KEY + conversationId, runId, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  async renew(conversationId: string, runId: string): Promise<void> {
    await this.redis.eval(RENEW, 1, CONVERSATION_RUN_KEY + conversationId, runId, String(this.ttlMs));
  }

  async release(conversationId: string, runId: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, CONVERSATION_RUN_KEY + conversationId, runId);
  }

  async busy(conversationId: string): Promise<boolean> {
    return (await this.redis.exists(CONVERSATION_RUN_KEY + conversationId)) === 1;
  }

  async live(): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${CONVERSATION_RUN_KEY}*`, 'COUNT', 500);
      cursor = next;
      for (const k of keys) out.push(k.slice(CONVERSATION_RUN_KEY.length));
    } while (cursor !== '0');
    return out;
  }

  cancel(runId: string): void {
    this.bus.publish(RUN_CANCEL_CHANNEL, runId);
  }

  onCancel(fn: (runId: string) => void): () => void {
    return this.bus.subscribe(RUN_CANCEL_CHANNEL, fn);
  }
}
