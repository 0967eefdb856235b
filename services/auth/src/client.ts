/**
 * THE typed HTTP client other services use to call the auth service. Today one call:
 * `revocations(after)`: `GET /v1/internal/auth/revocations?after=` (issue 11 item 9), the list the
 * gateway polls to refuse access tokens of disabled users and revoked sessions before they expire.
 *
 * Calls carry `X-Svc-Principal` of `service:<service>` from the one cached service stamp
 * (`services/shared/identity/service-stamp.ts`). Imports only services/shared, undici and auth's
 * `contracts.ts`.
 */
import { request } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import { REVOCATIONS_PATH, type Revocation, type RevocationFeed } from './contracts.js';

/** Default whole-call timeout of an auth call, ms. */
export const AUTH_CLIENT_TIMEOUT_MS = 3000;

/** Options of an `AuthClient`. */
export interface AuthClientOptions {
  /** Auth base URL, e.g. `http://127.0.0.1:8012` (no trailing slash). */
  baseUrl: string;
  /** Name of the CALLING service: the principal is `service:<service>`. */
  service: string;
  /** Tenant the calling service acts in. */
  tenantId: string;
  /** HMAC keys for X-Svc-Principal, newest first. */
  principalKeys: readonly string[];
  /** Whole-call timeout, ms (default 3000). */
  timeoutMs?: number;
}

function isRevocation(v: unknown): v is Revocation {
  const r = v as Partial<Revocation> | null;
  return typeof r === 'object' && r !== null && Number.isInteger(r.seq) && typeof r.sub === 'string'
    && (r.sid === null || typeof r.sid === 'string') && Number.isInteger(r.revoked_at);
}

/** True when `v` has the shape of `RevocationFeedSchema`. */
export function isRevocationFeed(v: unknown): v is RevocationFeed {
  const f = v as Partial<RevocationFeed> | null;
  return typeof f === 'object' && f !== null && typeof f.issuer === 'string' && Number.isInteger(f.latest)
    && Number.isInteger(f.keep_seconds) && Array.isArray(f.items) && f.items.every(isRevocation);
}

/** The auth service, as another service calls it. */
export class AuthClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly stamp: () => string;

  constructor(opts: AuthClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.timeoutMs = opts.timeoutMs ?? AUTH_CLIENT_TIMEOUT_MS;
    this.stamp = serviceStamp(opts.service, opts.tenantId, opts.principalKeys);
  }

  /**
   * Revocations after cursor `after` (a `seq`; 0 for all that still matter).
   * @throws Error when auth cannot be reached, answers non-200 or a body of another shape.
   */
  async revocations(after: number): Promise<RevocationFeed> {
    const res = await request(`${this.baseUrl}${REVOCATIONS_PATH}?after=${Math.max(0, Math.floor(after))}`, {
      method: 'GET', headers: { 'x-svc-principal': this.stamp(), accept: 'application/json' },
      headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`auth revocation list answered HTTP ${res.statusCode}`);
    const body: unknown = JSON.parse(text);
    if (!isRevocationFeed(body)) throw new Error('auth revocation list has an unexpected shape');
    return body;
  }
}
