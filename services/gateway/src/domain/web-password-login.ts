/**
 * Password login and refresh through the embedded IdP's `svc-web-password` client (issue 15 item 1;
 * spec "Bearer tokens and trusted issuers" 1, "Public auth surface"): what the gateway makes of the
 * request bodies and of the realm token endpoint's answers, so `POST /v1/auth/login` and
 * `POST /v1/auth/refresh` keep every status, body and `code` they had when auth answered them itself.
 *
 * - Bodies: only a well-formed JSON body (`application/json`, exactly `{username, password}` or
 *   `{refresh_token}` within auth's bounds) goes to the IdP; anything else goes to auth's own route
 *   unchanged, which answers `invalid_request` (with `field`), 415 or 413 exactly as before.
 * - Answers (`grantOutcome`): 200 -> the token response in auth's shape `{access_token,
 *   refresh_token, token_type, expires_in}` (the realm's `scope` dropped); `code: directory_account`
 *   -> `directory` (the caller then uses auth's `/v1/auth/login`: issuer `{publicUrl}/auth`, issue 15
 *   item 3); another of our codes (contracts/web-password.ts) -> refused with auth's status for it
 *   and `Retry-After` when throttled; anything else (a wrong client secret, no realm) -> 503
 *   `service_unavailable`, never a token.
 *
 * Pure: no I/O (clients/web-password.ts calls the IdP).
 */
import { AppError } from '../../../shared/http/errors.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { AUTH_ERRORS, DIRECTORY_ACCOUNT_CODE, LIMITS, TOKEN_ENDPOINT_CODES, type TokenResponse } from '../../../auth/src/contracts.js';
import type { GatewayErrorCode } from '../contracts.js';

/** What the token endpoint answered, as `clients/web-password.ts` reads it. */
export interface GrantAnswer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

/** What to do with a token-endpoint answer. */
export type GrantOutcome =
  | { kind: 'tokens'; bundle: string }
  | { kind: 'directory' }
  | { kind: 'refused'; code: string; error: AppError };

/** Longest refresh token auth's `/v1/auth/refresh` accepts (characters). */
const REFRESH_TOKEN_MAX = 512;

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

function jsonObject(raw: unknown, contentType: string | undefined): Record<string, unknown> | null {
  if (!Buffer.isBuffer(raw) || !/^application\/json\s*(;|$)/i.test(contentType ?? '')) return null;
  let body: unknown;
  try { body = JSON.parse(raw.toString('utf8')); } catch { return null; }
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? body as Record<string, unknown> : null;
}

function bounded(v: unknown, min: number, max: number): v is string {
  return typeof v === 'string' && codePoints(v) >= min && codePoints(v) <= max;
}

/**
 * The `{username, password}` of a `POST /v1/auth/login` body auth would accept (auth's
 * `LoginBodySchema`), or null for any other body (send it to auth, which answers as before).
 */
export function readLoginBody(raw: unknown, contentType: string | undefined): { username: string; password: string } | null {
  const o = jsonObject(raw, contentType);
  if (!o || Object.keys(o).some((k) => k !== 'username' && k !== 'password')) return null;
  if (!bounded(o.username, 1, LIMITS.emailMax) || !bounded(o.password, 1, LIMITS.passwordMax)) return null;
  return { username: o.username, password: o.password };
}

/** The `refresh_token` of a `POST /v1/auth/refresh` body auth would accept, or null. */
export function readRefreshBody(raw: unknown, contentType: string | undefined): string | null {
  const o = jsonObject(raw, contentType);
  if (!o || Object.keys(o).some((k) => k !== 'refresh_token')) return null;
  return bounded(o.refresh_token, 1, REFRESH_TOKEN_MAX) ? o.refresh_token : null;
}

const KNOWN = new Set<string>(TOKEN_ENDPOINT_CODES);

/**
 * Interpret a token-endpoint answer of the `password` or `refresh_token` grant.
 * @throws DomainError `service_unavailable` when the answer is neither tokens nor one of our codes.
 */
export function grantOutcome(answer: GrantAnswer): GrantOutcome {
  const b = answer.body;
  if (answer.status === 200) {
    const { access_token: at, refresh_token: rt, expires_in: exp } = b;
    if (typeof at !== 'string' || typeof rt !== 'string' || typeof exp !== 'number') throw unavailable();
    const bundle: TokenResponse = { access_token: at, refresh_token: rt, token_type: 'Bearer', expires_in: exp };
    return { kind: 'tokens', bundle: JSON.stringify(bundle) };
  }
  const code = typeof b.code === 'string' && KNOWN.has(b.code) ? b.code : null;
  if (code === DIRECTORY_ACCOUNT_CODE) return { kind: 'directory' };
  if (code === null) throw unavailable();
  const status = (AUTH_ERRORS as Record<string, number>)[code] ?? 400;
  const message = typeof b.error_description === 'string' ? b.error_description : code.replace(/_/g, ' ');
  const headers = code === 'login_throttled' && answer.retryAfter ? { 'retry-after': answer.retryAfter } : undefined;
  return { kind: 'refused', code, error: new AppError(status, code, message, headers ? { headers } : {}) };
}

function unavailable(): DomainError<GatewayErrorCode> {
  return new DomainError('service_unavailable', 'sign-in is unavailable; try again');
}
