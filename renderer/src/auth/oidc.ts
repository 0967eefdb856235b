/**
 * Sign-in through the embedded IdP (issue 15 item 1): authorization code + PKCE S256 against the
 * public client `svc-frontend`, with state and nonce, all on the page's own origin (the gateway
 * forwards `/idp/*` to the auth service). `oauth4webapi` does the protocol checks (state, `iss` of
 * the authorization response, the ID token's `iss`/`aud`/`nonce`/`exp`, the token response shape).
 *
 * - `beginSignIn()`: verifier, state and nonce kept in `sessionStorage` (this tab only), then the
 *   browser goes to `{IDP_PATH}/protocol/openid-connect/auth`.
 * - `completeSignIn()` at `/login/callback`: state checked, code exchanged at the token endpoint.
 * - `refreshAtIdp()`: refresh_token grant (the IdP rotates the refresh token).
 * - `endSession()`: revokes the refresh token, then the browser goes to the end-session endpoint,
 *   which comes back to `{origin}/`.
 */
import * as oauth from 'oauth4webapi';
import type { TokenResponse } from '../api/types';
import { desktop } from '../desktop';
import type { DesktopBridge } from '../../../main/ipc/common/channels.js';

/** The public client of the app. */
export const CLIENT_ID = 'svc-frontend';
/** The realm's path on the gateway. */
export const IDP_PATH = '/idp/realms/svc';
/** Path of the redirect URI (`{origin}/login/callback`). */
export const CALLBACK_PATH = '/login/callback';
/** Scopes asked for: ID token, email and profile claims, a refresh token. */
export const SCOPES = 'openid email profile offline_access';

const PENDING_KEY = 'svc.oidc.pending';
const client: oauth.Client = { client_id: CLIENT_ID, id_token_signed_response_alg: 'ES256' };
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** A token response of the IdP (the app's `TokenResponse` plus the ID token). */
export type IdpTokens = TokenResponse & { id_token?: string };

let server: Promise<oauth.AuthorizationServer | null> | null = null;

/**
 * The realm's metadata with its endpoints on this page's origin (the issuer stays as the realm
 * says), or null when the gateway serves no IdP (then the app keeps the password form).
 */
export function authorizationServer(): Promise<oauth.AuthorizationServer | null> {
  server ??= (async () => {
    try {
      const res = await fetch(`${IDP_PATH}/.well-known/openid-configuration`, { cache: 'no-store' });
      if (!res.ok) return null;
      const meta = await res.json() as oauth.AuthorizationServer;
      if (typeof meta.issuer !== 'string') return null;
      const here = (path: string): string => `${location.origin}${IDP_PATH}${path}`;
      return {
        ...meta,
        authorization_endpoint: here('/protocol/openid-connect/auth'),
        token_endpoint: here('/protocol/openid-connect/token'),
        revocation_endpoint: here('/protocol/openid-connect/revoke'),
        end_session_endpoint: here('/protocol/openid-connect/logout'),
      };
    } catch {
      return null;
    }
  })();
  const p = server;
  void p.then((s) => { if (!s && server === p) server = null; });
  return p;
}

/** What `beginSignIn` keeps for the callback. */
interface Pending { verifier: string; state: string; nonce: string; redirectUri: string; returnTo: string }

/** True when the page is the IdP's redirect back to the app. */
export function isCallback(): boolean {
  return location.pathname === CALLBACK_PATH;
}

/** Go to the IdP's sign-in (authorization request with PKCE S256, state and nonce). */
export async function beginSignIn(returnTo = `${location.pathname}${location.search}`): Promise<void> {
  const as = await authorizationServer();
  if (!as?.authorization_endpoint) throw new Error('the sign-in service is not available');
  const verifier = oauth.generateRandomCodeVerifier();
  const pending: Pending = {
    verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(),
    redirectUri: `${location.origin}${CALLBACK_PATH}`, returnTo: returnTo.startsWith(CALLBACK_PATH) ? '/' : returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: CLIENT_ID, response_type: 'code', scope: SCOPES, redirect_uri: pending.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    state: pending.state, nonce: pending.nonce,
  }).toString();
  location.assign(url.toString());
}

/**
 * The desktop shell when it signs in through the system browser (a shell whose bridge offers
 * `signIn`); null in a browser tab or an older shell, which sign in inside the window.
 */
export function systemBrowserShell(): DesktopBridge | null {
  const d = desktop();
  return d && typeof d.signIn === 'function' ? d : null;
}

/**
 * The desktop shell's sign-in (issue 15 item 1, RFC 8252): the shell opens the system browser at the
 * realm with a loopback redirect and PKCE, and answers the realm's tokens (`window.desktop.signIn`).
 * @returns the tokens, or null outside the desktop shell. @throws Error when cancelled or timed out.
 */
export async function desktopSignIn(): Promise<IdpTokens | null> {
  const d = systemBrowserShell();
  if (!d) return null;
  const t = await d.signIn();
  return { ...t, token_type: 'Bearer' } as IdpTokens;
}

/** Words for a failed callback (the IdP's `error`, a state mismatch, a refused exchange). */
export function callbackMessage(err: unknown): string {
  if (err instanceof oauth.AuthorizationResponseError) {
    return err.error === 'access_denied' ? 'Sign-in was cancelled.' : `Sign-in failed (${err.error}). Try again.`;
  }
  if (err instanceof oauth.ResponseBodyError) return `Sign-in failed (${err.error}). Try again.`;
  if (err instanceof Error && /state/i.test(err.message)) return 'Sign-in could not be completed in this tab. Try again.';
  return 'Sign-in could not be completed. Try again.';
}

/**
 * At `/login/callback`: check the state (and `iss`), exchange the code with the verifier, check the
 * ID token's nonce; the address bar goes back to where sign-in started.
 * @returns the tokens and the path to show.
 * @throws Error (use `callbackMessage`) when the answer is an error, forged, replayed or refused.
 */
export async function completeSignIn(): Promise<{ tokens: IdpTokens; returnTo: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const params = new URL(location.href);
  history.replaceState(null, '', '/');
  if (!raw) throw new Error('no sign-in was started in this tab (state missing)');
  const pending = JSON.parse(raw) as Pending;
  const as = await authorizationServer();
  if (!as) throw new Error('the sign-in service is not available');
  const answer = oauth.validateAuthResponse(as, client, params, pending.state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), answer, pending.redirectUri, pending.verifier, insecure);
  const out = await oauth.processAuthorizationCodeResponse(as, client, res, { expectedNonce: pending.nonce, requireIdToken: true });
  history.replaceState(null, '', pending.returnTo || '/');
  return { tokens: asTokens(out), returnTo: pending.returnTo || '/' };
}

/**
 * Rotate at the IdP's token endpoint. @returns the new tokens, or null when the refresh token was
 * refused (signed out). @throws Error on a network failure or a server error (try again later).
 */
export async function refreshAtIdp(refreshToken: string): Promise<IdpTokens | null> {
  const as = await authorizationServer();
  if (!as) throw new Error('the sign-in service is not available');
  const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure);
  try {
    return asTokens(await oauth.processRefreshTokenResponse(as, client, res));
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError && err.status >= 400 && err.status < 500) return null;
    throw err;
  }
}

let leaving = false;
let callbackError: string | null = null;

/** True while the page is leaving for the end-session endpoint (the start screen then waits). */
export function isLeaving(): boolean { return leaving; }

/** Remember why the last callback failed, for the start screen to say (once). */
export function setCallbackError(message: string): void { callbackError = message; }

/** The message of the last failed callback, once; null when none. */
export function takeCallbackError(): string | null {
  const m = callbackError;
  callbackError = null;
  return m;
}

/** Revoke `refreshToken` (best effort), then end the IdP session and come back to `{origin}/`. */
export async function endSession(refreshToken: string | null, idToken: string | null): Promise<void> {
  const as = await authorizationServer();
  if (!as?.end_session_endpoint) return;
  leaving = true;
  if (refreshToken) {
    try {
      await Promise.race([
        oauth.revocationRequest(as, client, oauth.None(), refreshToken, insecure),
        new Promise((r) => setTimeout(r, 2000)),
      ]);
    } catch { /* the end of the session below still signs out */ }
  }
  // The desktop shell signed in through the system browser (RFC 8252), whose IdP session the app's
  // window cannot end: revoking the refresh token above is the sign-out there.
  if (systemBrowserShell()) { leaving = false; return; }
  const url = new URL(as.end_session_endpoint);
  url.search = new URLSearchParams({
    client_id: CLIENT_ID, post_logout_redirect_uri: `${location.origin}/`, ...(idToken ? { id_token_hint: idToken } : {}),
  }).toString();
  location.assign(url.toString());
}

function asTokens(t: oauth.TokenEndpointResponse): IdpTokens {
  return {
    access_token: t.access_token, token_type: 'Bearer', expires_in: t.expires_in ?? 300,
    refresh_token: t.refresh_token ?? '', ...(t.id_token ? { id_token: t.id_token } : {}),
  } as IdpTokens;
}
