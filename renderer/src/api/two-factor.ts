/**
 * Second-factor calls of the desktop UI (issue 14 items 3, 4 and 8): `POST /v1/auth/login/2fa`
 * (polled while the phone decides, or with a typed code). The token bundle reaches the browser only
 * in the 200 of this route.
 */
import { errorOf } from './http';
import { tokens } from './tokens';
import type { TokenResponse } from './types';

/** One answer of `POST /v1/auth/login/2fa`: its status and, for errors, the stable code. */
export interface TwoFactorAnswer { status: number; code: string | null }

/**
 * Ask whether the challenge is approved (`code` absent) or answer it with a code. On 200 the tokens
 * are adopted and the app is told it is signed in. Never throws: a network failure is status 0,
 * code `network_error`.
 */
export async function completeSecondFactor(challenge_id: string, code?: string, signal?: AbortSignal): Promise<TwoFactorAnswer> {
  let res: Response;
  try {
    res = await fetch('/v1/auth/login/2fa', {
      method: 'POST', headers: { 'content-type': 'application/json' }, cache: 'no-store', signal,
      body: JSON.stringify(code === undefined ? { challenge_id } : { challenge_id, code }),
    });
  } catch (err) {
    if ((err as { name?: string }).name === 'AbortError') return { status: -1, code: 'aborted' };
    return { status: 0, code: 'network_error' };
  }
  if (res.status === 200) {
    await tokens.accept(await res.json() as TokenResponse);
    tokens.signedIn();
    return { status: 200, code: null };
  }
  if (res.status === 202) return { status: 202, code: null };
  return { status: res.status, code: (await errorOf(res)).code };
}
