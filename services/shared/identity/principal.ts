/**
 * The principal and capability token the gateway stamps on every authenticated request
 * (spec: "Principal", "Turn context", "Identity headers"; DESIGN.md "Identity").
 *
 * Wire form of both headers: `base64url(JCS(payload)) + "." + base64url(HMAC-SHA256(key, JCS(payload)))`.
 * Keys come newest first: sign with the first, accept any (rotation without restart of the readers).
 * Both expire 5 minutes after issue.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { jcs } from './jcs.js';

export {
  ACCOUNT_ROLES, CAPABILITY_SCOPES, SERVICE_ROLE, accountRoles, isAccountRole, isServicePrincipal,
  type AccountRole, type AuthMethod, type CapabilityToken, type Principal,
} from './principal-types.js';
import { CAPABILITY_SCOPES, SERVICE_ROLE, type Principal } from './principal-types.js';

/** Lifetime of the principal and capability token, in seconds. */
export const STAMP_LIFETIME_SECONDS = 300;

/** Why a stamped header failed verification. */
export type StampError = 'malformed' | 'bad_signature' | 'expired' | 'no_keys';

function hmac(key: string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * Sign `payload` with the first key: `b64url(JCS(payload)).b64url(HMAC)`.
 * @throws Error when `keys` is empty.
 */
export function signStamp(payload: object, keys: readonly string[]): string {
  const key = keys[0];
  if (!key) throw new Error('no signing key configured');
  const body = jcs(payload);
  return `${Buffer.from(body, 'utf8').toString('base64url')}.${hmac(key, body).toString('base64url')}`;
}

/**
 * Verify a stamp against any of `keys` and its `exp` (Unix seconds, compared to `nowSeconds`).
 * Returns the payload or a `StampError`. The HMAC covers the exact bytes that are parsed, so no
 * other text can pass as the signed value.
 */
export function verifyStamp<T extends { exp: number }>(
  value: string | undefined,
  keys: readonly string[],
  nowSeconds: number = Math.floor(Date.now() / 1000),
): { ok: true; payload: T } | { ok: false; error: StampError } {
  if (keys.length === 0) return { ok: false, error: 'no_keys' };
  if (typeof value !== 'string' || value.length > 16384) return { ok: false, error: 'malformed' };
  const dot = value.indexOf('.');
  if (dot <= 0 || dot !== value.lastIndexOf('.')) return { ok: false, error: 'malformed' };
  const bodyB64 = value.slice(0, dot);
  const sigB64 = value.slice(dot + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(bodyB64) || !/^[A-Za-z0-9_-]+$/.test(sigB64)) return { ok: false, error: 'malformed' };
  const body = Buffer.from(bodyB64, 'base64url').toString('utf8');
  const sig = Buffer.from(sigB64, 'base64url');
  if (sig.length !== 32) return { ok: false, error: 'malformed' };
  let matched = false;
  for (const key of keys) {
    if (timingSafeEqual(hmac(key, body), sig)) { matched = true; break; }
  }
  if (!matched) return { ok: false, error: 'bad_signature' };
  let payload: unknown;
  try { payload = JSON.parse(body); } catch { return { ok: false, error: 'malformed' }; }
  if (typeof payload !== 'object' || payload === null || typeof (payload as { exp?: unknown }).exp !== 'number') {
    return { ok: false, error: 'malformed' };
  }
  if ((payload as { exp: number }).exp <= nowSeconds) return { ok: false, error: 'expired' };
  return { ok: true, payload: payload as T };
}

/**
 * `verifyStamp` with a bounded cache of successful verifications, keyed by the header value and
 * kept until the stamp's `exp`: the gateway reuses one principal stamp for minutes, so services
 * skip the HMAC and JSON parse on the hot path. Failures are never cached.
 */
export class StampVerifier<T extends { exp: number }> {
  private readonly cache = new Map<string, T>();
  constructor(private readonly keys: readonly string[], private readonly max = 10_000) {}

  verify(value: string | undefined, nowSeconds: number = Math.floor(Date.now() / 1000)): { ok: true; payload: T } | { ok: false; error: StampError } {
    if (value !== undefined) {
      const hit = this.cache.get(value);
      if (hit) {
        if (hit.exp > nowSeconds) return { ok: true, payload: hit };
        this.cache.delete(value);
      }
    }
    const res = verifyStamp<T>(value, this.keys, nowSeconds);
    if (res.ok) {
      if (this.cache.size >= this.max) this.cache.clear();
      this.cache.set(value!, res.payload);
    }
    return res;
  }
}

/**
 * Build a service principal (auth_method `service`, id `service:<service>`, role `service-account`)
 * for internal calls; `isServicePrincipal` recognises exactly these.
 */
export function servicePrincipal(service: string, tenantId: string, nowSeconds = Math.floor(Date.now() / 1000)): Principal {
  return {
    id: `service:${service}`,
    tenant_id: tenantId,
    roles: [SERVICE_ROLE],
    groups: [],
    auth_method: 'service',
    iat: nowSeconds,
    exp: nowSeconds + STAMP_LIFETIME_SECONDS,
  };
}

const SCOPES_JSON = JSON.stringify(CAPABILITY_SCOPES);

/**
 * Mint the per-turn capability token (spec "Turn context" scopes) for `sub` in `tenantId`, signed with
 * `keys[0]`; the wire form of `signStamp`. The canonical JSON is assembled directly (this is the
 * gateway's per-request path): keys in RFC 8785 order (exp, scopes, sub, tenant_id, turn_id), strings
 * through JSON.stringify, which for strings and safe integers is exactly JCS (a unit test compares it
 * with `jcs()`). Used by the gateway for every turn and by the runtime for turns it starts itself.
 * @throws Error when no key is configured.
 */
export function capabilityToken(sub: string, tenantId: string, turnId: string, keys: readonly string[], nowSeconds = Math.floor(Date.now() / 1000)): string {
  const key = keys[0];
  if (!key) throw new Error('no capability token key configured');
  const body = `{"exp":${nowSeconds + STAMP_LIFETIME_SECONDS},"scopes":${SCOPES_JSON},"sub":${JSON.stringify(sub)},"tenant_id":${JSON.stringify(tenantId)},"turn_id":${JSON.stringify(turnId)}}`;
  return `${Buffer.from(body, 'utf8').toString('base64url')}.${hmac(key, body).toString('base64url')}`;
}

