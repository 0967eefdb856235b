/**
 * A company's own OpenID Connect provider for brokering tests (issue 15 item 2): a second,
 * independent `oidc-provider` on an ephemeral loopback port, with its own client, accounts, keys and
 * a simple login page of its own (`GET /interaction/{uid}` form, `POST /interaction/{uid}/login`).
 * Real software, not a double: discovery, authorization with PKCE, token, userinfo and JWKS are
 * oidc-provider's.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** An account at the company IdP. */
export interface CompanyUser {
  sub: string; password: string; email: string; email_verified?: boolean; name: string; preferred_username: string; groups: string[];
}

/** A running company IdP. */
export interface CompanyIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Sign-ins that reached the login page's POST, by username (to prove the user signed in there). */
  logins: string[];
  stop(): Promise<void>;
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Start the company IdP with one confidential client allowed `redirectUris`. */
export async function startCompanyIdp(opts: { redirectUris: string[]; users: CompanyUser[]; clientId?: string; clientSecret?: string }): Promise<CompanyIdp> {
  const clientId = opts.clientId ?? 'svc-workstation';
  const clientSecret = opts.clientSecret ?? 'company-client-secret-0123456789abcdef';
  const logins: string[] = [];
  let handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void = (_q, s) => { s.statusCode = 503; s.end(); };
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'company-1', alg: 'RS256', use: 'sig' };
  const byId = new Map(opts.users.map((u) => [u.sub, u]));
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris,
      response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: [jwk] },
    findAccount: async (_ctx: unknown, id: string) => {
      const u = byId.get(id);
      return u ? {
        accountId: id,
        claims: async () => ({ sub: u.sub, email: u.email, email_verified: u.email_verified ?? true, name: u.name, preferred_username: u.preferred_username, groups: u.groups }),
      } : undefined;
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['company-idp-test-cookie-key'] },
    pkce: { required: () => true },
  });
  const callback = provider.callback();
  handler = (req, res) => {
    const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec((req.url ?? '').split('?')[0]!);
    if (!m) { callback(req, res); return; }
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (!m[2]) {
          res.setHeader('content-type', 'text/html; charset=utf-8');
          res.end(`<!doctype html><title>Company sign-in</title><h1>Company sign-in</h1>
<form method="post" action="/interaction/${esc(details.uid)}/login"><label>Username <input name="username" id="username"></label>
<label>Password <input name="password" id="password" type="password"></label><button type="submit" id="company-submit">Sign in</button></form>`);
          return;
        }
        const form = await formBody(req);
        const user = opts.users.find((u) => u.preferred_username === form.get('username') && u.password === form.get('password'));
        if (!user) { res.statusCode = 401; res.setHeader('content-type', 'text/html'); res.end('<p id="error">wrong username or password</p>'); return; }
        logins.push(user.preferred_username);
        const grant = new provider.Grant({ accountId: user.sub, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope ?? 'openid'));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId: user.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
      } catch (err) {
        res.statusCode = 400; res.end(String((err as Error).message));
      }
    })();
  };
  return {
    issuer, clientId, clientSecret, logins,
    stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
