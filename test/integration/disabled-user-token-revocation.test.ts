/**
 * Regression (issue 11 item 9, last part): "A disabled user's access token kept working until
 * expiry". Real auth service and real gateway on ephemeral ports: after an admin disables a user,
 * changes their password, or a session's refresh token is replayed, the access tokens already
 * issued are refused by the gateway with 401 `token_revoked` within a short bound (the gateway
 * polls the auth service's revocation list), while other users and sessions keep working. The
 * list itself is for service principals only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { servicePrincipal, signStamp, type Principal } from '../../services/shared/identity/principal.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ISSUER, authConfig, gatewayForAuth } from '../helpers/auth.js';

/** The bound the issue asks for: a revoked token stops working within this many ms. */
const BOUND_MS = 5000;

describe('disabled user token revocation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-revoke-'));
  const authCfg = authConfig(dir);
  let auth: RunningService;
  let gw: RunningService;
  let base: string;
  let authBase: string;

  before(async () => {
    auth = await startAuth(authCfg);
    authBase = `http://127.0.0.1:${auth.port}`;
    gw = await startGateway(gatewayForAuth(authCfg, authBase));
    base = `http://127.0.0.1:${gw.port}`;
  });
  after(async () => {
    await gw?.close();
    await auth?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  const call = async (method: string, path: string, opts: { body?: unknown; token?: string } = {}): Promise<{ status: number; body: any }> => {
    const headers: Record<string, string> = {};
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const login = async (username: string, password: string): Promise<{ access_token: string; refresh_token: string }> => {
    const r = await call('POST', '/v1/auth/login', { body: { username, password } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const verify = (token: string) => call('GET', '/v1/auth/verify', { token });
  /** Poll until `token` is refused; @returns the refusal and how long it took, ms. */
  const untilRefused = async (token: string) => {
    const t0 = Date.now();
    for (;;) {
      const r = await verify(token);
      if (r.status !== 200 || Date.now() - t0 > BOUND_MS * 2) return { ...r, ms: Date.now() - t0 };
      await new Promise((res) => setTimeout(res, 100));
    }
  };

  let adminToken: string;
  const users: Record<string, string> = {};

  it('sets up an admin and three users, whose tokens work through the gateway', async () => {
    adminToken = (await login(ADMIN_EMAIL, ADMIN_PASSWORD)).access_token;
    for (const name of ['dora', 'pat', 'rex']) {
      const created = await call('POST', '/v1/admin/users', { token: adminToken, body: { email: `${name}@example.test`, display_name: name, password: `${name}-password`, roles: ['user'] } });
      assert.equal(created.status, 201);
      users[name] = created.body.id;
    }
  });

  it('refuses a disabled user\'s access token within the bound', async (t) => {
    const dora = (await login('dora@example.test', 'dora-password')).access_token;
    assert.equal((await verify(dora)).status, 200);
    const disabled = await call('PATCH', `/v1/admin/users/${users.dora}`, { token: adminToken, body: { disabled: true } });
    assert.equal(disabled.status, 200);
    const r = await untilRefused(dora);
    assert.equal(r.status, 401);
    assert.equal(r.body.code, 'token_revoked');
    assert.ok(r.ms <= BOUND_MS, `refused after ${r.ms} ms`);
    t.diagnostic(`disabled user's token refused ${r.ms} ms after the disable`);
    assert.equal((await verify(adminToken)).status, 200, 'other users keep working');
  });

  it('refuses the old token after a password change; a new login works', async () => {
    const pat = (await login('pat@example.test', 'pat-password')).access_token;
    assert.equal((await call('PATCH', `/v1/admin/users/${users.pat}`, { token: adminToken, body: { password: 'pat-password-2' } })).status, 200);
    const r = await untilRefused(pat);
    assert.equal(r.body.code, 'token_revoked');
    assert.ok(r.ms <= BOUND_MS, `refused after ${r.ms} ms`);
    // A token issued in a later second than the revocation is not affected.
    await new Promise((res) => setTimeout(res, 1100));
    const fresh = (await login('pat@example.test', 'pat-password-2')).access_token;
    assert.equal((await verify(fresh)).status, 200);
  });

  it('refuses the tokens of a session whose refresh token was replayed, not the user\'s other sessions', async () => {
    const stolen = await login('rex@example.test', 'rex-password');
    const other = (await login('rex@example.test', 'rex-password')).access_token;
    assert.equal((await call('POST', '/v1/auth/refresh', { body: { refresh_token: stolen.refresh_token } })).status, 200);
    const replay = await call('POST', '/v1/auth/refresh', { body: { refresh_token: stolen.refresh_token } });
    assert.equal(replay.body.code, 'refresh_token_reused');
    const r = await untilRefused(stolen.access_token);
    assert.equal(r.body.code, 'token_revoked');
    assert.ok(r.ms <= BOUND_MS, `refused after ${r.ms} ms`);
    assert.equal((await verify(other)).status, 200, 'the other session is untouched');
  });

  it('serves the revocation list to service principals only', async () => {
    const path = '/v1/internal/auth/revocations?after=0';
    const get = (principal?: Principal) => fetch(authBase + path, { headers: principal ? { 'x-svc-principal': signStamp(principal, authCfg.principalKeys) } : {} });
    assert.equal((await get()).status, 401);
    const now = Math.floor(Date.now() / 1000);
    const admin: Principal = { id: 'someone', tenant_id: authCfg.tenantId, roles: ['admin', 'service-account'], groups: [], auth_method: 'password', iat: now, exp: now + 300 };
    const refused = await get(admin);
    assert.equal(refused.status, 403);
    assert.equal((await refused.json() as { code: string }).code, 'forbidden');
    const ok = await get(servicePrincipal('gateway', authCfg.tenantId));
    assert.equal(ok.status, 200);
    const body = await ok.json() as { issuer: string; items: Array<{ sub: string; sid: string | null }> };
    assert.equal(body.issuer, ISSUER);
    assert.ok(body.items.some((i) => i.sub === users.dora && i.sid === null));
    // From outside, /v1/internal/* is not routed to auth.
    assert.notEqual((await call('GET', path, { token: adminToken })).status, 200);
  });
});
