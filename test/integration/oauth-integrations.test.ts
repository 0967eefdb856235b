/**
 * Per-user OAuth integrations on the full stack (issue 18 item 1; spec "Agent runtime surfaces":
 * `/v1/admin/oauth-providers/*`, `/v1/oauth/{slug}/start|callback|poll|status`, `DELETE
 * /v1/oauth/{slug}`), against a real `oidc-provider` as the external service (its own login and
 * consent pages walked over HTTP with a cookie jar): provider CRUD with a named tenant secret and
 * no secret in answers, non-admin 403; connect -> `connected`; a refresh happens unseen
 * (`last_refreshed_at` moves, the new access token works at the provider); forged, replayed and
 * expired states are refused with their codes; another user cannot see the flow; disconnect calls
 * the revocation endpoint; a revoked grant turns `needs_reconnect` with a notification.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { PROVIDER_USER, startOAuthProvider, storedAccessToken, type OAuthTestProvider } from '../helpers/oauth-provider.js';

let stack: TestStack;
let ext: OAuthTestProvider;
let admin: string;
let other: string;
let adminId = '';
const SLUG = 'ext';

const api = (token: string, method: string, path: string, body?: unknown) => callJson(stack.url, token, method, path, body);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function eventually<T>(fn: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(200);
  }
}

/** Walk the provider's login and consent pages over HTTP; @returns the callback URL it redirects to (not followed). */
async function authorize(authorizationUrl: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (r: Response): void => {
    for (const c of r.headers.getSetCookie()) { const [pair] = c.split(';'); const i = pair!.indexOf('='); jar.set(pair!.slice(0, i), pair!.slice(i + 1)); }
  };
  const cookie = (): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let url = authorizationUrl;
  for (let hop = 0; hop < 12; hop++) {
    if (url.startsWith(stack.url)) return url;
    let r = await fetch(url, { redirect: 'manual', headers: { cookie: cookie() } });
    keep(r);
    if (r.status === 200) {
      const html = await r.text();
      const action = /action="([^"]+)"/.exec(html)![1]!;
      const body = action.endsWith('/login') ? new URLSearchParams({ username: PROVIDER_USER.username, password: PROVIDER_USER.password }) : new URLSearchParams();
      r = await fetch(new URL(action, url), { method: 'POST', redirect: 'manual', body, headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' } });
      keep(r);
    }
    assert.ok(r.status >= 300 && r.status < 400, `provider hop answered ${r.status}`);
    url = new URL(r.headers.get('location')!, url).href;
  }
  throw new Error('too many hops');
}

before(async () => {
  stack = await startStack();
  ext = await startOAuthProvider({ redirectUris: [`${stack.url}/v1/oauth/${SLUG}/callback`], accessTtlS: 6 });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  adminId = (await api(admin, 'GET', '/v1/user/me')).body.id;
  const made = await api(admin, 'POST', '/v1/admin/users', { email: 'oauth-other@example.test', display_name: 'Other', password: 'other-long-password', roles: ['user'] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  other = await login(stack.url, 'oauth-other@example.test', 'other-long-password');
  assert.equal((await api(admin, 'PUT', '/v1/admin/tenant-secrets/ext-client-secret', { value: ext.clientSecret })).status, 201);
});

after(async () => {
  await stack?.stop();
  await ext?.stop();
});

test('provider admin CRUD: discovery from the issuer, 409/404, non-admin 403, never a secret value', async () => {
  assert.equal((await api(other, 'POST', '/v1/admin/oauth-providers', { slug: SLUG })).status, 403);
  assert.equal((await api(other, 'GET', '/v1/admin/oauth-providers')).status, 403);
  const body = { slug: SLUG, name: 'Ext files', issuer: ext.issuer, client_id: ext.clientId, client_secret_ref: 'ext-client-secret', scopes: ['openid', 'profile'] };
  const c = await api(admin, 'POST', '/v1/admin/oauth-providers', body);
  assert.equal(c.status, 201, JSON.stringify(c.body));
  assert.equal(c.body.authorization_endpoint, `${ext.issuer}/auth`);
  assert.equal(c.body.token_endpoint, `${ext.issuer}/token`);
  assert.equal(c.body.revocation_endpoint, `${ext.issuer}/token/revocation`);
  assert.equal(c.body.client_secret_ref, 'ext-client-secret');
  assert.equal((await api(admin, 'POST', '/v1/admin/oauth-providers', body)).body.code, 'provider_exists');
  const list = await api(admin, 'GET', '/v1/admin/oauth-providers');
  assert.deepEqual(list.body.providers.map((p: { slug: string }) => p.slug), [SLUG]);
  assert.ok(!JSON.stringify(list.body).includes(ext.clientSecret));
  const second = await api(admin, 'POST', '/v1/admin/oauth-providers', { slug: 'manual', authorization_endpoint: `${ext.issuer}/auth`, token_endpoint: `${ext.issuer}/token`, client_id: 'x', client_secret_ref: 'nope', scopes: [] });
  assert.equal(second.status, 201);
  assert.equal(second.body.issuer, null);
  const patched = await api(admin, 'PATCH', '/v1/admin/oauth-providers/manual', { name: 'Manual one' });
  assert.equal(patched.body.name, 'Manual one');
  const put = await api(admin, 'PUT', '/v1/admin/oauth-providers/manual', { slug: 'manual', authorization_endpoint: `${ext.issuer}/auth`, token_endpoint: `${ext.issuer}/token`, client_id: 'y', client_secret_ref: 'nope', scopes: ['a'] });
  assert.equal(put.body.client_id, 'y');
  assert.equal((await api(admin, 'DELETE', '/v1/admin/oauth-providers/manual')).status, 204);
  assert.equal((await api(admin, 'GET', '/v1/admin/oauth-providers/manual')).body.code, 'provider_not_found');
  assert.equal((await api(admin, 'POST', '/v1/admin/oauth-providers', { slug: 'bad', client_id: 'x', client_secret_ref: 'x', scopes: [] })).body.code, 'provider_invalid');
  const own = await api(admin, 'POST', '/v1/admin/oauth-providers', { slug: 'own', authorization_endpoint: `${stack.url}/auth`, token_endpoint: `${stack.url}/token`, client_id: 'x', client_secret_ref: 'x', scopes: [] });
  assert.equal(own.body.code, 'url_not_allowed');
  assert.equal((await api(admin, 'POST', '/v1/admin/oauth-providers', { slug: 'Bad Slug!', client_id: 'x', client_secret_ref: 'x', scopes: [] })).status, 400);
});

test('forged, replayed and expired states are refused with their codes; another user cannot see the flow', async () => {
  const forged = await fetch(`${stack.url}/v1/oauth/${SLUG}/callback?code=abc&state=forged-state-value`);
  assert.equal(forged.status, 400);
  assert.equal((await forged.json() as { code: string }).code, 'oauth_state_invalid');
  const html = await fetch(`${stack.url}/v1/oauth/${SLUG}/callback?code=abc&state=forged`, { headers: { accept: 'text/html' } });
  assert.equal(html.status, 400);
  assert.match(await html.text(), /data-code="oauth_state_invalid"/);

  const s = await api(admin, 'POST', `/v1/oauth/${SLUG}/start`);
  assert.equal(s.status, 200);
  const au = new URL(s.body.authorization_url);
  assert.equal(au.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(au.searchParams.get('redirect_uri'), `${stack.url}/v1/oauth/${SLUG}/callback`);
  assert.ok(Date.parse(s.body.expires_at) - Date.now() > 9 * 60_000);
  assert.equal((await api(admin, 'POST', `/v1/oauth/${SLUG}/poll`)).body.status, 'pending');
  // The other user sees none of it.
  const p2 = await api(other, 'POST', `/v1/oauth/${SLUG}/poll`);
  assert.deepEqual([p2.body.status, p2.body.done], ['disconnected', true]);
  assert.equal((await api(other, 'GET', `/v1/oauth/${SLUG}/status`)).body.status, 'disconnected');

  // Expired: move the flow's expiry into the past in the runtime's database.
  const state = au.searchParams.get('state')!;
  const expire = "UPDATE oauth_states SET expires_at = '2000-01-01T00:00:00.000Z' WHERE used_at IS NULL";
  if (stack.databaseUrl) {
    // The stack on PostgreSQL (issue 21 item 1): the runtime's schema `agent_runtime`.
    const client = new pg.Client({ connectionString: stack.databaseUrl, options: '-c search_path=agent_runtime' });
    await client.connect();
    await client.query(expire);
    await client.end();
  } else {
    const db = new Database(join(stack.dataDir, 'db', 'agent-runtime.sqlite'));
    db.prepare(expire).run();
    db.close();
  }
  const expired = await fetch(`${stack.url}/v1/oauth/${SLUG}/callback?code=abc&state=${encodeURIComponent(state)}`);
  assert.equal((await expired.json() as { code: string }).code, 'oauth_state_expired');
  const pe = await api(admin, 'POST', `/v1/oauth/${SLUG}/poll`);
  assert.deepEqual([pe.body.done, pe.body.error], [true, 'oauth_state_expired']);
});

test('connect, refresh unseen, replay refused, disconnect revokes, a revoked grant needs reconnecting and notifies', async () => {
  const s = await api(admin, 'POST', `/v1/oauth/${SLUG}/start`);
  const cb = await authorize(s.body.authorization_url);
  assert.deepEqual(ext.logins, [PROVIDER_USER.username]);
  // A state started by someone else is only the starter's: the callback completes the admin's flow.
  const r = await fetch(cb);
  assert.equal(r.status, 200, await r.clone().text());
  const poll = await api(admin, 'POST', `/v1/oauth/${SLUG}/poll`);
  assert.deepEqual([poll.body.status, poll.body.done], ['connected', true]);
  const st = await api(admin, 'GET', `/v1/oauth/${SLUG}/status`);
  assert.equal(st.body.status, 'connected');
  assert.ok(st.body.connected_at && st.body.expires_at);
  assert.equal(st.body.last_refreshed_at, null);
  assert.ok(!JSON.stringify(st.body).includes('access_token'));
  assert.equal((await api(other, 'GET', `/v1/oauth/${SLUG}/status`)).body.status, 'disconnected');

  const replay = await fetch(cb);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json() as { code: string }).code, 'oauth_state_used');

  const first = await storedAccessToken(stack.dataDir, 'acme', adminId, SLUG, stack.databaseUrl);
  assert.ok(first && await ext.accepts(first));
  const refreshed = await eventually(async () => {
    const x = await api(admin, 'GET', `/v1/oauth/${SLUG}/status`);
    return x.body.last_refreshed_at ? x.body : null;
  });
  assert.equal(refreshed.status, 'connected');
  assert.ok(ext.refreshes >= 1);
  const second = await storedAccessToken(stack.dataDir, 'acme', adminId, SLUG, stack.databaseUrl);
  assert.ok(second && second !== first);
  assert.ok(await ext.accepts(second), 'the refreshed access token works at the provider');
  const later = await eventually(async () => {
    const x = await api(admin, 'GET', `/v1/oauth/${SLUG}/status`);
    return x.body.last_refreshed_at && x.body.last_refreshed_at !== refreshed.last_refreshed_at ? x.body : null;
  });
  assert.equal(later.status, 'connected');

  const items = (await api(admin, 'GET', '/v1/user/integrations/status')).body.items as { id: string; state: string }[];
  assert.equal(items.find((i) => i.id === `oauth:${SLUG}`)?.state, 'connected');

  const d = await api(admin, 'DELETE', `/v1/oauth/${SLUG}`);
  assert.deepEqual(d.body, { slug: SLUG, status: 'disconnected', revoked: true });
  assert.ok(ext.revocations.length >= 1, 'the revocation endpoint was called');
  assert.ok(ext.revokedGrants >= 1, 'the provider revoked the grant');
  assert.equal((await api(admin, 'GET', `/v1/oauth/${SLUG}/status`)).body.status, 'disconnected');
  assert.equal(await storedAccessToken(stack.dataDir, 'acme', adminId, SLUG, stack.databaseUrl), null);

  // Reconnect, then the provider revokes the grant: the next refresh fails.
  const s2 = await api(admin, 'POST', `/v1/oauth/${SLUG}/start`);
  assert.equal((await fetch(await authorize(s2.body.authorization_url))).status, 200);
  assert.equal((await api(admin, 'GET', `/v1/oauth/${SLUG}/status`)).body.status, 'connected');
  await ext.revokeAllGrants();
  const broken = await eventually(async () => {
    const x = await api(admin, 'GET', `/v1/oauth/${SLUG}/status`);
    return x.body.status === 'needs_reconnect' ? x.body : null;
  });
  assert.equal(broken.slug, SLUG);
  const note = await eventually(async () => {
    const n = await api(admin, 'GET', '/v1/notifications');
    return (n.body.items as { kind: string; payload: { slug?: string } }[]).find((i) => i.kind === 'integration.needs_reconnect') ?? null;
  });
  assert.equal(note.payload.slug, SLUG);
  const otherNotes = await api(other, 'GET', '/v1/notifications');
  assert.ok(!(otherNotes.body.items as { kind: string }[]).some((i) => i.kind === 'integration.needs_reconnect'));
});
