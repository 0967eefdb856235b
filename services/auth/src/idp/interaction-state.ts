/**
 * State and words of the IdP's sign-in interaction (issue 15 item 1): the logins that passed the
 * password and wait for their second factor (in memory, keyed by interaction uid, gone after the
 * challenge's lifetime plus a grace, or when the interaction finishes), and the plain words for the
 * auth service's stable codes, the same the renderer's sign-in said (renderer/src/api/auth.ts
 * `signInMessage`, renderer/src/auth/second-factor.ts `secondFactorMessage`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoginChallengeCreated } from '../contracts/login-challenge.js';

/** A login waiting for its second factor. `final`: why it cannot go on (denied, expired, used). */
export interface PendingLogin {
  userId: string;
  challenge: LoginChallengeCreated;
  final?: string;
  /** Issue 15 item 2: how a brokered sign-in finishes once approved (default: the password finish). */
  finishWith?: (req: IncomingMessage, res: ServerResponse) => Promise<string>;
}

/** How long past its challenge's expiry a pending login is kept (to show the final state), ms. */
const KEEP_AFTER_EXPIRY_MS = 10 * 60_000;

/** Most pending logins kept at once (oldest dropped first). */
const MAX_PENDING = 10_000;

/** Pending second-factor logins by interaction uid. */
export class PendingLogins {
  private readonly items = new Map<string, { login: PendingLogin; until: number }>();

  /** @param clock current time, Unix ms */
  constructor(private readonly clock: () => number) {}

  /** The pending login of `uid`, or undefined. */
  get(uid: string): PendingLogin | undefined {
    const hit = this.items.get(uid);
    if (!hit) return undefined;
    if (hit.until <= this.clock()) { this.items.delete(uid); return undefined; }
    return hit.login;
  }

  /** Remember `login` for `uid` (replacing an earlier one). */
  put(uid: string, login: PendingLogin): void {
    const now = this.clock();
    for (const [k, v] of this.items) if (v.until <= now) this.items.delete(k);
    while (this.items.size >= MAX_PENDING) this.items.delete(this.items.keys().next().value as string);
    const exp = Date.parse(login.challenge.expires_at);
    this.items.set(uid, { login, until: (Number.isFinite(exp) ? exp : now) + KEEP_AFTER_EXPIRY_MS });
  }

  /** Mark `uid`'s login as ended with `message`. */
  fail(uid: string, message: string): void {
    const hit = this.items.get(uid);
    if (hit) hit.login.final = message;
  }

  /** Forget `uid` (finished or cancelled). */
  drop(uid: string): void { this.items.delete(uid); }
}


/** What a second-factor code means for the page: its words, and whether the sign-in is over. */
export function pendingOutcome(code: string, _withCode: boolean): { final: boolean; message: string } {
  switch (code) {
    case 'challenge_denied': return { final: true, message: 'The sign-in was denied on your phone (or the wrong number was picked). Sign in again to retry.' };
    case 'challenge_expired': return { final: true, message: 'The sign-in request expired before it was approved. Sign in again.' };
    case 'challenge_used': return { final: true, message: 'This sign-in was already completed. Sign in again.' };
    case 'code_invalid': return { final: false, message: 'That code is not right. Type the 6-digit offline code your phone shows now (it changes every 30 seconds), or an unused recovery code.' };
    case 'invalid_request': return { final: false, message: 'That is not a code: type 6 digits, or a recovery code like abcd-efgh-ijkl.' };
    case 'rate_limited': return { final: false, message: 'Too many attempts. Wait a moment.' };
    default: return { final: false, message: 'The sign-in could not be completed. Sign in again.' };
  }
}
