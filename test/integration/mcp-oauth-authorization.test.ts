/**
 * MCP authorization on the full stack (issue 17 item 3; MCP "Authorization"): a streamable HTTP MCP
 * server protected by OAuth (the SDK's own authorization server parts, test/helpers/mcp-oauth-server.ts)
 * is registered by an admin; before anyone authorizes, a health check fails with the authorization
 * message; `POST /v1/user/mcp-servers/{id}/authorize` answers `pending` with an authorization URL
 * (dynamic client registration, PKCE S256, the resource indicator, our callback); the browser's
 * redirect to `/v1/oauth/mcp/callback` through the gateway (no bearer) finishes it; the server's tool
 * then answers as the user; a replayed or forged state is refused; another user is not authorized by
 * it; `DELETE .../authorization` forgets the tokens. Tokens never appear in answers.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startOAuthMcpServer, type OAuthMcpServer } from '../helpers/mcp-oauth-server.js';

let stack: TestStack;
let mcp: OAuthMcpServer;
let admin: string;
let serverId = '';
/** The runtime's callback URL, as its authorization requests carry it. */
let redirectUri = '';

const api = (token: string, method: string, path: string, body?: unknown) => callJson(stack.url, token, method, path, body);

/** The user's browser at the authorization URL: the test authorization server approves and redirects; returns the redirect target. */
async function approve(authorizationUrl: string): Promise<URL> {
  const r = await fetch(authorizationUrl, { redirect: 'manual' });
  assert.equal(r.status, 302, `authorization answered ${r.status}`);
  return new URL(r.headers.get('location')!);
}

before(async () => {
  mcp = await startOAuthMcpServer();
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const s = await api(admin, 'POST', '/v1/admin/mcp-servers', { name: 'oauth-kb', transport: 'streamable_http', url: mcp.url });
  assert.equal(s.status, 201, JSON.stringify(s.body));
  serverId = s.body.id;
});
after(async () => { await stack?.stop(); await mcp?.close(); });

test('an OAuth-protected MCP server is authorized through the browser and the callback, then answers as the user', async () => {
  const before = await api(admin, 'GET', `/v1/user/mcp-servers/${serverId}/authorization`);
  assert.equal(before.status, 200, JSON.stringify(before.body));
  assert.equal(before.body.status, 'not_authorized');

  const start = await api(admin, 'POST', `/v1/user/mcp-servers/${serverId}/authorize`);
  assert.equal(start.status, 200, JSON.stringify(start.body));
  assert.equal(start.body.status, 'pending');
  const authUrl = new URL(start.body.authorization_url);
  assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(authUrl.searchParams.get('code_challenge'));
  assert.equal(authUrl.searchParams.get('resource'), mcp.url);
  redirectUri = authUrl.searchParams.get('redirect_uri')!;
  assert.match(redirectUri, /\/v1\/oauth\/mcp\/callback$/);
  assert.ok(mcp.seen.includes('register'), 'the runtime registered itself dynamically');

  const back = await approve(authUrl.href);
  assert.equal(back.pathname, '/v1/oauth/mcp/callback');
  const state = back.searchParams.get('state')!;
  // The callback through the gateway: no bearer, the state is the credential; a browser gets HTML.
  const cb = await fetch(`${stack.url}${back.pathname}${back.search}`, { headers: { accept: 'text/html' } });
  const html = await cb.text();
  assert.equal(cb.status, 200, html);
  assert.match(html, /data-status="connected"/);
  assert.ok(mcp.seen.includes('token'), 'the code was redeemed');

  const after = await api(admin, 'GET', `/v1/user/mcp-servers/${serverId}/authorization`);
  assert.equal(after.body.status, 'authorized');
  assert.ok(after.body.authorized_at);
  assert.doesNotMatch(JSON.stringify(after.body), /access_token|refresh_token/);

  const tools = await api(admin, 'GET', `/v1/user/mcp-servers/${serverId}/tools`);
  assert.equal(tools.status, 200, JSON.stringify(tools.body));
  assert.ok(tools.body.items.some((t: { tool: string }) => t.tool === 'whoami'));
  const health = await api(admin, 'POST', `/v1/user/mcp-servers/${serverId}/health`);
  assert.equal(health.body.ok, true, JSON.stringify(health.body));
  assert.ok(mcp.seen.includes('mcp ok'), 'a request passed the bearer check');

  // The same state again (a replay) finds nothing.
  const replay = await fetch(`${stack.url}/v1/oauth/mcp/callback?state=${encodeURIComponent(state)}&code=x`);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json() as { code: string }).code, 'oauth_state_invalid');
});

test('a forged state is refused; another user is not authorized by someone else\'s tokens', async () => {
  const forged = await fetch(`${stack.url}/v1/oauth/mcp/callback?state=forged-state-value&code=abc`);
  assert.equal(forged.status, 400);
  assert.equal((await forged.json() as { code: string }).code, 'oauth_state_invalid');
  const missing = await fetch(`${stack.url}/v1/oauth/mcp/callback`);
  assert.equal(missing.status, 400);

  const u = await api(admin, 'POST', '/v1/admin/users', { email: 'mcp-oauth-u2@example.test', display_name: 'U2', password: 'u2-long-password-ok', roles: ['user'] });
  assert.equal(u.status, 201, JSON.stringify(u.body));
  const other = await login(stack.url, 'mcp-oauth-u2@example.test', 'u2-long-password-ok');
  const st = await api(other, 'GET', `/v1/user/mcp-servers/${serverId}/authorization`);
  assert.equal(st.body.status, 'not_authorized');
  const h = await api(other, 'POST', `/v1/user/mcp-servers/${serverId}/health`);
  assert.equal(h.body.ok, false);
  assert.match(h.body.error, /authoriz/i);
  const start = await api(other, 'POST', `/v1/user/mcp-servers/${serverId}/authorize`);
  assert.equal(start.body.status, 'pending');
});

test('forgetting the authorization drops the tokens: the server needs the user again', async () => {
  const del = await api(admin, 'DELETE', `/v1/user/mcp-servers/${serverId}/authorization`);
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.equal(del.body.status, 'not_authorized');
  const h = await api(admin, 'POST', `/v1/user/mcp-servers/${serverId}/health`);
  assert.equal(h.body.ok, false);
  assert.match(h.body.error, /authoriz/i);
});

test('an admin\'s pre-registered client is used instead of dynamic registration; its secret must be a reference', async () => {
  const literal = await api(admin, 'POST', '/v1/admin/mcp-servers', { name: 'oauth-pre-bad', transport: 'streamable_http', url: mcp.url, oauth_client: { client_id: 'x', client_secret: 'plain-secret' } });
  assert.equal(literal.status, 400, JSON.stringify(literal.body));

  const pre = await mcp.preregister(redirectUri);
  assert.equal((await api(admin, 'PUT', '/v1/admin/tenant-secrets/MCP_PRE_SECRET', { value: pre.client_secret })).status, 201);
  const s = await api(admin, 'POST', '/v1/admin/mcp-servers', { name: 'oauth-pre', transport: 'streamable_http', url: mcp.url, oauth_client: { client_id: pre.client_id, client_secret: '${secret:MCP_PRE_SECRET}' } });
  assert.equal(s.status, 201, JSON.stringify(s.body));
  assert.deepEqual(s.body.oauth_client, { client_id: pre.client_id, client_secret: '${secret:MCP_PRE_SECRET}' });
  const registrations = mcp.seen.filter((x) => x === 'register').length;
  const start = await api(admin, 'POST', `/v1/user/mcp-servers/${s.body.id}/authorize`);
  assert.equal(start.body.status, 'pending', JSON.stringify(start.body));
  assert.equal(new URL(start.body.authorization_url).searchParams.get('client_id'), pre.client_id);
  const back = await approve(start.body.authorization_url);
  const cb = await fetch(`${stack.url}${back.pathname}${back.search}`);
  assert.equal(cb.status, 200, await cb.text());
  assert.equal((await api(admin, 'GET', `/v1/user/mcp-servers/${s.body.id}/authorization`)).body.status, 'authorized');
  assert.equal(mcp.seen.filter((x) => x === 'register').length, registrations, 'no dynamic registration');
  assert.doesNotMatch(JSON.stringify((await api(admin, 'GET', `/v1/admin/mcp-servers/${s.body.id}`)).body), new RegExp(pre.client_secret));
});

