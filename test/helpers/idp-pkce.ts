/**
 * Drive the embedded IdP's authorization code + PKCE flow over HTTP the way a browser does (issue 15
 * item 1): authorization request -> the interaction's sign-in page -> its login form post -> resume ->
 * the redirect with the code -> the token request. A small cookie jar keeps the IdP's cookies
 * (paths ignored: every cookie name of oidc-provider is distinct). Used by the idp-* tests and
 * bench/idp-pkce.ts.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Cookies by name. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** Take the Set-Cookie headers of `res`. */
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      if (eq <= 0) continue;
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The Cookie header value. */
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** A GET or form POST with the jar, never following redirects. */
export async function jarFetch(jar: CookieJar, url: string, form?: Record<string, string>): Promise<Response> {
  const headers: Record<string, string> = { cookie: jar.header() };
  const init: RequestInit = { redirect: 'manual', headers };
  if (form) {
    init.method = 'POST';
    headers['content-type'] = 'application/x-www-form-urlencoded';
    init.body = new URLSearchParams(form).toString();
  }
  const res = await fetch(url, init);
  jar.take(res);
  return res;
}

/** PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Where a sign-in ended. */
export interface PkceSignIn {
  /** The token response. */
  tokens: { access_token: string; refresh_token?: string; id_token?: string; token_type: string; expires_in: number; scope?: string };
  /** The redirect that carried the code. */
  callback: URL;
}

function abs(base: string, location: string | null): string {
  if (!location) throw new Error('redirect without a Location');
  return new URL(location, base).href;
}

/**
 * Sign in through the realm with `username`/`password` (an account without a second factor).
 * @param baseUrl the public URL (the gateway).
 * @param redirectUri a redirect URI of `svc-frontend` (`{publicUrl}/login/callback` or a loopback one).
 * @throws Error naming the step that answered unexpectedly.
 */
export async function pkceSignIn(baseUrl: string, username: string, password: string, redirectUri = `${baseUrl}/login/callback`): Promise<PkceSignIn> {
  const issuer = `${baseUrl}/idp/realms/svc`;
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(12).toString('base64url');
  const q = new URLSearchParams({
    client_id: 'svc-frontend', response_type: 'code', redirect_uri: redirectUri, scope: 'openid email profile offline_access',
    code_challenge: challenge, code_challenge_method: 'S256', state, nonce: randomBytes(12).toString('base64url'),
  });
  const auth = await jarFetch(jar, `${issuer}/protocol/openid-connect/auth?${q}`);
  if (auth.status !== 303 && auth.status !== 302) throw new Error(`authorization request: ${auth.status} ${await auth.text()}`);
  const interactionUrl = abs(baseUrl, auth.headers.get('location'));
  const page = await jarFetch(jar, interactionUrl);
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  if (page.status !== 200 || !csrf) throw new Error(`interaction page: ${page.status}`);
  const posted = await jarFetch(jar, `${interactionUrl}/login`, { username, password, csrf });
  if (posted.status !== 303) throw new Error(`login post: ${posted.status} ${(await posted.text()).slice(0, 300)}`);
  let next = abs(baseUrl, posted.headers.get('location'));
  for (let hops = 0; hops < 5 && !next.startsWith(redirectUri); hops++) {
    const r = await jarFetch(jar, next);
    if (r.status !== 303 && r.status !== 302) throw new Error(`resume: ${r.status} ${(await r.text()).slice(0, 300)}`);
    next = abs(baseUrl, r.headers.get('location'));
  }
  const callback = new URL(next);
  const code = callback.searchParams.get('code');
  if (!code || callback.searchParams.get('state') !== state) throw new Error(`callback without code: ${callback.href}`);
  const tr = await fetch(`${issuer}/protocol/openid-connect/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'svc-frontend', code_verifier: verifier }).toString(),
  });
  if (tr.status !== 200) throw new Error(`token request: ${tr.status} ${await tr.text()}`);
  return { tokens: await tr.json() as PkceSignIn['tokens'], callback };
}
