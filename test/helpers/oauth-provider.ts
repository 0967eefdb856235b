/**
 * An external OAuth 2.0 / OIDC service for the OAuth integration tests (issue 18 item 1): a real
 * `oidc-provider` on an ephemeral loopback port with one confidential client (the runtime's
 * callback URL registered), refresh tokens issued (`issueRefreshToken`), short-lived access tokens
 * (so the runtime refreshes within a test), RFC 7009 revocation, a login page and a consent page of
 * its own. It records revocations, refreshes and grants so tests can prove what the runtime did,
 * and can revoke every grant (a refresh then fails) or stop.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { openDataKeyring } from '../../services/agent-runtime/src/store/secret-key.js';
import { unseal } from '../../services/agent-runtime/src/domain/secrets.js';

/** A running test provider. */
export interface OAuthTestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** One entry per POST to the revocation endpoint. */
  revocations: string[];
  /** Grants the provider revoked (a revoked refresh or access token revokes its grant). */
  readonly revokedGrants: number;
  /** Successful refresh-token grants. */
  refreshes: number;
  /** Usernames that signed in at the login page. */
  logins: string[];
  /** Destroy every grant (refresh tokens stop working). */
  revokeAllGrants(): Promise<void>;
  /** Whether `accessToken` is accepted by the provider's userinfo endpoint. */
  accepts(accessToken: string): Promise<boolean>;
  stop(): Promise<void>;
}

/** The test account at the provider. */
export const PROVIDER_USER = { sub: 'ext-user-1', username: 'ext-alice', password: 'ext-alice-password' };

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Start the provider; `redirectUris` are the runtime's callback URLs; access tokens live `accessTtlS` seconds. */
export async function startOAuthProvider(opts: { redirectUris: string[]; accessTtlS?: number }): Promise<OAuthTestProvider> {
  const clientId = 'svc-integration';
  const clientSecret = 'ext-client-secret-0123456789abcdef';
  const revocations: string[] = [];
  const logins: string[] = [];
  const grants = new Set<string>();
  let refreshes = 0;
  let revokedGrants = 0;
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => { s.statusCode = 503; s.end(); };
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'ext-1', alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    clients: [{
      client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris,
      response_types: ['code'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    jwks: { keys: [jwk] },
    findAccount: async (_ctx: unknown, id: string) => (id === PROVIDER_USER.sub ? { accountId: id, claims: async () => ({ sub: id, name: 'Ext Alice' }) } : undefined),
    claims: { openid: ['sub'], profile: ['name'] },
    scopes: ['openid', 'profile', 'files.read'],
    features: { devInteractions: { enabled: false }, revocation: { enabled: true } },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: opts.accessTtlS ?? 6, RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60, IdToken: 600 },
    rotateRefreshToken: true,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['ext-provider-test-cookie-key'] },
    pkce: { required: () => true },
  } as ConstructorParameters<typeof Provider>[1]);
  provider.on('grant.revoked', () => { revokedGrants++; });
  provider.on('grant.success', (...args: unknown[]) => { if ((args[0] as { oidc?: { params?: { grant_type?: string } } }).oidc?.params?.grant_type === 'refresh_token') refreshes++; });
  const callback = provider.callback();
  handler = (req, res) => {
    const m = /^\/interaction\/([\w-]+)(\/login|\/consent)?$/.exec((req.url ?? '').split('?')[0]!);
    if ((req.url ?? '').startsWith('/token/revocation') && req.method === 'POST') revocations.push('revocation');
    if (!m) { callback(req, res); return; }
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        const uid = details.uid;
        if (!m[2]) {
          res.setHeader('content-type', 'text/html; charset=utf-8');
          if (details.prompt.name === 'login') {
            res.end(`<!doctype html><title>Ext sign-in</title><h1>Ext service sign-in</h1>
<form method="post" action="/interaction/${uid}/login"><label>Username <input name="username" id="ext-username"></label>
<label>Password <input name="password" id="ext-password" type="password"></label><button type="submit" id="ext-login">Sign in</button></form>`);
          } else {
            res.end(`<!doctype html><title>Ext consent</title><h1>Allow the workstation to access your files?</h1>
<form method="post" action="/interaction/${uid}/consent"><button type="submit" id="ext-allow">Allow</button></form>`);
          }
          return;
        }
        const form = await formBody(req);
        if (m[2] === '/login') {
          if (form.get('username') !== PROVIDER_USER.username || form.get('password') !== PROVIDER_USER.password) {
            res.statusCode = 401; res.setHeader('content-type', 'text/html'); res.end('<p id="error">wrong username or password</p>'); return;
          }
          logins.push(PROVIDER_USER.username);
          await provider.interactionFinished(req, res, { login: { accountId: PROVIDER_USER.sub } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new provider.Grant({ accountId: String(details.session?.accountId), clientId: String(details.params['client_id']) });
        grant.addOIDCScope(String(details.params['scope'] ?? 'openid'));
        const grantId = await grant.save();
        grants.add(grantId);
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      } catch (err) {
        res.statusCode = 400; res.end(String((err as Error).message));
      }
    })();
  };
  return {
    issuer, clientId, clientSecret, revocations, logins,
    get refreshes() { return refreshes; },
    get revokedGrants() { return revokedGrants; },
    revokeAllGrants: async () => {
      for (const id of grants) { const g = await provider.Grant.find(id); if (g) await (g as unknown as { destroy(): Promise<void> }).destroy(); }
      grants.clear();
    },
    accepts: async (accessToken) => (await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status === 200,
    stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/**
 * The access token the runtime holds for (tenant, user, slug), opened from its database with its
 * own data key (to prove a refreshed token works at the provider). Null when none is stored.
 */
export async function storedAccessToken(dataDir: string, tenantId: string, userId: string, slug: string, databaseUrl: string | null = null): Promise<string | null> {
  type Sealed = { key_id: string; iv: Buffer; tag: Buffer; ciphertext: Buffer };
  let row: Sealed | undefined;
  if (databaseUrl) {
    // The stack on PostgreSQL (issue 21 item 1): the runtime's schema `agent_runtime`.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      row = (await client.query<Sealed>('SELECT key_id, iv, tag, ciphertext FROM agent_runtime.oauth_connections WHERE tenant_id = $1 AND user_id = $2 AND slug = $3', [tenantId, userId, slug])).rows[0];
    } finally {
      await client.end();
    }
  } else {
    const db = new Database(join(dataDir, 'db', 'agent-runtime.sqlite'), { readonly: true });
    try {
      row = db.prepare('SELECT * FROM oauth_connections WHERE tenant_id = ? AND user_id = ? AND slug = ?').get(tenantId, userId, slug) as Sealed | undefined;
    } finally {
      db.close();
    }
  }
  if (!row) return null;
  const ring = await openDataKeyring(dataDir, { mode: 'file' });
  const key = ring.key(row.key_id);
  if (!key) return null;
  const aad = Buffer.from(JSON.stringify(['oauth', tenantId, userId, slug]), 'utf8');
  return (JSON.parse(unseal(key, aad, row)) as { access_token: string }).access_token;
}
