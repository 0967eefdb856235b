/**
 * What a person reads while signing in, shared by the embedded IdP's server-rendered pages
 * (services/auth/src/idp/) and the renderer's password form and phone step (issue 15 item 1: the
 * IdP's page says exactly what the app said). Node-free (contracts rule): the renderer imports it.
 */

/**
 * Words for a refused password sign-in, by auth's stable error code (contracts.ts `AUTH_ERRORS`);
 * `fallback` for any other code.
 */
export function signInCodeMessage(code: string, fallback = 'Sign-in failed. Try again.'): string {
  switch (code) {
    case 'invalid_credentials': return 'Wrong username or password.';
    case 'login_throttled': return 'Too many failed attempts. Wait a minute, then try again.';
    case 'account_disabled': return 'This account is disabled. Ask an administrator.';
    case 'password_login_disabled': return 'Password sign-in is switched off on this server.';
    case 'invalid_request': return 'Enter a username and a password.';
    case 'challenge_throttled': return 'Too many sign-in requests were sent to your phone. Wait a few minutes, then try again.';
    case 'directory_unavailable': return 'The corporate directory cannot be reached. Try again shortly.';
    default: return fallback;
  }
}

/** `m:ss` of a whole number of seconds (the challenge's and the pairing's countdown). */
export function clock(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * The certificate fingerprint an enrollment URL carries (`#pair?...&fp=<64 hex>`), as upper-case
 * colon-separated pairs for reading aloud; '' when none or malformed.
 */
export function fingerprintOfEnrollmentUrl(url: string): string {
  const at = url.indexOf('#pair?');
  if (at < 0) return '';
  const fp = (new URLSearchParams(url.slice(at + '#pair?'.length)).get('fp') ?? '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(fp) ? fp.toUpperCase().match(/../g)!.join(':') : '';
}
