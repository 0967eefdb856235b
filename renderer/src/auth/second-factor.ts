/**
 * The sign-in's second factor, the pure part (issue 14 items 3, 4 and 8; plain TypeScript,
 * unit-tested in Node): what a `POST /v1/auth/login/2fa` outcome means for the screen, the words for
 * each stable code, and the shape check of a typed code (6-digit offline code or `xxxx-xxxx-xxxx`
 * recovery code).
 */

/** What the waiting screen does after one `/v1/auth/login/2fa` answer. */
export type PollOutcome =
  | { kind: 'pending' }
  | { kind: 'approved' }
  | { kind: 'final'; message: string }
  | { kind: 'retry'; message: string }
  | { kind: 'code_rejected'; message: string };

/** Plain words for the second-factor codes (auth's table, passed through by the gateway). */
export function secondFactorMessage(code: string, status = 0): string {
  switch (code) {
    case 'challenge_denied': return 'The sign-in was denied on your phone (or the wrong number was picked). Sign in again to retry.';
    case 'challenge_expired': return 'The sign-in request expired before it was approved. Sign in again.';
    case 'challenge_used': return 'This sign-in was already completed. Sign in again.';
    case 'code_invalid': return 'That code is not right. Type the 6-digit offline code your phone shows now (it changes every 30 seconds), or an unused recovery code.';
    case 'challenge_throttled': return 'Too many sign-in requests were sent to your phone. Wait a few minutes, then try again.';
    case 'rate_limited': return 'Too many attempts. Wait a moment.';
    case 'network_error': return 'The server cannot be reached. Check that the stack is running.';
    case 'invalid_request': return 'That is not a code: type 6 digits, or a recovery code like abcd-efgh-ijkl.';
    default: return status >= 500 ? 'The server had a problem. Try again shortly.' : 'The sign-in could not be completed. Sign in again.';
  }
}

/** Map an answer's status and code (of a poll, or of a code submission) to the screen's next step. */
export function pollOutcome(status: number, code: string | null, withCode: boolean): PollOutcome {
  if (status === 200) return { kind: 'approved' };
  if (status === 202) return { kind: 'pending' };
  const c = code ?? `http_${status}`;
  if (c === 'code_invalid' && withCode) return { kind: 'code_rejected', message: secondFactorMessage(c, status) };
  if (c === 'invalid_request' && withCode) return { kind: 'code_rejected', message: secondFactorMessage(c, status) };
  if (c === 'challenge_denied' || c === 'challenge_expired' || c === 'challenge_used') return { kind: 'final', message: secondFactorMessage(c, status) };
  return { kind: 'retry', message: secondFactorMessage(c, status) };
}

/** A typed code without spaces, recovery codes in lower case; null when it is neither shape. */
export function normaliseCode(text: string): string | null {
  const t = text.replace(/\s+/g, '');
  if (/^\d{6}$/.test(t)) return t;
  const r = t.toLowerCase();
  if (/^[a-z2-7]{4}-?[a-z2-7]{4}-?[a-z2-7]{4}$/.test(r)) return r.length === 12 ? `${r.slice(0, 4)}-${r.slice(4, 8)}-${r.slice(8)}` : r;
  return null;
}

/** Whole seconds from `now` (Unix ms) until `iso`, never negative; null when `iso` is absent or unreadable. */
export function secondsUntil(iso: string | null | undefined, now: number): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? Math.max(0, Math.ceil((t - now) / 1000)) : null;
}

// The countdown and the fingerprint read the same on the IdP's phone step (auth's contracts).
export { clock, fingerprintOfEnrollmentUrl } from '../../../services/auth/src/contracts/sign-in-words.js';
