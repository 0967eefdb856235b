/**
 * Issue 15 item 5, the server side of Admin → Identity, through the whole stack (gateway, auth,
 * dirauth) with a real Debian slapd:
 * - `GET /v1/admin/auth/dirauth` answers the directory settings without the bind password;
 *   `POST /v1/admin/auth/dirauth/test` binds with the search account (ok, latency), says
 *   `bind_failed` for a refused search account and `unavailable` quickly when the directory is down;
 *   both are for admins only.
 * - `GET|PUT /v1/admin/users/second-factor` persist the enforcement switch.
 * - every successful sign-in lands in the sign-in log (`GET /v1/admin/auth/sign-ins`, admins only,
 *   paginated): a local password, a directory password, a password plus the phone's code (with
 *   `second_factor: totp`), with the client address of the gateway's hop stamp; no secrets; a
 *   failed sign-in and a sign-in parked on its second factor leave no row.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { SimDevice } from '../helpers/second-factor.js';
import { LDAP_SEARCH, LDAP_SUFFIX, LDAP_USERS, slapdMissing, startSlapd, type Slapd } from '../helpers/slapd.js';
import { LdapDirectory } from '../../services/dirauth/src/clients/ldap.js';
import { DirectoryAdmin } from '../../services/dirauth/src/domain/admin.js';

const skip = slapdMissing() ?? false;
const TIMEOUT_MS = 400;
let slapd: Slapd;
let stack: TestStack;
let admin: string;

async function post(path: string, body: unknown): Promise<JsonAnswer> {
  const r = await fetch(stack.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
}
const get = (token: string, path: string): Promise<JsonAnswer> => callJson(stack.url, token, 'GET', path);
const postAs = async (token: string, path: string): Promise<JsonAnswer> => {
  const r = await fetch(stack.url + path, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
};
interface Row { id: number; at: string; user_id: string; email: string | null; method: string; second_factor: string | null; issuer: string | null; client_id: string | null; client_ip: string | null }
const rows = async (query = ''): Promise<{ items: Row[]; next_cursor?: string; counts: Array<{ method: string; count: number }> }> => {
  const r = await get(admin, `/v1/admin/auth/sign-ins${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
};

before(async () => {
  if (skip) return;
  slapd = await startSlapd();
  stack = await startStack({ ...slapd.env, DIRAUTH_LDAP_TIMEOUT_MS: String(TIMEOUT_MS), SVC_GROUP_ROLE_MAP: 'Engineering:user' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
});
after(async () => { await stack?.stop(); await slapd?.dispose(); });

test('the directory settings are shown without the bind password, and a test bind answers ok', { skip }, async () => {
  const s = await get(admin, '/v1/admin/auth/dirauth');
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.equal(s.body.configured, true);
  assert.equal(s.body.url, slapd.url);
  assert.equal(s.body.bind_dn, LDAP_SEARCH.dn);
  assert.equal(s.body.bind_password_set, true);
  assert.equal(s.body.timeout_ms, TIMEOUT_MS);
  assert.equal(s.body.user_filter, '(|(uid={username})(mail={username}))');
  assert.ok(!JSON.stringify(s.body).includes(LDAP_SEARCH.password), 'the bind password never leaves dirauth');
  assert.equal(s.headers.get('cache-control'), 'no-store');

  const t = await postAs(admin, '/v1/admin/auth/dirauth/test');
  assert.equal(t.status, 200, JSON.stringify(t.body));
  assert.equal(t.body.ok, true, JSON.stringify(t.body));
  assert.equal(typeof t.body.latency_ms, 'number');
  assert.ok(t.body.latency_ms >= 0 && t.body.latency_ms < TIMEOUT_MS * 3);
});

test('a refused search account is bind_failed, with words an admin can act on', { skip }, async () => {
  const settings = {
    url: slapd.url, bindDn: LDAP_SEARCH.dn, bindPassword: 'not-the-password', userBase: `ou=people,${LDAP_SUFFIX}`,
    userFilter: '(uid={username})', groupBase: null, caFile: null, startTls: false, timeoutMs: TIMEOUT_MS,
  };
  const warned: string[] = [];
  const a = new DirectoryAdmin({ settings, directory: new LdapDirectory(settings), now: () => performance.now(), log: { warn: (_o, m) => { warned.push(m); } } });
  const r = await a.test();
  assert.equal(r.ok, false);
  assert.equal(r.code, 'bind_failed');
  assert.match(r.error ?? '', /refused the search account/);
  assert.ok(!JSON.stringify(r).includes('not-the-password'));
  assert.equal(a.view().bind_password_set, true);
  assert.ok(!JSON.stringify(a.view()).includes('not-the-password'));
  // A user base that does not exist is unavailable, not ok.
  const missing = new DirectoryAdmin({ settings: { ...settings, bindPassword: LDAP_SEARCH.password, userBase: `ou=nowhere,${LDAP_SUFFIX}` }, directory: new LdapDirectory({ ...settings, bindPassword: LDAP_SEARCH.password, userBase: `ou=nowhere,${LDAP_SUFFIX}` }), now: () => performance.now(), log: { warn: () => {} } });
  const m = await missing.test();
  assert.equal(m.ok, false);
  assert.equal(m.code, 'unavailable');
});

test('a test bind against a stopped directory says unavailable quickly, never hangs', { skip }, async () => {
  await slapd.stop();
  try {
    const started = Date.now();
    const t = await postAs(admin, '/v1/admin/auth/dirauth/test');
    const took = Date.now() - started;
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal(t.body.ok, false);
    assert.equal(t.body.code, 'unavailable');
    assert.equal(typeof t.body.error, 'string');
    assert.ok(took < TIMEOUT_MS * 3 + 1500, `answered in ${took} ms`);
  } finally {
    await slapd.start();
  }
  assert.equal((await postAs(admin, '/v1/admin/auth/dirauth/test')).body.ok, true);
});

test('the identity admin routes are for admins only', { skip }, async () => {
  assert.equal((await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'plain@example.test', display_name: 'Plain', password: 'plain-password-long', roles: ['user'] })).status, 201);
  const user = await login(stack.url, 'plain@example.test', 'plain-password-long');
  for (const [method, path] of [['GET', '/v1/admin/auth/dirauth'], ['POST', '/v1/admin/auth/dirauth/test'], ['GET', '/v1/admin/auth/sign-ins'], ['GET', '/v1/admin/users/second-factor']] as const) {
    const r = method === 'GET' ? await get(user, path) : await postAs(user, path);
    assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const anon = await fetch(`${stack.url}/v1/admin/auth/sign-ins`);
  assert.equal(anon.status, 401);
});

test('the second-factor switch persists', { skip }, async () => {
  const before = await get(admin, '/v1/admin/users/second-factor');
  assert.equal(before.status, 200);
  assert.deepEqual(before.body, { enforced: false, source: 'env' });
  assert.deepEqual((await callJson(stack.url, admin, 'PUT', '/v1/admin/users/second-factor', { enforced: true })).body, { enforced: true, source: 'admin' });
  assert.deepEqual((await get(admin, '/v1/admin/users/second-factor')).body, { enforced: true, source: 'admin' });
  assert.deepEqual((await callJson(stack.url, admin, 'PUT', '/v1/admin/users/second-factor', { enforced: false })).body, { enforced: false, source: 'admin' });
  assert.deepEqual((await get(admin, '/v1/admin/users/second-factor')).body, { enforced: false, source: 'admin' });
});

test('every successful sign-in is logged with its method, second factor and client address; failures and parked ones are not', { skip }, async () => {
  const mine = (await rows()).items.filter((r) => r.email === ADMIN.email);
  assert.ok(mine.length >= 1, 'the admin\'s own sign-in of before()');
  assert.equal(mine[0]!.method, 'password');
  assert.equal(mine[0]!.second_factor, null);
  assert.equal(mine[0]!.client_ip, '127.0.0.1', 'the address of the gateway\'s hop stamp');

  // A directory user.
  const bob = await post('/v1/auth/login', { username: 'bob', password: LDAP_USERS.bob.password });
  assert.equal(bob.status, 200, JSON.stringify(bob.body));
  // A failed one leaves no row.
  assert.equal((await post('/v1/auth/login', { username: 'bob', password: 'wrong-password' })).status, 401);
  let page = await rows();
  const bobRows = page.items.filter((r) => r.email === LDAP_USERS.bob.email);
  assert.equal(bobRows.length, 1, JSON.stringify(bobRows));
  assert.equal(bobRows[0]!.method, 'directory');

  // A user with a phone: the password alone parks the sign-in (no row yet); the phone's code completes it.
  assert.equal((await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: 'phone@example.test', display_name: 'Phone', password: 'phone-password-long', roles: ['user'] })).status, 201);
  const first = await login(stack.url, 'phone@example.test', 'phone-password-long');
  const pairing = await callJson(stack.url, first, 'POST', '/v1/account/devices/pairing', {});
  assert.equal(pairing.status, 201, JSON.stringify(pairing.body));
  const phone = await SimDevice.create();
  assert.equal((await phone.pair(stack.url, pairing.body.enrollment_url as string, 'Test phone')).status, 201);
  const parked = await post('/v1/auth/login', { username: 'phone@example.test', password: 'phone-password-long' });
  assert.equal(parked.status, 202, JSON.stringify(parked.body));
  const phoneRows = (): Promise<Row[]> => rows().then((p) => p.items.filter((r) => r.email === 'phone@example.test'));
  assert.deepEqual((await phoneRows()).map((r) => r.method).sort(), ['mobile', 'password'], 'the first sign-in and the phone\'s pairing; the parked one not yet');
  const done = await post('/v1/auth/login/2fa', { challenge_id: parked.body.challenge_id, code: phone.code() });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  const withCode = (await phoneRows()).find((r) => r.second_factor !== null);
  assert.ok(withCode, 'the completed sign-in is logged');
  assert.equal(withCode.method, 'password');
  assert.equal(withCode.second_factor, 'totp');
  assert.equal(withCode.client_ip, '127.0.0.1');

  // No secrets anywhere in the log.
  page = await rows();
  const text = JSON.stringify(page);
  for (const secret of [ADMIN.password, LDAP_USERS.bob.password, 'phone-password-long', bob.body.access_token as string, bob.body.refresh_token as string]) {
    assert.ok(!text.includes(secret));
  }
  const counts = Object.fromEntries(page.counts.map((c) => [c.method, c.count]));
  assert.ok(counts.password! >= 3, JSON.stringify(page.counts));
  assert.equal(counts.directory, 1);
  assert.equal(counts.mobile, 1);
});

test('the sign-in log pages newest first with a cursor, and refuses a foreign one', { skip }, async () => {
  const all = (await rows('?limit=200')).items;
  assert.ok(all.length >= 4);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.at >= all[i]!.at, 'newest first');
  const seen: number[] = [];
  let cursor: string | undefined;
  do {
    const p = await rows(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.ok(p.items.length <= 2);
    seen.push(...p.items.map((r) => r.id));
    cursor = p.next_cursor;
  } while (cursor);
  assert.deepEqual(seen, all.map((r) => r.id), 'the pages together are the whole log, once each');
  const bad = await get(admin, '/v1/admin/auth/sign-ins?cursor=not-a-cursor');
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'invalid_request');
  assert.equal((await get(admin, '/v1/admin/auth/sign-ins?limit=0')).status, 400);
});
