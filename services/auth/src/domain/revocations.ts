/**
 * The revocation list the gateway polls (issue 11 item 9: "A disabled user's access token kept
 * working until expiry: the gateway checks a short-lived revocation list from the auth service").
 *
 * Access tokens are stateless JWTs the gateway validates alone, so disabling a user or revoking
 * their sessions stops only the refresh tokens here. `TokenService` therefore records each
 * revocation (subject, optionally one session, time); this service serves them as an
 * incremental feed, and drops them once every token they could concern has expired.
 */
import { REVOCATION_PAGE_MAX, type RevocationFeed } from '../contracts.js';
import type { Clock, RevocationStore } from './ports.js';

/** Seconds a revocation outlives the access-token lifetime (clock skew between gateway and auth). */
export const REVOCATION_LEEWAY_SECONDS = 60;

/** Dependencies of `RevocationService`. */
export interface RevocationDeps {
  revocations: RevocationStore;
  clock: Clock;
  settings: {
    /** `iss` of the tokens the list applies to. */
    issuer: string;
    /** Access-token lifetime, seconds. */
    accessTokenTtlSeconds: number;
  };
}

/** Serves and prunes the revocation list. */
export class RevocationService {
  constructor(private readonly deps: RevocationDeps) {}

  /** Seconds a revocation stays relevant: the access-token lifetime plus the leeway. */
  get keepSeconds(): number {
    return this.deps.settings.accessTokenTtlSeconds + REVOCATION_LEEWAY_SECONDS;
  }

  /**
   * Revocations with `seq` above `after` that still matter, oldest first, at most `limit`
   * (1..`REVOCATION_PAGE_MAX`).
   */
  async feed(after: number, limit: number = REVOCATION_PAGE_MAX): Promise<RevocationFeed> {
    const { revocations, clock, settings } = this.deps;
    const n = Math.min(Math.max(1, Math.floor(limit)), REVOCATION_PAGE_MAX);
    const since = clock() - this.keepSeconds * 1000;
    return {
      issuer: settings.issuer,
      latest: await revocations.latest(),
      keep_seconds: this.keepSeconds,
      items: (await revocations.after(Math.max(0, Math.floor(after)), since, n))
        .map((r) => ({ seq: r.seq, sub: r.subject, sid: r.session_id, revoked_at: r.revoked_at })),
    };
  }

  /** Delete revocations no token can be concerned by any more. @returns rows deleted. */
  async prune(now: number = this.deps.clock()): Promise<number> {
    return this.deps.revocations.prune(now - this.keepSeconds * 1000);
  }
}
