/** Sign-in operations: password login, the desktop's installer handoff, sign-out. */
import { ApiError, api, errorOf } from './http';
import { tokens } from './tokens';
import type { AuthConfigView, LoginChallengeAnswer, TokenResponse } from './types';
import { desktop } from '../desktop';
import { signInCodeMessage } from '../../../services/auth/src/contracts/sign-in-words.js';

/** Messages for the auth service's stable codes (contracts.ts `AuthErrorCode`). */
export function signInMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return 'Sign-in failed. Try again.';
  if (err.code === 'network_error') return 'The server cannot be reached. Check that the stack is running.';
  return signInCodeMessage(err.code, err.status >= 500 ? 'The server had a problem signing you in. Try again shortly.' : err.message);
}

/** What a password login led to: signed in, or a second factor to complete (202, no token yet). */
export type LoginOutcome = { kind: 'signedIn' } | { kind: 'secondFactor'; challenge: LoginChallengeAnswer };

/**
 * `POST /v1/auth/login`. 200: the tokens are adopted and the app signed in. 202 (issue 14 item 3):
 * the account has a second factor; the answer carries the challenge (number to show, methods) and no
 * token. @throws ApiError
 */
export async function login(username: string, password: string): Promise<LoginOutcome> {
  let res: Response;
  try {
    res = await fetch('/v1/auth/login', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'network');
  }
  if (res.status === 202) return { kind: 'secondFactor', challenge: await res.json() as LoginChallengeAnswer };
  if (!res.ok) throw await errorOf(res);
  await tokens.accept(await res.json() as TokenResponse);
  tokens.signedIn();
  return { kind: 'signedIn' };
}

/** First run of the desktop app: exchange the installer-handoff id for an admin's tokens. */
export async function tryInstallerHandoff(): Promise<boolean> {
  const d = desktop();
  if (!d) return false;
  const id = await d.takeInstallerHandoff();
  if (!id) return false;
  const res = await fetch('/v1/auth/installer-handoff', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ handoff_id: id }),
  });
  if (!res.ok) return false;
  await tokens.accept(await res.json() as TokenResponse);
  tokens.signedIn();
  return true;
}

/** `GET /v1/auth/config`, or null when the gateway cannot be reached. */
export async function authConfig(): Promise<AuthConfigView | null> {
  try { return await api<AuthConfigView>('/v1/auth/config', { anonymous: true }); } catch { return null; }
}

/**
 * Sign out: the refresh token is dropped from storage; a session of the embedded IdP is also ended
 * there (refresh token revoked, end-session; issue 15 item 1).
 */
export function signOut(): void {
  void tokens.signOut();
}
