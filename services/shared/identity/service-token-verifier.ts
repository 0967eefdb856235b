/**
 * Checks the service token of an inbound internal hop (spec "Service-to-service": "Receivers
 * validate issuer, audience, client identity and an optional allowed-caller list"; issue 15 item 4).
 *
 * A token passes when its JWS signature verifies against the realm's JWKS (fetched from
 * `jwksUrl`, cached and refetched on an unknown `kid`, jose `createRemoteJWKSet`), `iss` is the
 * realm issuer, `aud` holds the internal audience, `exp` is in the future, and its `client_id`
 * names a service client: one of `allowedClients` when the list is set, else any `service-*`
 * client (a user's token from the same realm has another audience and no service client id).
 * When an introspection endpoint is configured the IdP must also call the token active.
 *
 * Successful verifications are cached by token string until the token expires (bounded), so the
 * hot path of a hop is one Map lookup.
 */
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';

/** Why a token was refused (no token text, no key material). */
export type ServiceTokenRefusal = 'malformed' | 'signature' | 'issuer' | 'audience' | 'expired' | 'client' | 'not_allowed' | 'inactive' | 'unverifiable';

/** The outcome of `ServiceTokenVerifier.verify`. */
export type ServiceTokenCheck = { ok: true; clientId: string; exp: number } | { ok: false; reason: ServiceTokenRefusal; message: string };

/** Options of `ServiceTokenVerifier`. */
export interface ServiceTokenVerifierOptions {
  /** Required `iss` (the realm issuer). */
  issuer: string;
  /** The realm's JWKS address (used unless `keys` is given). */
  jwksUrl: string;
  /** Required `aud` (`svc-internal`). */
  audience: string;
  /** Callers accepted (client ids), or null = any `service-*` client. */
  allowedClients: readonly string[] | null;
  /** JWS algorithms accepted (default ES256, RS256, PS256, EdDSA). */
  algorithms?: string[];
  /** Key lookup instead of the remote JWKS (tests). */
  keys?: JWTVerifyGetKey;
  /** Asks the IdP whether a token is active (INTERNAL_AUTH_INTROSPECTION_URL), when configured. */
  introspect?: (token: string) => Promise<boolean>;
  /** Current time, seconds (test seam). */
  clock?: () => number;
  /** Most verifications cached (default 1000; the cache empties when full). */
  cacheMax?: number;
}

/** Verifies service tokens, caching successes until they expire. */
export class ServiceTokenVerifier {
  private readonly keys: JWTVerifyGetKey;
  private readonly cache = new Map<string, { clientId: string; exp: number }>();
  private readonly clock: () => number;
  private readonly allowed: ReadonlySet<string> | null;
  private last: { token: string; hit: { clientId: string; exp: number } } | null = null;

  constructor(private readonly o: ServiceTokenVerifierOptions) {
    this.keys = o.keys ?? createRemoteJWKSet(new URL(o.jwksUrl), { cooldownDuration: 5_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 5_000 });
    this.clock = o.clock ?? (() => Math.floor(Date.now() / 1000));
    this.allowed = o.allowedClients ? new Set(o.allowedClients) : null;
  }

  /**
   * A cached, unexpired success for `token`, else null (synchronous hot path: the last token seen is
   * compared first, as a caller sends the same token on every hop until it refreshes it).
   */
  cached(token: string): { clientId: string; exp: number } | null {
    const last = this.last;
    const hit = last !== null && last.token === token ? last.hit : this.cache.get(token);
    if (!hit) return null;
    if (hit.exp <= this.clock()) { this.cache.delete(token); this.last = null; return null; }
    this.last = { token, hit };
    return hit;
  }

  /** Verify `token` (see the module comment). Never throws. */
  async verify(token: string): Promise<ServiceTokenCheck> {
    const hit = this.cached(token);
    if (hit) return { ok: true, ...hit };
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        issuer: this.o.issuer, audience: this.o.audience,
        algorithms: this.o.algorithms ?? ['ES256', 'RS256', 'PS256', 'EdDSA'],
        currentDate: new Date(this.clock() * 1000), requiredClaims: ['exp'],
      }));
    } catch (err) {
      return refusal(err);
    }
    const clientId = payload.client_id;
    if (typeof clientId !== 'string' || !clientId) return { ok: false, reason: 'client', message: 'service token names no client_id' };
    if (typeof payload.sub === 'string' && payload.sub !== clientId) return { ok: false, reason: 'client', message: 'service token subject is not its client' };
    if (this.allowed ? !this.allowed.has(clientId) : !clientId.startsWith('service-')) {
      return { ok: false, reason: 'not_allowed', message: `client ${clientId} may not call this service` };
    }
    if (this.o.introspect) {
      let active = false;
      try { active = await this.o.introspect(token); } catch { return { ok: false, reason: 'unverifiable', message: 'introspection endpoint unreachable' }; }
      if (!active) return { ok: false, reason: 'inactive', message: 'service token is not active' };
    }
    const exp = payload.exp as number;
    if (this.cache.size >= (this.o.cacheMax ?? 1000)) this.cache.clear();
    this.cache.set(token, { clientId, exp });
    return { ok: true, clientId, exp };
  }
}

function refusal(err: unknown): ServiceTokenCheck {
  const code = (err as { code?: string }).code ?? '';
  const claim = (err as { claim?: string }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED': return { ok: false, reason: 'expired', message: 'service token expired' };
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'iss') return { ok: false, reason: 'issuer', message: 'service token from another issuer' };
      if (claim === 'aud') return { ok: false, reason: 'audience', message: 'service token for another audience' };
      return { ok: false, reason: 'malformed', message: `service token claim ${claim ?? '?'} rejected` };
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return { ok: false, reason: 'signature', message: 'service token signature not verified by the realm keys' };
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JOSE_GENERIC':
      return { ok: false, reason: 'unverifiable', message: 'realm keys could not be fetched' };
    default:
      return { ok: false, reason: 'malformed', message: 'service token is not a valid JWT' };
  }
}

/**
 * An `introspect` function for `ServiceTokenVerifier` over RFC 7662 at `url`, authenticating as
 * this service's client (HTTP Basic).
 */
export function introspectionCheck(url: string, clientId: string, clientSecret: string, fetchImpl: typeof fetch = fetch): (token: string) => Promise<boolean> {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
  return async (token) => {
    const res = await fetchImpl(url, {
      method: 'POST', headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(), signal: AbortSignal.timeout(5000),
    });
    if (res.status !== 200) throw new Error(`introspection answered ${res.status}`);
    return (await res.json() as { active?: unknown }).active === true;
  };
}
