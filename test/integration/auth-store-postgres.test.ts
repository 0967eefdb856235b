/**
 * Issue 21 item 1, auth: the same port calls against the SQLite store and the PostgreSQL store
 * answer the same (every table group: accounts, refresh tokens, login failures and throttle,
 * revocations and their never-going-back `seq`, one source's attempts counted one at a time, installer handoffs, devices, pairings, login
 * challenges, recovery codes, proof jtis, the policy, directory accounts, upstream IdPs, links and
 * broker states, the sign-in log's keyset pages, the IdP's models; a transaction rolled back on
 * throw); and the service started with `database` set serves its routes from schema `auth`, keeps
 * a session across a restart, and creates no `.sqlite` file (the key files stay files); in the
 * stack, the embedded IdP's sign-in (password grant, refresh rotation, userinfo) runs on its models
 * in schema `auth`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../services/auth/src/index.js';
import { openAuthStore, type AuthStore } from '../../services/auth/src/store/auth-store.js';
import { openPgAuthStore } from '../../services/auth/src/store/pg/index.js';
import type { AuthConfig } from '../../services/shared/config.js';
import { servicePrincipal, signStamp, type Principal } from '../../services/shared/identity/principal.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ISSUER, authConfig, gatewayHop } from '../helpers/auth.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { ADMIN, callJson, startStack } from '../helpers/stack.js';

const MIGRATIONS = join(process.cwd(), 'migrations');
const missing = postgresMissing();
const T = '2026-01-01T00:00:00.000Z';

const user = (id: string, email: string) => ({
  id, email, display_name: email, password_hash: null as string | null, roles: ['user'], disabled: false, created_at: T, updated_at: T,
});

/** Accounts, sessions, throttle, revocations, handoffs. */
async function accounts(s: AuthStore, seen: unknown[]): Promise<void> {
  seen.push(await s.users.insert(user('01B', 'b@x.test')), await s.users.insert(user('01A', 'A@X.test')), await s.users.insert(user('01a', 'c@x.test')));
  seen.push(await s.users.insert(user('01C', 'a@x.test')), await s.users.insert(user('01A', 'z@x.test')), await s.users.count());
  seen.push(await s.users.byEmail('A@x.TEST'), await s.users.list(null, 2), await s.users.list('01B', 5), await s.users.byId('nope'));
  await s.users.save({ ...user('01B', 'ignored@x.test'), display_name: 'Bee', roles: ['admin', 'user'], disabled: true, password_hash: 'scrypt$h', updated_at: 'later' });
  seen.push(await s.users.byId('01B'));
  const rt = (jti: string, fam: string, exp: number) => ({ jti, token_hash: `h${jti}`, family_id: fam, user_id: '01A', issued_at: 1, expires_at: exp, used_at: null, revoked_at: null });
  await s.refresh.insert(rt('r1', 'f1', 100)); await s.refresh.insert(rt('r2', 'f1', 200)); await s.refresh.insert(rt('r3', 'f2', 300));
  seen.push(await s.refresh.markUsed('r1', 10), await s.refresh.markUsed('r1', 11), await s.refresh.byHash('hr1'), await s.refresh.byHash('nope'));
  seen.push(await s.refresh.revokeFamily('f1', 20), await s.refresh.revokeFamily('f1', 21), await s.refresh.markUsed('r2', 22));
  seen.push(await s.refresh.revokeUser('01A', 30), await s.refresh.pruneExpired(250), await s.refresh.byHash('hr3'), await s.refresh.byHash('hr2'));
  const ids = [await s.failures.record('a', 'ip1', 10), await s.failures.record('b', 'ip1', 20), await s.failures.record('a', 'ip1', 30), await s.failures.record('a', 'ip2', 40)];
  seen.push(ids, await s.failures.ipStats('ip1', 0, 2), await s.failures.ipStats('ip1', 15, 5), await s.failures.ipStats('ip1', 0, 3));
  await s.failures.remove(ids[1]!); await s.failures.clearPair('a', 'ip2');
  seen.push(await s.failures.ipStats('ip1', 0, 1), await s.failures.ipStats('ip2', 0, 1), await s.failures.prune(25), await s.failures.ipStats('ip1', 0, 1));
  seen.push(await s.throttle.get('a', 'ip1'));
  await s.throttle.put('a', 'ip1', { failures: 1, last_at: 5 }); await s.throttle.put('a', 'ip1', { failures: 2, last_at: 7 }); await s.throttle.put('b', 'ip1', { failures: 1, last_at: 50 });
  seen.push(await s.throttle.get('a', 'ip1'), await s.throttle.prune(10), await s.throttle.get('a', 'ip1'));
  await s.throttle.clear('b', 'ip1');
  seen.push(await s.throttle.get('b', 'ip1'), await s.revocations.latest());
  seen.push(await s.revocations.record('u1', null, 100), await s.revocations.record('u2', 's2', 200), await s.revocations.record('u3', null, 300));
  seen.push(await s.revocations.after(0, 0, 10), await s.revocations.after(1, 150, 1), await s.revocations.prune(1000), await s.revocations.latest(), await s.revocations.after(0, 0, 10));
  seen.push(await s.revocations.record('u4', null, 400));
  await s.handoffs.insert({ id_hash: 'h1', user_id: '01A', created_at: 1 }); await s.handoffs.insert({ id_hash: 'h2', user_id: '01B', created_at: 2 });
  seen.push(await s.handoffs.pending(), await s.handoffs.spend('h2', 5), await s.handoffs.spend('h2', 6), await s.handoffs.pending());
  await s.handoffs.spendAll(7);
  seen.push(await s.handoffs.pending(), await s.handoffs.spend('h1', 8));
}

/** The second factor's tables. */
async function secondFactor(s: AuthStore, seen: unknown[]): Promise<void> {
  const dev = (id: string, thumb: string, created: number) => ({
    id, user_id: '01A', name: `n${id}`, public_jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }, jwk_thumbprint: thumb, totp_secret: 'S',
    totp_last_step: null, current_refresh_jti: `j${id}`, state: 'paired' as const, created_at: created, last_seen_at: null, revoked_at: null,
  });
  seen.push(await s.devices.insert(dev('d1', 't1', 10)), await s.devices.insert(dev('d2', 't2', 10)), await s.devices.insert(dev('d3', 't1', 20)));
  seen.push(await s.devices.byUser('01A'), await s.devices.pairedCount('01A'));
  await s.devices.rename('d1', 'Phone'); await s.devices.touch('d1', 50); await s.devices.touch('d1', 40);
  seen.push(await s.devices.swapRefresh('d1', 'jd1', 'next'), await s.devices.swapRefresh('d1', 'jd1', 'again'));
  seen.push(await s.devices.useTotpStep('d1', 5), await s.devices.useTotpStep('d1', 5), await s.devices.useTotpStep('d1', 6));
  seen.push(await s.devices.revoke('d2', 60), await s.devices.revoke('d2', 61), await s.devices.byId('d1'), await s.devices.byId('d2'), await s.devices.pairedCount('01A'));
  const enr = (id: string, challenge: string | null, exp: number) => ({ id, user_id: '01A', nonce: 'n', challenge_id: challenge, created_at: 1, expires_at: exp, used_at: null, device_id: null });
  await s.enrollments.insert(enr('e1', null, 100)); await s.enrollments.insert(enr('e2', 'c', 100)); await s.enrollments.insert(enr('e3', null, 10));
  seen.push(await s.enrollments.pendingCount('01A', 50), await s.enrollments.markUsed('e1', 60, 'd1'), await s.enrollments.markUsed('e1', 61, 'd2'));
  seen.push(await s.enrollments.byId('e1'), await s.enrollments.prune(50), await s.enrollments.byId('e3'));
  const ch = (id: string, created: number) => ({
    id, user_id: '01A', number_match: 42, numbers: [12, 42, 77], methods: ['push', 'totp'], client_ip: '1.2.3.4', user_agent: 'UA', state: 'pending' as const,
    outcome: null, device_id: null, code_failures: 0, created_at: created, expires_at: created + 100, answered_at: null,
  });
  await s.challenges.insert(ch('c2', 20)); await s.challenges.insert(ch('c1', 20)); await s.challenges.insert(ch('c3', 30));
  seen.push(await s.challenges.countSince('01A', 19), await s.challenges.oldestSince('01A', 25), await s.challenges.oldestSince('01A', 99), await s.challenges.pendingOf('01A', 50));
  seen.push(await s.challenges.transition('c1', 'pending', 'approved', 'approve', 'd1', 55), await s.challenges.transition('c1', 'pending', 'denied', 'deny', null, 56));
  seen.push(await s.challenges.transition('c1', 'approved', 'released', 'approve', null, 57), await s.challenges.byId('c1'));
  seen.push(await s.challenges.addCodeFailure('c2'), await s.challenges.addCodeFailure('c2'), await s.challenges.addCodeFailure('nope'));
  seen.push(await s.challenges.expirePending('01A', 60), await s.challenges.byId('c3'), await s.challenges.prune(25), await s.challenges.byId('c2'));
  seen.push(await s.recoveryCodes.status('01A'));
  await s.recoveryCodes.replace('01A', ['k1', 'k2', 'k3'], 5);
  seen.push(await s.recoveryCodes.use('01A', 'k1', 6), await s.recoveryCodes.use('01A', 'k1', 7), await s.recoveryCodes.status('01A'));
  await s.recoveryCodes.replace('01A', ['k9'], 8);
  seen.push(await s.recoveryCodes.use('01A', 'k2', 9), await s.recoveryCodes.status('01A'));
  seen.push(await s.proofJtis.remember('d1', 'j', 10), await s.proofJtis.remember('d1', 'j', 10), await s.proofJtis.remember('d2', 'j', 20), await s.proofJtis.prune(15));
  seen.push(await s.proofJtis.remember('d1', 'j', 30), await s.policy.get());
  await s.policy.set(true, 1, 'admin'); await s.policy.set(false, 2, 'root');
  seen.push(await s.policy.get());
}

/** Directory accounts, upstream SSO, the sign-in log and the IdP's models. */
async function identity(s: AuthStore, seen: unknown[]): Promise<void> {
  seen.push(await s.directoryAccounts.get('01A'));
  await s.directoryAccounts.put({ user_id: '01A', dn: 'uid=a', username: 'a', groups: ['G1'], synced_at: T });
  await s.directoryAccounts.put({ user_id: '01A', dn: 'uid=a2', username: 'a', groups: ['G2', 'G3'], synced_at: 'later' });
  seen.push(await s.directoryAccounts.get('01A'));
  const idp = (alias: string) => ({
    alias, issuer: `https://${alias}`, client_id: 'c', client_secret_enc: 'sealed', scopes: ['openid', 'email'],
    claims: { email: 'email', name: 'name', groups: 'groups' }, display_name: null, enabled: true, created_at: T, updated_at: T,
  });
  seen.push(await s.upstreamIdps.insert(idp('zeta')), await s.upstreamIdps.insert(idp('Alpha')), await s.upstreamIdps.insert(idp('zeta')), await s.upstreamIdps.list());
  await s.upstreamIdps.save({ ...idp('zeta'), enabled: false, display_name: 'Z', scopes: ['openid'] });
  seen.push(await s.upstreamIdps.get('zeta'), await s.upstreamIdps.remove('Alpha'), await s.upstreamIdps.remove('Alpha'), await s.upstreamIdps.get('Alpha'));
  const link = (sub: string, at: string) => ({ upstream_iss: 'iss', upstream_sub: sub, user_id: '01A', alias: 'zeta', preferred_username: null, groups: ['g'], created_at: T, last_login_at: at });
  await s.upstreamLinks.put(link('s1', '2026-01-02')); await s.upstreamLinks.put(link('s2', '2026-01-03'));
  await s.upstreamLinks.put({ ...link('s1', '2026-01-04'), preferred_username: 'p', groups: ['h'], created_at: 'ignored' });
  seen.push(await s.upstreamLinks.byUser('01A'), await s.upstreamLinks.get('iss', 's1'), await s.upstreamLinks.get('iss', 'nope'));
  const st = (state: string, exp: number) => ({ state, nonce: 'n', code_verifier: 'v', interaction_uid: 'u', alias: 'zeta', expires_at: exp, used_at: null });
  await s.brokerStates.insert(st('raw-state-1', 100)); await s.brokerStates.insert(st('raw-state-2', 10));
  seen.push(await s.brokerStates.take('raw-state-1', 50), await s.brokerStates.take('raw-state-1', 51));
  await s.brokerStates.prune(50);
  seen.push(await s.brokerStates.take('raw-state-2', 52));
  for (const [at, method] of [[10, 'password'], [20, 'mobile'], [20, 'password'], [20, 'directory'], [30, 'password']] as const) {
    await s.signIns.insert({ at, user_id: '01A', email: null, method, second_factor: method === 'mobile' ? null : 'push', issuer: null, client_id: null, client_ip: '1.1.1.1' });
  }
  const p1 = await s.signIns.page(null, 2);
  const p2 = await s.signIns.page({ at: p1[1]!.at, id: p1[1]!.id }, 2);
  seen.push(p1, p2, await s.signIns.countsByMethod(15), await s.signIns.prune(15), await s.signIns.page(null, 10));
  const m = (model: string, id: string, exp: number | null) => ({ model, id, payload: `{"jti":"${id}"}`, grant_id: 'g1', uid: `u${id}`, user_code: `c${id}`, expires_at: exp, consumed_at: null });
  await s.idpModels.upsert(m('Session', 's1', null)); await s.idpModels.upsert(m('AccessToken', 'a1', 100)); await s.idpModels.upsert(m('AccessToken', 'a2', 10));
  await s.idpModels.upsert({ ...m('Session', 's1', null), payload: '{"jti":"s1","v":2}' });
  seen.push(await s.idpModels.find('Session', 's1', 50), await s.idpModels.find('AccessToken', 'a2', 50), await s.idpModels.findByUid('AccessToken', 'ua1', 50));
  seen.push(await s.idpModels.findByUserCode('AccessToken', 'ca1', 50), await s.idpModels.findByUserCode('AccessToken', 'ca1', 200));
  await s.idpModels.consume('AccessToken', 'a1', 7);
  seen.push(await s.idpModels.find('AccessToken', 'a1', 50), await s.idpModels.prune(50));
  await s.idpModels.destroy('Session', 's1');
  seen.push(await s.idpModels.find('Session', 's1', 50), await s.idpModels.revokeByGrantId('g1'), await s.idpModels.find('AccessToken', 'a1', 50));
}

/** The contract sequence; returns every answer. */
async function contract(s: AuthStore): Promise<unknown[]> {
  const seen: unknown[] = [];
  await accounts(s, seen);
  await secondFactor(s, seen);
  await identity(s, seen);
  // A transaction that throws leaves nothing behind; one that returns commits.
  await assert.rejects(s.txAsync(async () => { await s.users.insert(user('01Z', 'z@x.test')); await s.revocations.record('z', null, 1); throw new Error('boom'); }), /boom/);
  seen.push(await s.users.byId('01Z'), await s.revocations.latest());
  seen.push(await s.txAsync(async () => { await s.users.insert(user('01Y', 'y@x.test')); return s.users.count(); }), await s.users.byEmail('y@x.test'));
  return seen;
}

describe('auth stores on PostgreSQL', { skip: missing ?? false }, () => {
  let pg: TestPostgres;
  const dirs: string[] = [];
  const tmp = (): string => { const d = mkdtempSync(join(tmpdir(), 'auth-pg-')); dirs.push(d); return d; };
  before(async () => { pg = await startPostgres(); });
  after(async () => { await pg?.stop(); for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  test('the same port calls answer the same on SQLite and PostgreSQL', async () => {
    const lite = openAuthStore({ dbDir: join(tmp(), 'db'), migrationsDir: MIGRATIONS });
    const pgs = await openPgAuthStore({ url: pg.url, schema: 'auth_contract' }, MIGRATIONS);
    try {
      const a = await contract(lite);
      const b = await contract(pgs);
      for (let i = 0; i < a.length; i++) assert.deepEqual(b[i], a[i], `answer ${i}`);
      assert.equal(b.length, a.length);
      assert.ok(a.length > 100, `the contract checked ${a.length} answers`);
      assert.equal(pgs.engine, 'postgres');
      // Concurrent attempts of one source are counted one after the other (the login transaction's lock).
      const bump = () => pgs.txAsync(async () => {
        await pgs.throttle.lockSource('198.51.100.9');
        const cur = await pgs.throttle.get('race', '198.51.100.9');
        await new Promise((r) => setTimeout(r, 5));
        await pgs.throttle.put('race', '198.51.100.9', { failures: (cur?.failures ?? 0) + 1, last_at: 1 });
      });
      await Promise.all(Array.from({ length: 8 }, bump));
      assert.equal((await pgs.throttle.get('race', '198.51.100.9'))?.failures, 8);
      assert.equal(await pgs.ready(), true);
    } finally {
      lite.close();
      await pgs.close();
    }
    assert.equal(pgs.isOpen, false);
  });

  test('the service on PostgreSQL serves its routes, keeps sessions across a restart and creates no .sqlite file', async () => {
    const dir = tmp();
    const cfg: AuthConfig = { ...authConfig(dir), database: { url: pg.url, schema: 'auth' } };
    const call = async (svc: RunningService, method: string, path: string, opts: { body?: unknown; principal?: Principal; ip?: string } = {}) => {
      const headers: Record<string, string> = {};
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      if (opts.principal) headers['x-svc-principal'] = signStamp(opts.principal, cfg.principalKeys);
      if (opts.ip) Object.assign(headers, gatewayHop(cfg.principalKeys, opts.ip));
      const res = await fetch(`http://127.0.0.1:${svc.port}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await res.text();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
      return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
    };
    const principal = (id: string, roles: string[]): Principal => {
      const now = Math.floor(Date.now() / 1000);
      return { id, tenant_id: cfg.tenantId, roles, groups: [], auth_method: 'password', local_iss: ISSUER, local_sub: id, iat: now, exp: now + 300 };
    };
    let svc = await start(cfg);
    let refreshToken: string;
    try {
      assert.equal((await call(svc, 'GET', '/readyz')).status, 200);
      const cfgView = await call(svc, 'GET', '/v1/auth/config');
      assert.equal(cfgView.body.issuer, ISSUER);
      assert.equal(cfgView.body.secondFactor.enforced, false);
      const login = await call(svc, 'POST', '/v1/auth/login', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD }, ip: '198.51.100.7' });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      refreshToken = login.body.refresh_token as string;
      const bad = await call(svc, 'POST', '/v1/auth/login', { body: { username: ADMIN_EMAIL, password: 'wrong-password' }, ip: '198.51.100.7' });
      assert.equal(bad.body.code, 'invalid_credentials');
      const rows = await pg.sql<{ id: string }>('SELECT id FROM auth.users WHERE email = $1', [ADMIN_EMAIL.toLowerCase()]);
      assert.equal(rows.length, 1, 'the admin lives in schema auth');
      const admin = principal(rows[0]!.id, ['admin', 'user']);
      const created = await call(svc, 'POST', '/v1/admin/users', { principal: admin, body: { email: 'Pat@Example.test', display_name: 'Pat', password: 'pat-password-1' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await call(svc, 'POST', '/v1/admin/users', { principal: admin, body: { email: 'pat@example.test', display_name: 'P' } })).body.code, 'user_exists');
      const list = await call(svc, 'GET', '/v1/admin/users?limit=1', { principal: admin });
      assert.equal(list.body.items.length, 1);
      assert.ok(list.body.next_cursor);
      const disabled = await call(svc, 'PATCH', `/v1/admin/users/${created.body.id}`, { principal: admin, body: { disabled: true } });
      assert.equal(disabled.body.disabled, true);
      const feed = await call(svc, 'GET', '/v1/internal/auth/revocations?after=0', { principal: servicePrincipal('gateway', cfg.tenantId) });
      assert.equal(feed.status, 200, JSON.stringify(feed.body));
      assert.ok(feed.body.items.some((r: { sub: string }) => r.sub === created.body.id), 'disabling recorded a revocation');
      const policy = await call(svc, 'PUT', '/v1/admin/users/second-factor', { principal: admin, body: { enforced: true } });
      assert.deepEqual(policy.body, { enforced: true, source: 'admin' });
      const signIns = await call(svc, 'GET', '/v1/admin/auth/sign-ins', { principal: admin });
      assert.equal(signIns.status, 200, JSON.stringify(signIns.body));
      assert.equal(signIns.body.items[0].method, 'password');
    } finally {
      await svc.close();
    }
    svc = await start(cfg);
    try {
      const again = await call(svc, 'POST', '/v1/auth/refresh', { body: { refresh_token: refreshToken } });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.equal((await call(svc, 'POST', '/v1/auth/refresh', { body: { refresh_token: refreshToken } })).body.code, 'refresh_token_reused');
      assert.equal((await call(svc, 'GET', '/v1/auth/config')).body.secondFactor.enforced, true, 'the policy survived the restart');
    } finally {
      await svc.close();
    }
    const dbDir = cfg.dbDir;
    const sqlite = existsSync(dbDir) ? readdirSync(dbDir).filter((n) => n.includes('.sqlite')) : [];
    assert.deepEqual(sqlite, [], 'no SQLite store file');
    assert.ok(readdirSync(dir).length > 0, 'key files stay in the data directory');
  });

  test('in the stack, the embedded IdP signs in and rotates refresh tokens over its models in schema auth', { timeout: 180_000 }, async () => {
    const stack = await startStack({ SVC_AUTH_DATABASE_URL: pg.url });
    try {
      const r = await fetch(`${stack.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }) });
      assert.equal(r.status, 200);
      const tokens = await r.json() as { access_token: string; refresh_token: string };
      const me = await callJson(stack.url, tokens.access_token, 'GET', '/v1/user/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.email, ADMIN.email);
      const models = await pg.sql<{ model: string; n: number }>('SELECT model, count(*)::int AS n FROM auth.idp_models GROUP BY model ORDER BY model');
      const kinds = models.map((m) => m.model);
      for (const k of ['Grant', 'RefreshToken']) assert.ok(kinds.includes(k), `${k} is kept in auth.idp_models (${kinds.join(', ')})`);
      const refresh = (token: string) => fetch(`${stack.url}/v1/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: token }) });
      const next = await refresh(tokens.refresh_token);
      assert.equal(next.status, 200, await next.clone().text());
      const again = await refresh(tokens.refresh_token);
      assert.equal(((await again.json()) as { code: string }).code, 'refresh_token_reused');
      const authDb = join(stack.dataDir, 'db');
      const files = existsSync(authDb) ? readdirSync(authDb) : [];
      assert.ok(!files.includes('auth.sqlite'), `auth kept no SQLite file (${files.join(', ')})`);
    } finally {
      await stack.stop();
    }
  });
});
