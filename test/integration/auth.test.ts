/**
 * Auth service, end to end over HTTP: the real `start(cfg)` on port 0 with a temp data directory.
 * Principal-protected routes are called with a principal stamped by `signStamp`, and logins with the
 * gateway's signed `X-Svc-Client` hop stamp, as the gateway does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { start } from '../../services/auth/src/index.js';
import type { AuthConfig } from '../../services/shared/config.js';
import { signStamp, type Principal } from '../../services/shared/identity/principal.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ISSUER, authConfig as makeCfg, gatewayHop } from '../helpers/auth.js';

const isPosix = process.platform !== 'win32';

/** A small HTTP client bound to one running service. */
class Client {
  constructor(readonly base: string, private readonly cfg: AuthConfig) {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  async call(method: string, path: string, opts: { body?: unknown; raw?: string; principal?: Principal; ip?: string } = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
    if (opts.principal) headers['x-svc-principal'] = signStamp(opts.principal, this.cfg.principalKeys);
    // As the gateway does: the client address travels in its signed hop stamp (issue 11 item 2).
    if (opts.ip) Object.assign(headers, gatewayHop(this.cfg.principalKeys, opts.ip));
    const res = await fetch(this.base + path, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  }

  login(username: string, password: string, ip = '198.51.100.1') {
    return this.call('POST', '/v1/auth/login', { body: { username, password }, ip });
  }

  principal(over: Partial<Principal> & { id: string; roles: string[] }): Principal {
    const now = Math.floor(Date.now() / 1000);
    return { tenant_id: this.cfg.tenantId, groups: [], auth_method: 'password', local_iss: ISSUER, local_sub: over.id, iat: now, exp: now + 300, ...over };
  }
}

async function boot(cfg: AuthConfig): Promise<{ svc: RunningService; client: Client }> {
  const svc = await start(cfg);
  return { svc, client: new Client(`http://127.0.0.1:${svc.port}`, cfg) };
}

describe('auth service with a bootstrap admin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-'));
  const cfg = makeCfg(dir);
  const secrets: string[] = [ADMIN_PASSWORD];
  let svc: RunningService;
  let c: Client;
  let adminId: string;
  let admin: Principal;

  before(async () => {
    ({ svc, client: c } = await boot(cfg));
    const r = await c.login(ADMIN_EMAIL, ADMIN_PASSWORD, '203.0.113.250');
    assert.equal(r.status, 200);
    adminId = JSON.parse(Buffer.from(r.body.access_token.split('.')[1], 'base64url').toString()).sub;
    admin = c.principal({ id: adminId, roles: ['admin', 'user'], email: ADMIN_EMAIL.toLowerCase() });
  });
  after(async () => {
    await svc.close();
    // Secrets never reach the log file.
    const log = readFileSync(join(dir, 'logs', 'auth.log'), 'utf8');
    for (const s of secrets) assert.ok(!log.includes(s), 'a secret leaked into the log');
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes its config, idps and discovery documents', async () => {
    const conf = await c.call('GET', '/v1/auth/config');
    assert.equal(conf.status, 200);
    assert.deepEqual(conf.body, { passwordLoginEnabled: true, installerHandoffPending: false, issuer: ISSUER, secondFactor: { available: true, enforced: false } });
    const idps = await c.call('GET', '/v1/auth/idps');
    // Issue 15 item 2: `idps` lists the upstream IdPs the sign-in page offers (none registered here).
    assert.deepEqual(idps.body, { items: [{ name: 'corp', issuer: 'https://idp.example.test/realms/corp' }], idps: [] });
    const oidc = await c.call('GET', '/.well-known/openid-configuration');
    assert.equal(oidc.body.issuer, ISSUER);
    assert.equal(oidc.body.jwks_uri, `${ISSUER}/.well-known/jwks.json`);
    assert.equal(existsSync(join(dir, 'installer-handoff.json')), false, 'no handoff when a bootstrap admin is configured');
  });

  it('logs the bootstrap admin in with an ES256 token the JWKS verifies', async () => {
    const r = await c.login(ADMIN_EMAIL.toUpperCase(), ADMIN_PASSWORD);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.body.expires_in, 600);
    assert.ok(Buffer.from(r.body.refresh_token, 'base64url').length >= 32);
    secrets.push(r.body.access_token, r.body.refresh_token);

    const jwks = await c.call('GET', '/.well-known/jwks.json');
    assert.equal(jwks.status, 200);
    assert.equal(jwks.body.keys.length, 1);
    assert.equal(jwks.body.keys[0].d, undefined, 'the JWKS must not publish the private part');
    const { payload, protectedHeader } = await jwtVerify(r.body.access_token, createLocalJWKSet(jwks.body as JSONWebKeySet), {
      issuer: ISSUER, audience: 'svc-frontend', algorithms: ['ES256'], requiredClaims: ['exp', 'iat', 'sub', 'jti'],
    });
    assert.equal(protectedHeader.kid, jwks.body.keys[0].kid);
    assert.equal(payload.sub, adminId);
    assert.equal(payload.email, ADMIN_EMAIL.toLowerCase());
    assert.deepEqual(payload.realm_access, { roles: ['admin', 'user'] });
    assert.deepEqual(payload.groups, []);
    assert.equal(payload.auth_method, 'password');
    assert.equal(typeof payload.sid, 'string');
    assert.equal(payload.exp! - payload.iat!, 600);
    await assert.rejects(jwtVerify(r.body.access_token, createLocalJWKSet(jwks.body as JSONWebKeySet), { issuer: ISSUER, audience: 'other' }));
  });

  it('keeps the signing key private on disk', { skip: !isPosix }, () => {
    const file = join(dir, 'keys', 'auth-signing-key.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'keys')).mode & 0o777, 0o700);
    const jwk = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(jwk.kty, 'EC');
    assert.equal(typeof jwk.d, 'string');
    assert.equal(typeof jwk.kid, 'string');
  });

  it('answers unknown users and wrong passwords with the same 401', async () => {
    const wrong = await c.login(ADMIN_EMAIL, 'not the password', '198.51.100.20');
    const unknown = await c.login('nobody@example.test', 'whatever password', '198.51.100.21');
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.deepEqual(wrong.body, { error: 'invalid username or password', code: 'invalid_credentials' });
    assert.deepEqual(unknown.body, wrong.body);
  });

  it('rejects malformed bodies with 400 invalid_request and the field', async () => {
    const missing = await c.call('POST', '/v1/auth/login', { body: { username: 'a@b' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'invalid_request');
    assert.equal(missing.body.field, 'body.password');
    const extra = await c.call('POST', '/v1/auth/login', { body: { username: 'a@b', password: 'x', admin: true } });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.code, 'invalid_request');
    const notJson = await c.call('POST', '/v1/auth/login', { raw: '{"username":' });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.code, 'invalid_request');
    const tooLong = await c.login('a'.repeat(400) + '@b', 'x');
    assert.equal(tooLong.status, 400);
    const refresh = await c.call('POST', '/v1/auth/refresh', { body: {} });
    assert.equal(refresh.status, 400);
    assert.equal(refresh.body.field, 'body.refresh_token');
  });

  it('throttles an account after repeated failures, without checking the password', async () => {
    const email = 'throttle@example.test';
    const created = await c.call('POST', '/v1/admin/users', { principal: admin, body: { email, display_name: 'T', password: 'throttle-pass-1', roles: ['user'] } });
    assert.equal(created.status, 201);
    // Issue 11 item 2: the throttle counts per account AND source, so the failures come from one source.
    const ip = '192.0.2.10';
    // A success clears earlier failures.
    for (let i = 0; i < 2; i++) assert.equal((await c.login(email, 'bad password', ip)).status, 401);
    assert.equal((await c.login(email, 'throttle-pass-1', ip)).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await c.login(email, 'bad password', ip)).status, 401);
    const blocked = await c.login(email, 'throttle-pass-1', ip);
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.code, 'login_throttled');
    const retry = Number(blocked.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry} within the 60 s window`);
    // Case does not dodge the account counter.
    assert.equal((await c.login(email.toUpperCase(), 'throttle-pass-1', ip)).status, 429);
  });

  it('throttles a client IP that guesses across accounts', async () => {
    const ip = '198.51.100.77';
    for (let i = 0; i < 6; i++) assert.equal((await c.login(`guess${i}@example.test`, 'pw', ip)).status, 401);
    const blocked = await c.login(ADMIN_EMAIL, ADMIN_PASSWORD, ip);
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
    assert.equal((await c.login(ADMIN_EMAIL, ADMIN_PASSWORD, '198.51.100.78')).status, 200, 'other IPs are unaffected');
  });

  it('rotates refresh tokens and revokes the family when a spent one returns', async () => {
    const first = (await c.login(ADMIN_EMAIL, ADMIN_PASSWORD)).body;
    const second = await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    assert.equal(second.status, 200);
    assert.notEqual(second.body.refresh_token, first.refresh_token);
    const sid = (t: string) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).sid;
    assert.equal(sid(second.body.access_token), sid(first.access_token), 'same session family');

    const reuse = await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.code, 'refresh_token_reused');
    const afterReuse = await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: second.body.refresh_token } });
    assert.equal(afterReuse.status, 401);
    assert.equal(afterReuse.body.code, 'refresh_token_invalid', 'the whole family is revoked');

    const other = (await c.login(ADMIN_EMAIL, ADMIN_PASSWORD)).body;
    assert.equal((await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: other.refresh_token } })).status, 200, 'other sessions survive');
    const garbage = await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: 'not-a-token' } });
    assert.equal(garbage.status, 401);
    assert.equal(garbage.body.code, 'refresh_token_invalid');
    secrets.push(first.refresh_token, second.body.refresh_token);
  });

  it('requires a stamped principal on protected routes', async () => {
    const none = await c.call('GET', '/v1/auth/verify');
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'principal_missing');
    const ok = await c.call('GET', '/v1/auth/verify', { principal: admin });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { ok: true, sub: adminId, email: ADMIN_EMAIL.toLowerCase(), roles: ['admin', 'user'], tenant_id: 't-test' });
  });

  it('answers /v1/user/me for local and non-local principals', async () => {
    const me = await c.call('GET', '/v1/user/me', { principal: admin });
    assert.equal(me.status, 200);
    assert.equal(me.body.local, true);
    assert.equal(me.body.id, adminId);
    assert.equal(me.body.display_name, 'Administrator');
    assert.match(me.body.created_at, /^\d{4}-\d\d-\d\dT/);
    const anon = c.principal({ id: 'anonymous', roles: ['admin', 'user'], auth_method: 'anonymous', display_name: 'Anonymous', local_iss: undefined });
    delete anon.local_iss;
    const r = await c.call('GET', '/v1/user/me', { principal: anon });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      id: 'anonymous', email: null, display_name: 'Anonymous', roles: ['admin', 'user'], tenant_id: 't-test',
      auth_method: 'anonymous', disabled: false, created_at: null, local: false,
    });
  });

  it('lets admins create, list, read and update users', async () => {
    const body = { email: 'Alice@Example.test', display_name: 'Alice', password: 'alice-password', roles: ['user', 'tenant_admin'] };
    secrets.push(body.password);
    const created = await c.call('POST', '/v1/admin/users', { principal: admin, body });
    assert.equal(created.status, 201);
    assert.equal(created.body.email, 'alice@example.test');
    assert.deepEqual(created.body.roles, ['user', 'tenant_admin']);
    assert.equal(created.body.has_password, true);
    assert.equal(created.body.password_hash, undefined);
    assert.equal(JSON.stringify(created.body).includes('scrypt'), false);
    const id: string = created.body.id;

    assert.equal((await c.call('POST', '/v1/admin/users', { principal: admin, body: { ...body, email: 'ALICE@example.test' } })).body.code, 'user_exists');
    const dup = await c.call('POST', '/v1/admin/users', { principal: admin, body });
    assert.equal(dup.status, 409);
    for (const bad of [{ ...body, email: 'not an email' }, { ...body, email: 'x@y', password: 'short' }, { ...body, email: 'x@y', roles: ['Admin!'] }]) {
      const r = await c.call('POST', '/v1/admin/users', { principal: admin, body: bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(r.body.code, 'invalid_request');
    }
    const user = c.principal({ id, roles: ['user'] });
    const denied = await c.call('POST', '/v1/admin/users', { principal: user, body: { ...body, email: 'eve@example.test' } });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'admin_required');

    const page1 = await c.call('GET', '/v1/admin/users?limit=1', { principal: admin });
    assert.equal(page1.status, 200);
    assert.equal(page1.body.items.length, 1);
    assert.equal(typeof page1.body.next_cursor, 'string');
    const all = await c.call('GET', '/v1/admin/users?limit=500', { principal: admin });
    assert.ok(all.body.items.some((u: { id: string }) => u.id === id));
    assert.equal(all.body.next_cursor, undefined);
    const page2 = await c.call('GET', `/v1/admin/users?limit=1&cursor=${page1.body.next_cursor}`, { principal: admin });
    assert.notEqual(page2.body.items[0].id, page1.body.items[0].id);
    assert.equal((await c.call('GET', '/v1/admin/users?limit=0', { principal: admin })).status, 400);
    assert.equal((await c.call('GET', '/v1/admin/users?limit=501', { principal: admin })).status, 400);

    assert.equal((await c.call('GET', `/v1/admin/users/${id}`, { principal: admin })).body.email, 'alice@example.test');
    const missing = await c.call('GET', '/v1/admin/users/01HZZZZZZZZZZZZZZZZZZZZZZZ', { principal: admin });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'not_found');
    assert.equal((await c.call('PATCH', '/v1/admin/users/nope', { principal: admin, body: { display_name: 'x' } })).status, 404);
    assert.equal((await c.call('PATCH', `/v1/admin/users/${id}`, { principal: admin, body: {} })).status, 400);

    const login = await c.login('alice@example.test', 'alice-password');
    assert.equal(login.status, 200);
    const patched = await c.call('PATCH', `/v1/admin/users/${id}`, { principal: admin, body: { display_name: 'Alice A.', roles: ['user', 'admin'] } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.display_name, 'Alice A.');
    assert.deepEqual(patched.body.roles, ['user', 'admin']);
    const refreshed = await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: login.body.refresh_token } });
    const claims = JSON.parse(Buffer.from(refreshed.body.access_token.split('.')[1], 'base64url').toString());
    assert.deepEqual(claims.realm_access.roles, ['user', 'admin'], 'refresh picks up new roles');
    assert.equal(claims.name, 'Alice A.');

    // Disabling revokes sessions and blocks login (only after a correct password).
    const disabled = await c.call('PATCH', `/v1/admin/users/${id}`, { principal: admin, body: { disabled: true } });
    assert.equal(disabled.body.disabled, true);
    const blocked = await c.login('alice@example.test', 'alice-password');
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.code, 'account_disabled');
    assert.equal((await c.login('alice@example.test', 'wrong password!')).body.code, 'invalid_credentials');
    const refreshDisabled = await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: refreshed.body.refresh_token } });
    assert.equal(refreshDisabled.status, 403);
    assert.equal(refreshDisabled.body.code, 'account_disabled');
    assert.equal((await c.call('GET', '/v1/user/me', { principal: user })).body.code, 'account_disabled');

    // Re-enabling does not resurrect revoked sessions; a new password works.
    await c.call('PATCH', `/v1/admin/users/${id}`, { principal: admin, body: { disabled: false, password: 'alice-password-2' } });
    secrets.push('alice-password-2');
    assert.equal((await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: refreshed.body.refresh_token } })).body.code, 'refresh_token_invalid');
    assert.equal((await c.login('alice@example.test', 'alice-password')).status, 401);
    assert.equal((await c.login('alice@example.test', 'alice-password-2')).status, 200);
  });

  it('stops an admin from disabling or demoting themself', async () => {
    const selfDisable = await c.call('PATCH', `/v1/admin/users/${adminId}`, { principal: admin, body: { disabled: true } });
    assert.equal(selfDisable.status, 409);
    assert.equal(selfDisable.body.code, 'cannot_demote_self');
    const selfDemote = await c.call('PATCH', `/v1/admin/users/${adminId}`, { principal: admin, body: { roles: ['user'] } });
    assert.equal(selfDemote.status, 409);
    const rename = await c.call('PATCH', `/v1/admin/users/${adminId}`, { principal: admin, body: { display_name: 'Root' } });
    assert.equal(rename.status, 200);
    assert.deepEqual(rename.body.roles, ['admin', 'user']);
  });
});

describe('auth service first start without a bootstrap admin', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-handoff-'));
  const cfg = makeCfg(dir, { bootstrapAdminEmail: null, bootstrapAdminPassword: null });
  let svc: RunningService | null = null;
  after(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exchanges the installer handoff once, even across a restart', async () => {
    let c: Client;
    ({ svc, client: c } = await boot(cfg));
    const file = join(dir, 'installer-handoff.json');
    if (isPosix) assert.equal(statSync(file).mode & 0o777, 0o600);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.match(doc.handoff_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal((await c.call('GET', '/v1/auth/config')).body.installerHandoffPending, true);

    const wrong = await c.call('POST', '/v1/auth/installer-handoff', { body: { handoff_id: '00000000-0000-4000-8000-000000000000' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 'handoff_invalid');
    // The installer admin has no password.
    assert.equal((await c.login('admin@localhost', 'anything-at-all')).body.code, 'invalid_credentials');

    const ok = await c.call('POST', '/v1/auth/installer-handoff', { body: { handoff_id: doc.handoff_id } });
    assert.equal(ok.status, 200);
    const claims = JSON.parse(Buffer.from(ok.body.access_token.split('.')[1], 'base64url').toString());
    assert.equal(claims.email, 'admin@localhost');
    assert.deepEqual(claims.realm_access.roles, ['admin', 'user']);
    assert.equal(existsSync(file), false, 'the file is deleted after the exchange');
    const again = await c.call('POST', '/v1/auth/installer-handoff', { body: { handoff_id: doc.handoff_id } });
    assert.equal(again.status, 401);
    assert.equal(again.body.code, 'handoff_invalid');
    assert.equal((await c.call('GET', '/v1/auth/config')).body.installerHandoffPending, false);
    const kid = decodeProtectedHeader(ok.body.access_token).kid;

    // Restart on the same data directory: no new handoff, the spent one stays spent, same key.
    await svc.close();
    ({ svc, client: c } = await boot(cfg));
    assert.equal(existsSync(file), false);
    assert.equal((await c.call('POST', '/v1/auth/installer-handoff', { body: { handoff_id: doc.handoff_id } })).body.code, 'handoff_invalid');
    assert.equal((await c.call('GET', '/v1/auth/config')).body.installerHandoffPending, false);
    const jwks = await c.call('GET', '/.well-known/jwks.json');
    assert.equal(jwks.body.keys[0].kid, kid, 'the signing key survives a restart');
    // The refresh token from before the restart still works.
    assert.equal((await c.call('POST', '/v1/auth/refresh', { body: { refresh_token: ok.body.refresh_token } })).status, 200);
    const log = readdirSync(join(dir, 'logs')).map((f) => readFileSync(join(dir, 'logs', f), 'utf8')).join('');
    assert.ok(!log.includes(doc.handoff_id), 'the handoff id never reaches the log');
  });
});

describe('auth service with password login disabled', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-nopw-'));
  let svc: RunningService;
  let c: Client;
  before(async () => { ({ svc, client: c } = await boot(makeCfg(dir, { passwordLoginEnabled: false }))); });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses password logins with 403 password_login_disabled', async () => {
    assert.equal((await c.call('GET', '/v1/auth/config')).body.passwordLoginEnabled, false);
    const r = await c.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'password_login_disabled');
  });
});
