/**
 * The second factor at the gateway (issue 14 item 3; spec "Mobile-push second factor" steps 2-5,
 * "States and transitions" login rows; DESIGN.md "Identity"). Tokens never reach the browser before
 * the second factor:
 *
 * - `afterPassword`: auth verified the password and answered a token bundle. The gateway reads the
 *   access token's `sub` (auth's own token, fetched over loopback: decoded, not verified), asks auth
 *   whether a second factor is required, and if so opens a challenge and parks the bundle under its
 *   id: the browser gets `{challenge_id, methods, number_match, expires_at, enrollment_url?}`.
 * - `complete`: the browser's `POST /v1/auth/login/2fa`. Auth says pending, or approved exactly once;
 *   approved takes the parked bundle (atomically), which is then released, once.
 *
 * Pure over its ports (`domain/ports.ts`); errors are `DomainError`s of the gateway's table.
 */
import { decodeJwt } from 'jose';
import { DomainError, invalidInput } from '../../../shared/kit/domain-error.js';
import { CHALLENGE_ID_PATTERN, type GatewayErrorCode, type Login2faBody, type LoginChallengeAnswer } from '../contracts.js';
import type { ChallengeParking, SecondFactorAuthority } from './ports.js';

/** How much longer than its challenge a parked login is kept, ms (an approval right at the end, clock skew). */
export const PARKING_GRACE_MS = 30_000;

/** Longest `client_ip` and `user_agent` auth accepts (characters); longer values are cut. */
const CLIENT_IP_MAX = 64;
const USER_AGENT_MAX = 512;

const CHALLENGE_ID = new RegExp(CHALLENGE_ID_PATTERN);

/** Where the login came from, shown on the phone. */
export interface LoginClient {
  ip: string;
  userAgent: string;
}

/** What to answer after a verified password: the bundle as auth sent it, or a challenge (202). */
export type PasswordOutcome = { kind: 'tokens' } | { kind: 'challenge'; answer: LoginChallengeAnswer };

/** What to answer to a second-factor step: still pending (202), or the released bundle (200). */
export type SecondFactorOutcome = { kind: 'pending' } | { kind: 'tokens'; bundle: string };

/** Dependencies of `SecondFactorGate`. */
export interface SecondFactorDeps {
  authority: SecondFactorAuthority;
  parking: ChallengeParking;
  /** Current time, Unix ms. */
  clock: () => number;
}

/** The gateway's half of the second factor. */
export class SecondFactorGate {
  constructor(private readonly deps: SecondFactorDeps) {}

  /**
   * After auth answered 200 to a password login with `bundleText`.
   * A body without an `access_token` carries no token and passes as it is.
   * @throws DomainError `service_unavailable` (auth unreachable, a token without `sub`, the store
   *   down: fail closed, no token leaves), `challenge_throttled` (push fatigue).
   */
  async afterPassword(bundleText: string, client: LoginClient): Promise<PasswordOutcome> {
    const userId = subjectOf(bundleText);
    if (userId === null) return { kind: 'tokens' };
    const need = await this.deps.authority.required(userId);
    if (!need.required) return { kind: 'tokens' };
    const created = await this.deps.authority.create({
      user_id: userId, client_ip: client.ip.slice(0, CLIENT_IP_MAX), user_agent: client.userAgent.slice(0, USER_AGENT_MAX),
    });
    const expiresAt = Date.parse(created.expires_at);
    const ttl = (Number.isFinite(expiresAt) ? expiresAt - this.deps.clock() : 0) + PARKING_GRACE_MS;
    await this.deps.parking.park(created.challenge_id, { bundle: bundleText, user_id: userId, expires_at: created.expires_at }, ttl);
    const answer: LoginChallengeAnswer = {
      challenge_id: created.challenge_id, methods: created.methods, number_match: created.number_match, expires_at: created.expires_at,
    };
    if (created.enrollment_url !== undefined) answer.enrollment_url = created.enrollment_url;
    return { kind: 'challenge', answer };
  }

  /**
   * `POST /v1/auth/login/2fa`: pending, or the parked bundle released exactly once.
   * @throws DomainError auth's `code_invalid` 401, `challenge_denied` 403, `challenge_used` 409,
   *   `challenge_expired` 410 (also when approved but the parked login is gone or not the user's),
   *   or `service_unavailable`.
   */
  async complete(body: Login2faBody): Promise<SecondFactorOutcome> {
    const verdict = await this.deps.authority.verify(body.code === undefined ? { challenge_id: body.challenge_id } : { challenge_id: body.challenge_id, code: body.code });
    if (verdict.status === 'pending') return { kind: 'pending' };
    const parked = await this.deps.parking.take(body.challenge_id);
    if (parked === null || parked.user_id !== verdict.user_id) {
      throw new DomainError<GatewayErrorCode>('challenge_expired', 'the login of this challenge is no longer waiting; sign in again');
    }
    return { kind: 'tokens', bundle: parked.bundle };
  }
}

/**
 * The `sub` of the access token in a token response, or null when the body has no `access_token`.
 * @throws DomainError `service_unavailable` when the body is not JSON or the token has no `sub`.
 */
export function subjectOf(bundleText: string): string | null {
  let body: unknown;
  try { body = JSON.parse(bundleText); } catch { throw unreadable(); }
  const token = (body as { access_token?: unknown } | null)?.access_token;
  if (token === undefined) return null;
  if (typeof token !== 'string') throw unreadable();
  let sub: unknown;
  try { sub = decodeJwt(token).sub; } catch { throw unreadable(); }
  if (typeof sub !== 'string' || sub === '') throw unreadable();
  return sub;
}

function unreadable(): DomainError<GatewayErrorCode> {
  return new DomainError('service_unavailable', 'the login answer could not be read; try again');
}

/**
 * Parse a `POST /v1/auth/login/2fa` body (`Login2faBodySchema`; the gateway reads bodies as bytes).
 * @throws DomainError `invalid_request` (400, with `field`) for anything else: not a JSON object,
 *   a `challenge_id` that is not a ULID, a `code` not a string of 1-64 characters, another field.
 */
export function parseLogin2faBody(raw: unknown): Login2faBody {
  let body: unknown;
  try { body = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : ''); } catch { throw invalidInput('the body must be a JSON object {challenge_id, code?}'); }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidInput('the body must be a JSON object {challenge_id, code?}');
  const o = body as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'challenge_id' && k !== 'code') throw invalidInput(`unknown field ${k}`, k);
  if (typeof o.challenge_id !== 'string' || !CHALLENGE_ID.test(o.challenge_id)) throw invalidInput('challenge_id must be the challenge id the login answered', 'challenge_id');
  if (o.code === undefined) return { challenge_id: o.challenge_id };
  if (typeof o.code !== 'string' || o.code.length < 1 || o.code.length > 64) throw invalidInput('code must be a string of 1 to 64 characters', 'code');
  return { challenge_id: o.challenge_id, code: o.code };
}
