/**
 * Issue 15 item 1: signing in through the embedded IdP with authorization code + PKCE, over HTTP
 * through the gateway, with the IdP's own interaction page (test/helpers/idp-pkce.ts plays the
 * browser): the user access token is an ES256 JWT for `svc-frontend` with the pinned claims, the
 * gateway accepts it and its principal carries the account's roles; refresh tokens rotate (a spent
 * one is refused); the RFC 8252 loopback redirect works on any port; a foreign redirect URI and a
 * request without PKCE are refused; the `svc-web-password` client's password grant issues the same
 * kind of tokens and the token refreshes; a wrong password there is `invalid_grant`.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { CookieJar, jarFetch, pkcePair, pkceSignIn } from '../helpers/idp-pkce.js';

let stack: TestStack;
let issuer: string;
let jwks: ReturnType<typeof createLocalJWKSet>;

async function form(path: string, body: Record<string, string>, auth?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth) headers.authorization = auth;
  const r = await fetch(`${issuer}${path}`, { method: 'POST', headers, body: new URLSearchParams(body).toString() });
  return { status: r.status, body: await r.json() as Record<string, unknown> };
}

async function verifyUserToken(at: string): Promise<JWTPayload> {
  assert.equal(decodeProtectedHeader(at).alg, 'ES256');
  return (await jwtVerify(at, jwks, { issuer, audience: 'svc-frontend', algorithms: ['ES256'] })).payload;
}

before(async () => {
  stack = await startStack();
  issuer = `${stack.url}/idp/realms/svc`;
  jwks = createLocalJWKSet(await (await fetch(`${issuer}/protocol/openid-connect/certs`)).json() as JSONWebKeySet);
});
after(async () => { await stack?.stop(); });

test('PKCE sign-in gives a svc-frontend token the gateway accepts, with the account roles', async () => {
  const { tokens } = await pkceSignIn(stack.url, ADMIN.email, ADMIN.password);
  assert.equal(tokens.token_type, 'Bearer');
  assert.ok(tokens.refresh_token, 'a refresh token is issued');
  assert.ok(tokens.id_token, 'an ID token is issued');
  const claims = await verifyUserToken(tokens.access_token);
  assert.equal(claims.email, ADMIN.email);
  assert.deepEqual((claims.realm_access as { roles: string[] }).roles.includes('admin'), true);
  assert.deepEqual(claims.groups, []);
  assert.equal(claims.auth_method, 'password');
  assert.equal(claims.client_id, 'svc-frontend');
  assert.equal(typeof claims.sid, 'string');
  assert.equal(typeof claims.name, 'string');
  assert.equal(claims.upstream_iss, undefined);

  const v = await callJson(stack.url, tokens.access_token, 'GET', '/v1/auth/verify');
  assert.equal(v.status, 200, JSON.stringify(v.body));
  assert.equal(v.body.sub, claims.sub);
  assert.ok((v.body.roles as string[]).includes('admin'));
  // An admin route through the gateway, with the IdP's token.
  const users = await callJson(stack.url, tokens.access_token, 'GET', '/v1/admin/users');
  assert.equal(users.status, 200);

  // Refresh rotates; the spent refresh token is refused afterwards.
  const r1 = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'svc-frontend' });
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  assert.notEqual(r1.body.refresh_token, tokens.refresh_token);
  const again = await verifyUserToken(String(r1.body.access_token));
  assert.equal(again.sid, claims.sid, 'the session id survives a refresh');
  assert.equal(again.auth_method, 'password');
  const reuse = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: 'svc-frontend' });
  assert.equal(reuse.status, 400);
  assert.equal(reuse.body.error, 'invalid_grant');

  // Revocation endpoint: the rotated refresh token can be revoked, then no longer works.
  const rev = await fetch(`${issuer}/protocol/openid-connect/revoke`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: String(r1.body.refresh_token), client_id: 'svc-frontend' }).toString(),
  });
  assert.equal(rev.status, 200);
  const afterRevoke = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: String(r1.body.refresh_token), client_id: 'svc-frontend' });
  assert.equal(afterRevoke.body.error, 'invalid_grant');
});

test('the desktop shell signs in with an RFC 8252 loopback redirect on any port', async () => {
  const redirect = 'http://127.0.0.1:49813/callback';
  const { tokens, callback } = await pkceSignIn(stack.url, ADMIN.email, ADMIN.password, redirect);
  assert.equal(callback.origin, 'http://127.0.0.1:49813');
  assert.equal(callback.searchParams.get('iss'), issuer);
  const claims = await verifyUserToken(tokens.access_token);
  assert.equal(claims.email, ADMIN.email);
});

test('a foreign redirect URI and a request without PKCE are refused', async () => {
  const { challenge } = pkcePair();
  const base = { client_id: 'svc-frontend', response_type: 'code', scope: 'openid', state: 's' };
  const foreign = await jarFetch(new CookieJar(), `${issuer}/protocol/openid-connect/auth?${new URLSearchParams({ ...base, redirect_uri: 'https://evil.example/callback', code_challenge: challenge, code_challenge_method: 'S256' })}`);
  assert.equal(foreign.status, 400);
  assert.equal(foreign.headers.get('location'), null, 'never redirects to an unregistered URI');
  const noPkce = await jarFetch(new CookieJar(), `${issuer}/protocol/openid-connect/auth?${new URLSearchParams({ ...base, redirect_uri: `${stack.url}/login/callback` })}`);
  const loc = noPkce.headers.get('location') ?? '';
  assert.ok(noPkce.status === 400 || /error=invalid_request/.test(loc), `${noPkce.status} ${loc}`);
  assert.ok(!/code=/.test(loc));
  const plain = await jarFetch(new CookieJar(), `${issuer}/protocol/openid-connect/auth?${new URLSearchParams({ ...base, redirect_uri: `${stack.url}/login/callback`, code_challenge: challenge, code_challenge_method: 'plain' })}`);
  const ploc = plain.headers.get('location') ?? '';
  assert.ok(plain.status === 400 || /error=invalid_request/.test(ploc), `plain PKCE: ${plain.status} ${ploc}`);
});

test('the svc-web-password client signs in by password grant and refreshes; a wrong password is invalid_grant', async () => {
  const secrets = JSON.parse(readFileSync(`${stack.dataDir}/secrets/generated.json`, 'utf8')) as Record<string, string>;
  const secret = secrets['IDP_CLIENT_SECRET:svc-web-password'];
  assert.ok(secret);
  const basic = `Basic ${Buffer.from(`svc-web-password:${secret}`).toString('base64')}`;
  const ok = await form('/protocol/openid-connect/token', { grant_type: 'password', username: ADMIN.email, password: ADMIN.password }, basic);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const claims = await verifyUserToken(String(ok.body.access_token));
  assert.equal(claims.email, ADMIN.email);
  assert.equal(claims.auth_method, 'password');
  assert.ok((claims.realm_access as { roles: string[] }).roles.includes('admin'));
  const v = await callJson(stack.url, String(ok.body.access_token), 'GET', '/v1/auth/verify');
  assert.equal(v.status, 200);
  const refreshed = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: String(ok.body.refresh_token) }, basic);
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  assert.equal((await verifyUserToken(String(refreshed.body.access_token))).sid, claims.sid);

  const bad = await form('/protocol/openid-connect/token', { grant_type: 'password', username: ADMIN.email, password: 'wrong password here' }, basic);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'invalid_grant');
  assert.ok(!JSON.stringify(bad.body).includes('wrong password here'));
});

test('a password change or a disabled account ends the IdP sign-in: its refresh token stops working', async () => {
  const admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const created = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'rita@example.com', display_name: 'Rita', password: 'first password 123', roles: ['user'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = String(created.body.id);
  const a = await pkceSignIn(stack.url, 'rita@example.com', 'first password 123');
  const b = await pkceSignIn(stack.url, 'rita@example.com', 'first password 123');
  const claims = await verifyUserToken(a.tokens.access_token);
  assert.deepEqual((claims.realm_access as { roles: string[] }).roles, ['user']);
  const ok = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: a.tokens.refresh_token!, client_id: 'svc-frontend' });
  assert.equal(ok.status, 200, 'refresh works before the change');

  const changed = await callJson(stack.url, admin, 'PATCH', `/v1/admin/users/${id}`, { password: 'second password 456' });
  assert.equal(changed.status, 200);
  const refused = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: String(ok.body.refresh_token), client_id: 'svc-frontend' });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error, 'invalid_grant');

  const c = await pkceSignIn(stack.url, 'rita@example.com', 'second password 456');
  const disabled = await callJson(stack.url, admin, 'PATCH', `/v1/admin/users/${id}`, { disabled: true });
  assert.equal(disabled.status, 200);
  for (const rt of [b.tokens.refresh_token!, c.tokens.refresh_token!]) {
    const r = await form('/protocol/openid-connect/token', { grant_type: 'refresh_token', refresh_token: rt, client_id: 'svc-frontend' });
    assert.equal(r.body.error, 'invalid_grant');
  }
});
