/**
 * Parked logins in Redis (issue 14 item 3; spec "Mobile-push second factor" step 3: "shared store
 * when REDIS_URL is set"), so the browser's `POST /v1/auth/login/2fa` may reach any gateway:
 * `SET svc-2fa:<challenge id> <sealed> PX <ttl> NX` to park, `GETDEL` to take (Redis >= 6.2), which
 * hands the bundle to exactly one caller however many gateways ask at once.
 *
 * A parked bundle holds a refresh token, so it is sealed before it leaves the process: AES-256-GCM
 * under a key derived from `SVC_PRINCIPAL_KEYS` (HMAC-SHA256(key, "svc-2fa-parking/v1"), newest
 * first, so every gateway of the stack shares it and a rotated key still opens what an older one
 * sealed), the challenge id as additional data (a value moved to another key does not open). A Redis
 * dump or a `MONITOR` shows no token. Fails closed: a Redis error is `service_unavailable`.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { ChallengeParking, ParkedLogin } from '../domain/ports.js';

/** Prefix of the parking keys. */
export const PARKING_KEY_PREFIX = 'svc-2fa:';

/** Label the sealing keys are derived with (change it to orphan every parked login at once). */
const SEAL_KEY_LABEL = 'svc-2fa-parking/v1';
const VERSION = 'v1';

/** `ChallengeParking` over a Redis client (the gateway's ioredis connection). */
export class RedisChallengeParking implements ChallengeParking {
  private readonly keys: Buffer[];

  /**
   * @param redis a connected client (shared with the rate limiter).
   * @param principalKeys `SVC_PRINCIPAL_KEYS`, newest first (the sealing keys derive from them).
   */
  constructor(private readonly redis: Redis, principalKeys: readonly string[]) {
    if (principalKeys.length === 0) throw new Error('parking needs at least one principal key');
    this.keys = principalKeys.map((k) => createHmac('sha256', k).update(SEAL_KEY_LABEL).digest());
  }

  /** Park under `svc-2fa:<id>` for `ttlMs` (at least 1 ms). @throws DomainError `service_unavailable`. */
  async park(challengeId: string, login: ParkedLogin, ttlMs: number): Promise<void> {
    const sealed = seal(this.keys[0]!, challengeId, JSON.stringify(login));
    let ok: string | null;
    try {
      ok = await this.redis.set(PARKING_KEY_PREFIX + challengeId, sealed, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
    } catch (err) {
      throw new DomainError('service_unavailable', 'the login could not be parked for its second factor; try again', { cause: err });
    }
    if (ok !== 'OK') throw new DomainError('service_unavailable', 'a login is already parked under this challenge id');
  }

  /** `GETDEL svc-2fa:<id>`, opened. Null when absent, expired, or sealed with no known key. @throws DomainError `service_unavailable`. */
  async take(challengeId: string): Promise<ParkedLogin | null> {
    let value: string | null;
    try {
      value = await this.redis.getdel(PARKING_KEY_PREFIX + challengeId);
    } catch (err) {
      throw new DomainError('service_unavailable', 'the parked login could not be read; try again', { cause: err });
    }
    if (value === null) return null;
    for (const key of this.keys) {
      const text = open(key, challengeId, value);
      if (text !== null) return JSON.parse(text) as ParkedLogin;
    }
    return null;
  }
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url) of AES-256-GCM over `text` with `aad`. */
export function seal(key: Buffer, aad: string, text: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
  return [VERSION, iv.toString('base64url'), c.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

/** The text `seal` sealed with `key` and `aad`, or null (another key or aad, tampered, malformed). */
export function open(key: Buffer, aad: string, sealed: string): string | null {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return null;
  try {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'), { authTagLength: 16 });
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(parts[3]!, 'base64url')), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}
