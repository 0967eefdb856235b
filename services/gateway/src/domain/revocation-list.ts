/**
 * The gateway's copy of the auth service's revocation list (issue 11 item 9: "A disabled user's
 * access token kept working until expiry: the gateway checks a short-lived revocation list from
 * the auth service").
 *
 * The list is fed by `clients/revocation-feed.ts` (a poll every `REVOCATION_POLL_MS`), so a token
 * of a disabled user, or of a session whose refresh token was replayed, is refused within about
 * one poll interval. A token is refused with 401 `token_revoked` when its issuer is the auth
 * service's (`{public_url}/auth`, as the feed names it) and either
 * - its subject was revoked at or after the second it was issued (`iat * 1000 <= revoked_at`: a
 *   token issued in the same second as the revocation is refused too, as its order is unknown; a
 *   client that logs in again a second later gets a working token), or
 * - its session (`sid`) was revoked (the whole refresh family is dead, so no newer token of that
 *   session exists).
 * Tokens of other issuers pass untouched. An entry is dropped once every token it could concern
 * has expired (`keep_seconds` of the feed).
 */
import type { RevocationFeed } from '../../../auth/src/contracts.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { BearerValidator, ValidatedClaims } from '../contracts.js';

/** A token refused because its subject or session was revoked (401 in `GATEWAY_ERRORS`). */
export function tokenRevoked(): DomainError<'token_revoked'> {
  return new DomainError('token_revoked', 'bearer token has been revoked; sign in again', {
    headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="revoked"' },
  });
}

/** The revocations the gateway knows, by subject and by session. */
export class RevocationList {
  private issuer: string | null = null;
  /** sub -> latest revocation, Unix ms. */
  private readonly subjects = new Map<string, number>();
  /** `${sub} ${sid}` -> latest revocation, Unix ms. */
  private readonly sessions = new Map<string, number>();
  private keepMs = 0;
  /** The feed cursor: highest `seq` applied. */
  cursor = 0;
  /** When the list was last brought up to date, Unix ms (0: never). */
  updatedAt = 0;

  /** Number of revoked subjects and sessions held. */
  get size(): number { return this.subjects.size + this.sessions.size; }

  /** Forget everything (the feed's store was replaced: its `latest` fell below our cursor). */
  reset(): void {
    this.subjects.clear();
    this.sessions.clear();
    this.cursor = 0;
  }

  /** Apply one page of the feed at `now` (Unix ms). */
  apply(feed: RevocationFeed, now: number): void {
    this.issuer = feed.issuer;
    this.keepMs = feed.keep_seconds * 1000;
    for (const r of feed.items) {
      const map = r.sid === null ? this.subjects : this.sessions;
      const key = r.sid === null ? r.sub : `${r.sub} ${r.sid}`;
      if ((map.get(key) ?? -1) < r.revoked_at) map.set(key, r.revoked_at);
      if (r.seq > this.cursor) this.cursor = r.seq;
    }
    this.updatedAt = now;
    this.prune(now);
  }

  /** Drop entries older than the feed's `keep_seconds` at `now` (Unix ms). */
  prune(now: number): void {
    const before = now - this.keepMs;
    for (const map of [this.subjects, this.sessions]) {
      for (const [k, at] of map) if (at < before) map.delete(k);
    }
  }

  /** True when `claims` belong to a revoked subject or session (see the module comment). */
  isRevoked(claims: ValidatedClaims): boolean {
    if (this.issuer === null || claims.iss !== this.issuer || this.size === 0) return false;
    const subjectAt = this.subjects.get(claims.sub);
    if (subjectAt !== undefined && claims.iat * 1000 <= subjectAt) return true;
    return typeof claims.sid === 'string' && this.sessions.has(`${claims.sub} ${claims.sid}`);
  }
}

/**
 * A `BearerValidator` that validates with `inner`, then refuses tokens the revocation list names.
 * The inner validator's cache is unaffected: a cached validation is still checked on every request.
 */
export class RevocationCheckingValidator implements BearerValidator {
  constructor(private readonly inner: BearerValidator, private readonly list: RevocationList) {}

  /**
   * @returns the token's claims.
   * @throws DomainError `token_invalid` / `token_expired` (from `inner`), `token_revoked`.
   */
  async validate(token: string): Promise<ValidatedClaims> {
    const claims = await this.inner.validate(token);
    if (this.list.isRevoked(claims)) throw tokenRevoked();
    return claims;
  }
}
