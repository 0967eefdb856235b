/**
 * Issue 15 item 1: the realm's UserInfo endpoint (`{issuer}/protocol/openid-connect/userinfo`,
 * OpenID Connect Core §5.3) answers for the realm's user access tokens, which carry
 * `aud: svc-frontend` (oidc-provider's own userinfo would refuse them), through the gateway: the
 * standard claims for a valid token (header or form body, GET or POST); 401 with
 * `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 §3.1) for a service token (another
 * audience), an expired token signed by the realm's own key, a token signed by a foreign key, garbage,
 * no token, and the token of an account disabled after it was issued.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { pkceSignIn } from '../helpers/idp-pkce.js';

let stack: TestStack;
let issuer: string;
let userinfo: string;

before(async () => {
  stack = await startStack();
  issuer = `${stack.url}/idp/realms/svc`;
  userinfo = `${issuer}/protocol/openid-connect/userinfo`;
});
after(async () => { await stack?.stop(); });

async function ask(token: string | null, how: 'get' | 'post-header' | 'post-form' = 'get'): Promise<{ status: number; body: Record<string, unknown>; challenge: string | null }> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (token !== null && how !== 'post-form') headers.authorization = `Bearer ${token}`;
  if (how === 'post-form') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(token === null ? {} : { access_token: token }).toString();
  }
  const r = await fetch(userinfo, { method: how === 'get' ? 'GET' : 'POST', headers, body });
  return { status: r.status, body: await r.json() as Record<string, unknown>, challenge: r.headers.get('www-authenticate') };
}

function assertInvalidToken(r: Awaited<ReturnType<typeof ask>>, what: string): void {
  assert.equal(r.status, 401, `${what}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.error, 'invalid_token', what);
  assert.match(r.challenge ?? '', /^Bearer realm="svc", error="invalid_token"/, what);
  assert.equal(r.body.email, undefined, `${what}: no claims`);
}

test('discovery names our userinfo endpoint', async () => {
  const d = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
  assert.equal(d.userinfo_endpoint, userinfo);
});

test('a realm access token (password login and PKCE) gets the standard claims, by header or form body', async () => {
  const fromLogin = await login(stack.url, ADMIN.email, ADMIN.password);
  const { tokens } = await pkceSignIn(stack.url, ADMIN.email, ADMIN.password);
  for (const [token, how] of [[fromLogin, 'get'], [tokens.access_token, 'get'], [fromLogin, 'post-header'], [tokens.access_token, 'post-form']] as const) {
    const r = await ask(token, how);
    assert.equal(r.status, 200, `${how}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.email, ADMIN.email);
    assert.equal(r.body.preferred_username, ADMIN.email);
    assert.equal(r.body.email_verified, false);
    assert.equal(typeof r.body.name, 'string');
    assert.equal(typeof r.body.sub, 'string');
    assert.deepEqual(r.body.groups, []);
    assert.ok((r.body.realm_access as { roles: string[] }).roles.includes('admin'));
  }
  const twice = await fetch(userinfo, {
    method: 'POST', headers: { authorization: `Bearer ${fromLogin}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ access_token: fromLogin }).toString(),
  });
  assert.equal(twice.status, 400, 'RFC 6750 §2: one token in one place');
});

test('a service token (audience svc-internal), a forged, an expired, a garbage and a missing token are refused', async () => {
  assertInvalidToken(await ask(await stack.serviceToken('gateway')), 'service token');
  assertInvalidToken(await ask('not.a.jwt'), 'garbage');
  assertInvalidToken(await ask(null), 'no token');
  assertInvalidToken(await ask(null, 'post-form'), 'no token in the form');

  const realmKeys = JSON.parse(readFileSync(join(stack.dataDir, 'keys', 'idp-realm-keys.json'), 'utf8')) as { keys: JWK[] };
  const signing = realmKeys.keys[0]!;
  const claims = { sub: 'someone', scope: 'openid email profile', email: ADMIN.email };
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signing.kid! })
    .setIssuer(issuer).setAudience('svc-frontend').setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(await importJWK(signing, 'ES256'));
  const r = await ask(expired);
  assertInvalidToken(r, 'expired');
  assert.match(String(r.body.error_description), /expired/);

  const foreign = (await generateKeyPair('ES256')).privateKey;
  const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signing.kid! })
    .setIssuer(issuer).setAudience('svc-frontend').setIssuedAt(now).setExpirationTime(now + 600).sign(foreign);
  assertInvalidToken(await ask(forged), 'signed by a foreign key');
  const wrongIssuer = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: signing.kid! })
    .setIssuer(`${stack.url}/auth`).setAudience('svc-frontend').setIssuedAt(now).setExpirationTime(now + 600).sign(await importJWK(signing, 'ES256'));
  assertInvalidToken(await ask(wrongIssuer), 'another issuer');
});

test('the token of an account disabled after sign-in is refused', async () => {
  const admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const created = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'uma@example.com', display_name: 'Uma', password: 'uma password 123', roles: ['user'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const uma = await login(stack.url, 'uma@example.com', 'uma password 123');
  const ok = await ask(uma);
  assert.equal(ok.status, 200);
  assert.equal(ok.body.sub, created.body.id);
  assert.deepEqual((ok.body.realm_access as { roles: string[] }).roles, ['user']);
  assert.equal((await callJson(stack.url, admin, 'PATCH', `/v1/admin/users/${String(created.body.id)}`, { disabled: true })).status, 200);
  assertInvalidToken(await ask(uma), 'disabled account');
});
