/**
 * THE typed HTTP clients other services use to call the auth service:
 * - `AuthClient.revocations(after)`: `GET /v1/internal/auth/revocations?after=` (issue 11 item 9), the
 *   list the gateway polls to refuse access tokens of disabled users and revoked sessions before they expire;
 * - `LoginChallengeClient` (issue 14 item 3): the gateway's second-factor calls `required`, `create`,
 *   `verify` (`/login-challenge*`, service principal `service:gateway` only).
 *
 * Calls carry `X-Svc-Principal` of `service:<service>` from the one cached service stamp
 * (`services/shared/identity/service-stamp.ts`). Imports only services/shared, undici and auth's
 * `contracts.ts`.
 */
import { request } from 'undici';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import {
  LOGIN_CHALLENGE_PATH, LOGIN_CHALLENGE_REQUIRED_PATH, LOGIN_CHALLENGE_VERIFY_PATH, REVOCATIONS_PATH,
  type LoginChallengeCreate, type LoginChallengeCreated, type LoginChallengeRequired, type LoginChallengeVerdict,
  type LoginChallengeVerify, type Revocation, type RevocationFeed,
} from './contracts.js';

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

/**
 * An auth call that did not succeed: `status` and `code` are auth's answer (e.g. 410
 * `challenge_expired`, 401 `code_invalid`), so a caller can pass them through unchanged; status 503
 * `service_unavailable` when auth could not be reached or answered something unreadable.
 */
export class AuthCallError extends Error {
  constructor(message: string, readonly status: number, readonly code: string) {
    super(message);
    this.name = 'AuthCallError';
  }
}

/** Options of a `LoginChallengeClient`: those of `AuthClient` plus an optional shared stamp. */
export interface LoginChallengeClientOptions extends AuthClientOptions {
  /** An already cached stamp function (`serviceStamp('gateway', ...)`); default: one made from the options. */
  stamp?: () => string;
}

/**
 * The gateway's second-factor calls to the auth service (issue 14 item 3; spec "Mobile-push second
 * factor" steps 2-5). Auth refuses every caller but `service:gateway` (403 `forbidden`), so
 * `service` must be `gateway`.
 */
export class LoginChallengeClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly stamp: () => string;

  constructor(opts: LoginChallengeClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.timeoutMs = opts.timeoutMs ?? AUTH_CLIENT_TIMEOUT_MS;
    this.stamp = opts.stamp ?? serviceStamp(opts.service, opts.tenantId, opts.principalKeys);
  }

  /**
   * `GET /login-challenge/required?user_id=`: whether `userId`'s login needs a second factor.
   * @throws AuthCallError (auth's status and code, or 503 `service_unavailable`).
   */
  async required(userId: string): Promise<LoginChallengeRequired> {
    return this.call<LoginChallengeRequired>('GET', `${LOGIN_CHALLENGE_REQUIRED_PATH}?user_id=${encodeURIComponent(userId)}`, undefined, 200);
  }

  /**
   * `POST /login-challenge`: open a challenge for a login whose password was verified (201).
   * @throws AuthCallError 429 `challenge_throttled`, or another of auth's codes, or 503 `service_unavailable`.
   */
  async create(input: LoginChallengeCreate): Promise<LoginChallengeCreated> {
    return this.call<LoginChallengeCreated>('POST', LOGIN_CHALLENGE_PATH, input, 201);
  }

  /**
   * `POST /login-challenge/verify`: `{status: "pending"}`, or `{status: "approved", user_id}` exactly once.
   * @throws AuthCallError 401 `code_invalid`, 403 `challenge_denied`, 409 `challenge_used`,
   *   410 `challenge_expired`, or 503 `service_unavailable`.
   */
  async verify(input: LoginChallengeVerify): Promise<LoginChallengeVerdict> {
    return this.call<LoginChallengeVerdict>('POST', LOGIN_CHALLENGE_VERIFY_PATH, input, 200);
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body: unknown, expected: number): Promise<T> {
    let status: number;
    let text: string;
    try {
      const headers: Record<string, string> = { 'x-svc-principal': this.stamp(), accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await request(`${this.baseUrl}${path}`, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw new AuthCallError(`auth unreachable: ${(err as Error).message}`, 503, 'service_unavailable');
    }
    let parsed: unknown;
    try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
    if (status === expected && parsed !== null && typeof parsed === 'object') return parsed as T;
    const e = (parsed ?? {}) as { code?: unknown; error?: unknown };
    if (status >= 400 && status < 500 && typeof e.code === 'string') {
      throw new AuthCallError(typeof e.error === 'string' ? e.error : e.code, status, e.code);
    }
    throw new AuthCallError(`auth answered HTTP ${status}`, 503, 'service_unavailable');
  }
}
