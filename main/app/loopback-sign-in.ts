/**
 * The desktop shell's sign-in at the embedded IdP as a native app (issue 15 item 1; RFC 8252): the
 * system browser opens the authorization URL (code + PKCE S256, state, nonce) with the loopback
 * redirect `http://127.0.0.1:{ephemeral}/callback` (§7.3), a one-shot listener on that port takes
 * the code, and the shell exchanges it at the token endpoint with the verifier. Plain Node (no
 * Electron import), unit-tested: test/unit/shell/loopback-sign-in.test.ts.
 *
 * - `newLoopbackRequest(...)`: verifier, challenge, state, nonce and the authorization URL.
 * - `parseLoopbackCallback(...)`: the redirect's code, after the path, `iss` and state checks.
 * - `signInWithLoopback(...)`: the whole round trip (listener, browser, exchange), with a time limit.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DesktopSignInTokens } from '../ipc/common/channels.js';

/** The public client of the app at the realm. */
export const DESKTOP_CLIENT_ID = 'svc-frontend';
/** The realm's path on the gateway. */
export const REALM_PATH = '/idp/realms/svc';
/** Scopes asked for (ID token, email and profile claims, a refresh token). */
export const DESKTOP_SCOPES = 'openid email profile offline_access';
/** Longest wait for the user to finish signing in in the browser, ms. */
export const LOOPBACK_TIMEOUT_MS = 10 * 60_000;

/** One authorization request in flight. */
export interface LoopbackRequest {
  /** The URL to open in the system browser. */
  url: string;
  redirectUri: string;
  verifier: string;
  state: string;
  nonce: string;
}

/** base64url of `n` random bytes. */
function random(n: number): string {
  return randomBytes(n).toString('base64url');
}

/** The PKCE S256 challenge of `verifier` (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** The loopback redirect URI for `port` (RFC 8252 §7.3: the IP literal, not `localhost`). */
export function loopbackRedirectUri(port: number): string {
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new RangeError(`not a port: ${port}`);
  return `http://127.0.0.1:${port}/callback`;
}

/**
 * A fresh authorization request at the gateway `gatewayUrl` (`http(s)://host:port`) for the loopback
 * listener on `port`: a 32-byte verifier (43 characters), its S256 challenge, 16-byte state and nonce.
 */
export function newLoopbackRequest(gatewayUrl: string, port: number): LoopbackRequest {
  const redirectUri = loopbackRedirectUri(port);
  const verifier = random(32);
  const state = random(16);
  const nonce = random(16);
  const url = new URL(`${REALM_PATH}/protocol/openid-connect/auth`, gatewayUrl);
  url.search = new URLSearchParams({
    client_id: DESKTOP_CLIENT_ID, response_type: 'code', scope: DESKTOP_SCOPES, redirect_uri: redirectUri,
    code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256', state, nonce,
  }).toString();
  return { url: url.toString(), redirectUri, verifier, state, nonce };
}

/** Why a callback was refused. */
export class LoopbackError extends Error {
  /** `not_callback` (another path), `state_mismatch`, `issuer_mismatch`, `missing_code`, or the IdP's `error`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'LoopbackError';
    this.code = code;
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The code of a loopback redirect (the request target the listener got, e.g. `/callback?code=&state=`).
 * @param expectedIssuer when given, an `iss` parameter (RFC 9207) must equal it.
 * @throws LoopbackError `not_callback`, `state_mismatch` (checked first of all else: a forged or
 *   stale redirect says nothing), the IdP's `error` (e.g. `access_denied`), `issuer_mismatch`, `missing_code`.
 */
export function parseLoopbackCallback(target: string, expectedState: string, expectedIssuer?: string): { code: string } {
  const u = new URL(target, 'http://127.0.0.1');
  if (u.pathname !== '/callback') throw new LoopbackError('not_callback', 'not the sign-in callback');
  const state = u.searchParams.get('state') ?? '';
  if (!sameText(state, expectedState)) throw new LoopbackError('state_mismatch', 'the sign-in answer does not belong to this request');
  const error = u.searchParams.get('error');
  if (error) throw new LoopbackError(error, u.searchParams.get('error_description') ?? error);
  const iss = u.searchParams.get('iss');
  if (expectedIssuer !== undefined && iss !== null && iss !== expectedIssuer) throw new LoopbackError('issuer_mismatch', 'the sign-in answer came from another issuer');
  const code = u.searchParams.get('code');
  if (!code) throw new LoopbackError('missing_code', 'the sign-in answer has no code');
  return { code };
}

/** The token request body of the code exchange (public client, PKCE). */
export function codeExchangeBody(code: string, req: Pick<LoopbackRequest, 'redirectUri' | 'verifier'>): URLSearchParams {
  return new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: req.redirectUri, code_verifier: req.verifier, client_id: DESKTOP_CLIENT_ID });
}

/** The realm's tokens as the shell hands them to the renderer (the IPC contract's type). */
export type DesktopTokens = DesktopSignInTokens;

/** Options of `signInWithLoopback`. */
export interface LoopbackSignInOptions {
  /** The loopback gateway (`http://127.0.0.1:{port}`). */
  gatewayUrl: string;
  /** Open `url` in the system browser (Electron's `shell.openExternal`). */
  openBrowser: (url: string) => Promise<void>;
  /** The realm's issuer, to check the redirect's `iss` (optional). */
  issuer?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const PAGE = (text: string): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title></head><body style="font:16px system-ui;margin:3rem">${text}</body></html>`;

/**
 * Sign in through the system browser: listen on 127.0.0.1 (ephemeral port, one callback), open the
 * authorization URL, take the code, exchange it.
 * @throws LoopbackError (refused callback, `timeout`, `token_refused`).
 */
export async function signInWithLoopback(opts: LoopbackSignInOptions): Promise<DesktopTokens> {
  const doFetch = opts.fetch ?? fetch;
  let settle!: (v: { code: string } | LoopbackError) => void;
  const answered = new Promise<{ code: string } | LoopbackError>((r) => { settle = r; });
  let request: LoopbackRequest | null = null;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!request || req.method !== 'GET') { res.writeHead(404).end(); return; }
    try {
      const out = parseLoopbackCallback(req.url ?? '/', request.state, opts.issuer);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(PAGE('Signed in. You can close this tab and return to svc.'));
      settle(out);
    } catch (err) {
      const e = err as LoopbackError;
      if (e.code === 'not_callback') { res.writeHead(404).end(); return; }
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Sign-in failed. Return to svc and try again.'));
      // A forged redirect does not end the wait; an answer of the IdP (with our state) does.
      if (e.code !== 'state_mismatch') settle(e);
    }
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', () => resolve()); });
  const timer = setTimeout(() => settle(new LoopbackError('timeout', 'the sign-in in the browser was not finished in time')), opts.timeoutMs ?? LOOPBACK_TIMEOUT_MS);
  try {
    request = newLoopbackRequest(opts.gatewayUrl, (server.address() as AddressInfo).port);
    await opts.openBrowser(request.url);
    const out = await answered;
    if (out instanceof LoopbackError) throw out;
    const res = await doFetch(new URL(`${REALM_PATH}/protocol/openid-connect/token`, opts.gatewayUrl), {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: codeExchangeBody(out.code, request),
    });
    const body = await res.json().catch(() => ({})) as Partial<DesktopTokens> & { error?: string };
    if (!res.ok || typeof body.access_token !== 'string') throw new LoopbackError('token_refused', `the token endpoint refused the code (${body.error ?? res.status})`);
    return body as DesktopTokens;
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}
