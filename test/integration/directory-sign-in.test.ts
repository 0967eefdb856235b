/**
 * Issue 15 item 3 "a user from the directory signs in and gets the roles their groups map to": the
 * whole stack (gateway, auth, dirauth) with DIRAUTH_* pointing at a real Debian slapd loaded from
 * test/fixtures/ldap/directory.ldif. `POST /v1/auth/login` for a directory user goes gateway -> auth
 * -> dirauth (service stamp) -> LDAP search and bind, and auth issues its own token (issuer
 * `{public_url}/auth`, `auth_method: "password"`) for a provisioned local record. Wrong directory
 * passwords are throttled like local ones; filter injection finds nobody; an outage is a 503 with
 * a code, quickly; local accounts are unaffected; the phone second factor still applies.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { serviceStamp } from '../../services/shared/identity/service-stamp.js';
import { LDAP_USERS, slapdMissing, startSlapd, type Slapd } from '../helpers/slapd.js';

const skip = slapdMissing() ?? false;
const TIMEOUT_MS = 400;
const PRINCIPAL_KEY = 'directory-sign-in-test-principal-key-0123456789';
let slapd: Slapd;
let stack: TestStack;

async function post(path: string, body: unknown): Promise<JsonAnswer> {
  const r = await fetch(stack.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  return { status: r.status, body: parsed, headers: r.headers };
}
const signIn = (username: string, password: string): Promise<JsonAnswer> => post('/v1/auth/login', { username, password });
const signInPath = (path: string, body: unknown): Promise<JsonAnswer> => post(path, body);

before(async () => {
  if (skip) return;
  slapd = await startSlapd();
  stack = await startStack({
    ...slapd.env, DIRAUTH_LDAP_TIMEOUT_MS: String(TIMEOUT_MS), SVC_PRINCIPAL_KEYS: PRINCIPAL_KEY,
    SVC_GROUP_ROLE_MAP: 'Platform Admins:admin,Engineering:user', SVC_LOGIN_MAX_FAILURES_PER_ACCOUNT: '2',
  });
});
after(async () => { await stack?.stop(); await slapd?.dispose(); });

test('a directory user signs in through the gateway and gets the roles their groups map to', { skip }, async () => {
  const r = await signIn('alice', LDAP_USERS.alice.password);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const claims = decodeJwt(r.body.access_token as string);
  assert.equal(claims.iss, `${stack.url}/auth`);
  assert.equal(claims.auth_method, 'password');
  assert.equal(claims.email, 'alice@example.test');
  assert.equal(claims.name, 'Alice Example');
  assert.deepEqual((claims.realm_access as { roles: string[] }).roles.sort(), ['admin', 'user']);
  assert.deepEqual(claims.groups, ['Engineering', 'Platform Admins']);
  // The groups claim survives refresh (kept with the provisioned account, not only in the login).
  const refreshed = await post('/v1/auth/refresh', { refresh_token: r.body.refresh_token });
  assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
  assert.deepEqual(decodeJwt(refreshed.body.access_token as string).groups, ['Engineering', 'Platform Admins']);
  const me = await callJson(stack.url, r.body.access_token as string, 'GET', '/v1/user/me');
  assert.equal(me.status, 200);
  assert.equal(me.body.email, 'alice@example.test');
  assert.ok((me.body.roles as string[]).includes('admin'));
  // The mapped admin role works at an admin route.
  assert.equal((await callJson(stack.url, r.body.access_token as string, 'GET', '/v1/admin/users/second-factor')).status, 200);

  // Bob's groups map to `user` only: no admin route; signing in by mail works as well.
  const bob = await signIn('Bob@Example.test', LDAP_USERS.bob.password);
  assert.equal(bob.status, 200, JSON.stringify(bob.body));
  assert.deepEqual((decodeJwt(bob.body.access_token as string).realm_access as { roles: string[] }).roles, ['user']);
  assert.equal((await callJson(stack.url, bob.body.access_token as string, 'GET', '/v1/admin/users/second-factor')).status, 403);

  // The provisioned record holds no password: the directory stays the only way in.
  const again = await signIn('alice@example.test', LDAP_USERS.alice.password);
  assert.equal(again.status, 200);
  assert.equal(decodeJwt(again.body.access_token as string).sub, claims.sub, 'the same local account is reused');
});

test('a filter-injection username finds nobody', { skip }, async () => {
  for (const u of ['*)(uid=*', '*']) {
    const r = await signIn(u, LDAP_USERS.alice.password);
    assert.equal(r.status, 401, u);
    assert.equal(r.body.code, 'invalid_credentials');
  }
});

test('local accounts are unaffected, and a directory entry cannot take over a local account by email', { skip }, async () => {
  assert.ok(await login(stack.url, ADMIN.email, ADMIN.password));
  const wrong = await signIn(ADMIN.email, 'not the local password');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.code, 'invalid_credentials');
  // `clash` has mail admin@example.com in the directory: refused after its directory password.
  const clash = await signIn('clash', LDAP_USERS.clash.password);
  assert.equal(clash.status, 409);
  assert.equal(clash.body.code, 'directory_account_conflict');
  const token = await login(stack.url, ADMIN.email, ADMIN.password);
  assert.deepEqual((decodeJwt(token).realm_access as { roles: string[] }).roles.includes('admin'), true);
});

test('a directory entry without mail is refused with a clear code', { skip }, async () => {
  const r = await signIn('nomail', LDAP_USERS.nomail.password);
  assert.equal(r.status, 403);
  assert.equal(r.body.code, 'directory_email_missing');
});

test('the phone second factor applies to directory users', { skip }, async () => {
  const admin = await login(stack.url, ADMIN.email, ADMIN.password);
  assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/users/second-factor', { enforced: true })).status, 200);
  try {
    const bob = await signIn('bob', LDAP_USERS.bob.password);
    assert.equal(bob.status, 202, JSON.stringify(bob.body));
    assert.equal(typeof bob.body.challenge_id, 'string');
    assert.equal(bob.body.access_token, undefined);
  } finally {
    assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/users/second-factor', { enforced: false })).status, 200);
  }
});

test('dirauth verifies only for the auth service', { skip }, async () => {
  const dirauth = stack.sup.status().find((s) => s.name === 'dirauth')!;
  // Issue 15 item 4: a direct call needs a service token before anything else.
  const bare = await fetch(`${dirauth.url}/v1/internal/directory/verify`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password: LDAP_USERS.alice.password }),
  });
  assert.equal(bare.status, 401);
  assert.equal(((await bare.json()) as { code: string }).code, 'service_token_missing');
  const bearer = async (svc: 'auth' | 'gateway'): Promise<string> => `Bearer ${await stack.serviceToken(svc)}`;
  const r = await fetch(`${dirauth.url}/v1/internal/directory/verify`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: await bearer('auth') }, body: JSON.stringify({ username: 'alice', password: LDAP_USERS.alice.password }),
  });
  assert.equal(r.status, 401);
  assert.equal(((await r.json()) as { code: string }).code, 'principal_missing');
  // Another service's genuine stamp is refused too: only `service:auth` may verify passwords.
  const asGateway = await fetch(`${dirauth.url}/v1/internal/directory/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: await bearer('gateway'), 'x-svc-principal': serviceStamp('gateway', 'acme', [PRINCIPAL_KEY])() },
    body: JSON.stringify({ username: 'alice', password: LDAP_USERS.alice.password }),
  });
  assert.equal(asGateway.status, 403);
  assert.equal(((await asGateway.json()) as { code: string }).code, 'forbidden');
  const asAuth = await fetch(`${dirauth.url}/v1/internal/directory/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: await bearer('auth'), 'x-svc-principal': serviceStamp('auth', 'acme', [PRINCIPAL_KEY])() },
    body: JSON.stringify({ username: 'alice', password: LDAP_USERS.alice.password }),
  });
  assert.equal(asAuth.status, 200);
  assert.deepEqual(((await asAuth.json()) as { groups: string[] }).groups, ['Engineering', 'Platform Admins']);
  const jwks = await fetch(`${dirauth.url}/.well-known/jwks.json`, { headers: { authorization: await bearer('gateway') } });
  assert.deepEqual(await jwks.json(), { keys: [] });
  // The gateway publishes dirauth's JWKS but routes nothing to the verify route.
  assert.deepEqual(await (await fetch(`${stack.url}/dirauth/.well-known/jwks.json`)).json(), { keys: [] });
  const viaGateway = await signInPath('/v1/internal/directory/verify', { username: 'alice', password: LDAP_USERS.alice.password });
  assert.notEqual(viaGateway.status, 200);
  assert.equal(viaGateway.body?.dn, undefined);
});

test('wrong directory passwords are throttled like local ones', { skip }, async () => {
  const codes: Array<[number, string]> = [];
  for (let i = 0; i < 4; i++) {
    const r = await signIn('bob', 'wrong directory password');
    codes.push([r.status, r.body.code as string]);
    if (r.status === 429) {
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      break;
    }
  }
  assert.deepEqual(codes.slice(0, 2), [[401, 'invalid_credentials'], [401, 'invalid_credentials']]);
  assert.deepEqual(codes.at(-1), [429, 'login_throttled']);
  // Even the right password waits while the account is throttled from this address.
  const right = await signIn('bob', LDAP_USERS.bob.password);
  assert.equal(right.status, 429);
});

test('a stopped directory gives 503 directory_unavailable within the timeout, and sign-in resumes after', { skip }, async () => {
  await slapd.stop();
  try {
    const t0 = Date.now();
    const r = await signIn('alice', LDAP_USERS.alice.password);
    const took = Date.now() - t0;
    assert.equal(r.status, 503, JSON.stringify(r.body));
    assert.equal(r.body.code, 'directory_unavailable');
    assert.ok(took < TIMEOUT_MS * 3 + 1000, `took ${took} ms`);
  } finally {
    await slapd.start();
  }
  const back = await signIn('alice', LDAP_USERS.alice.password);
  assert.equal(back.status, 200, JSON.stringify(back.body));
});
