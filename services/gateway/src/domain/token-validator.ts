/**
 * Bearer JWT validation against the JWKS of every trusted issuer (spec: "Bearer tokens and
 * trusted issuers"; DESIGN.md "Identity").
 *
 * jose is called with an algorithm allow-list, `issuer`, `audience` and
 * `requiredClaims: ['exp', 'iat', 'sub']`: without them jose accepts tokens with no `aud` or `exp`.
 * Successful validations are cached until the token's expiry (bounded LRU), so the hot path does not
 * verify a signature per request. Failures are never cached (a JWKS refresh may fix an unknown kid).
 */
import { compactVerify, createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, errors, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { TrustedIssuer } from '../../../shared/config.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { BearerValidator, ValidatedClaims } from '../contracts.js';

/** A bearer token refused by the validator (401 in `GATEWAY_ERRORS`, with its `WWW-Authenticate`). */
export type TokenError = DomainError<'token_invalid' | 'token_expired'>;

/** Clock skew tolerated on exp/iat/nbf, seconds. */
export const CLOCK_TOLERANCE_SECONDS = 30;

interface IssuerEntry { issuer: TrustedIssuer; keys: JWTVerifyGetKey }

/** Validates bearer tokens; one instance per gateway. */
export class TokenValidator implements BearerValidator {
  private readonly issuers = new Map<string, IssuerEntry>();
  private readonly cache = new Map<string, { claims: ValidatedClaims; expMs: number }>();

  /**
   * @param issuers trusted issuers (exact `iss` strings) and their JWKS URLs.
   * @param audience required `aud` (`svc-frontend`).
   * @param cacheMax most cached validations kept.
   * @param keyResolver test seam: a key resolver per issuer instead of a remote JWKS.
   */
  constructor(
    issuers: readonly TrustedIssuer[],
    private readonly audience: string,
    private readonly cacheMax = 50_000,
    keyResolver?: (issuer: TrustedIssuer) => JWTVerifyGetKey,
  ) {
    for (const i of issuers) {
      const keys = keyResolver ? keyResolver(i) : createRemoteJWKSet(new URL(i.jwksUrl), {
        timeoutDuration: 5000, cooldownDuration: 10_000, cacheMaxAge: 10 * 60_000,
      });
      this.issuers.set(i.issuer, { issuer: i, keys });
    }
  }

  /** Number of cached validations (for metrics and tests). */
  get cacheSize(): number { return this.cache.size; }

  /**
   * Validate a compact JWS bearer token.
   * @returns its claims.
   * @throws TokenError `token_invalid` / `token_expired`.
   */
  async validate(token: string, nowMs = Date.now()): Promise<ValidatedClaims> {
    const hit = this.cache.get(token);
    if (hit) {
      if (hit.expMs > nowMs) return hit.claims;
      this.cache.delete(token);
    }
    if (token.length > 16_384 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) {
      throw invalid('bearer token is not a compact JWS');
    }
    let iss: unknown;
    try {
      const header = decodeProtectedHeader(token);
      if (typeof header.alg !== 'string' || header.alg.toLowerCase() === 'none') throw new Error('alg none');
      iss = decodeJwt(token).iss;
    } catch {
      throw invalid('bearer token is malformed or unsigned');
    }
    const entry = typeof iss === 'string' ? this.issuers.get(iss) : undefined;
    if (!entry) throw invalid('bearer token issuer is not trusted');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, entry.keys, {
        issuer: entry.issuer.issuer,
        audience: this.audience,
        algorithms: entry.issuer.algorithms,
        requiredClaims: ['exp', 'iat', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(nowMs),
      }));
    } catch (err) {
      if (err instanceof errors.JWTExpired) {
        throw new DomainError('token_expired', 'bearer token has expired', { headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="expired"' } });
      }
      throw invalid('bearer token failed validation');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('bearer token has no subject');
    const claims = payload as ValidatedClaims;
    this.remember(token, claims, nowMs);
    return claims;
  }

  /**
   * The signature layer alone, with the same key source and algorithm allow-list as `validate`
   * (used to run the Wycheproof JWS vectors, whose payloads are not JWT claim sets).
   * @returns the verified payload bytes.
   * @throws TokenError `token_invalid`.
   */
  async verifyJws(token: string, issuer: string): Promise<Uint8Array> {
    const entry = this.issuers.get(issuer);
    if (!entry) throw invalid('issuer is not trusted');
    try {
      const header = decodeProtectedHeader(token);
      if (typeof header.alg !== 'string' || header.alg.toLowerCase() === 'none') throw new Error('alg none');
      const { payload } = await compactVerify(token, entry.keys, { algorithms: entry.issuer.algorithms });
      return payload;
    } catch {
      throw invalid('signature verification failed');
    }
  }

  private remember(token: string, claims: ValidatedClaims, nowMs: number): void {
    const expMs = Math.min(claims.exp * 1000, nowMs + 3_600_000);
    if (this.cache.size >= this.cacheMax) {
      // Evict the oldest insertions (Map keeps insertion order).
      let n = Math.max(1, Math.floor(this.cacheMax / 10));
      for (const k of this.cache.keys()) { this.cache.delete(k); if (--n === 0) break; }
    }
    this.cache.set(token, { claims, expMs });
  }
}

function invalid(message: string): TokenError {
  return new DomainError('token_invalid', message, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
}
