/**
 * Auth service behind the real gateway: tokens minted by auth are accepted by the gateway's
 * validator (JWKS fetched from auth), the gateway stamps the principal auth reads back, and the
 * public auth surface and `/auth/.well-known/*` pass without a bearer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import type { GatewayConfig } from '../../services/shared/config.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ISSUER, authConfig } from '../helpers/auth.js';

describe('auth behind the gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-gw-'));
  const authCfg = authConfig(dir);
  let auth: RunningService;
  let gw: RunningService;
  let base: string;

  before(async () => {
    auth = await startAuth(authCfg);
    const authUrl = `http://127.0.0.1:${auth.port}`;
    // Every other service is absent: the gateway's turn events to audit are lost, which it tolerates.
    const serviceUrls = Object.fromEntries(SERVICE_NAMES.map((n) => [n, n === 'auth' ? authUrl : 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
    const gwCfg: GatewayConfig = {
      ...authCfg, service: 'gateway', logLevel: 'warn', serviceUrls,
      maxRequestBodyBytes: 65536, rateLimitIpPerMinute: 100_000, rateLimitTenantPerMinute: 100_000, redisUrl: null,
      trustedIssuers: [{ issuer: ISSUER, jwksUrl: `${authUrl}/.well-known/jwks.json`, algorithms: ['ES256'] }],
      audience: 'svc-frontend', adminEmailAllowlist: [], groupRoleMap: {}, trustProxy: false, allowedHosts: [], tokenCacheMax: 1000, rendererDir: null,
    };
    gw = await startGateway(gwCfg);
    base = `http://127.0.0.1:${gw.port}`;
  });
  after(async () => {
    await gw?.close();
    await auth?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, opts: { body?: unknown; token?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  it('serves the public surface and discovery without a bearer', async () => {
    assert.equal((await call('GET', '/v1/auth/config')).body.issuer, ISSUER);
    const jwks = await call('GET', '/auth/.well-known/jwks.json');
    assert.equal(jwks.status, 200);
    assert.equal(jwks.body.keys[0].alg, 'ES256');
    assert.equal((await call('GET', '/auth/.well-known/openid-configuration')).body.jwks_uri, `${ISSUER}/.well-known/jwks.json`);
  });

  it('accepts auth-minted tokens and reaches principal-protected routes', async () => {
    const login = await call('POST', '/v1/auth/login', { body: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    assert.equal(login.status, 200);
    const token: string = login.body.access_token;

    const me = await call('GET', '/v1/user/me', { token });
    assert.equal(me.status, 200);
    assert.equal(me.body.local, true);
    assert.equal(me.body.email, ADMIN_EMAIL.toLowerCase());
    assert.equal(me.body.auth_method, 'password');
    assert.equal(me.body.tenant_id, authCfg.tenantId);

    const verify = await call('GET', '/v1/auth/verify', { token });
    assert.equal(verify.status, 200);
    assert.deepEqual(verify.body.roles, ['admin', 'user']);

    const created = await call('POST', '/v1/admin/users', { token, body: { email: 'u1@example.test', display_name: 'U1', password: 'u1-password', roles: ['user'] } });
    assert.equal(created.status, 201);
    const userToken = (await call('POST', '/v1/auth/login', { body: { username: 'u1@example.test', password: 'u1-password' } })).body.access_token;
    assert.equal((await call('GET', '/v1/admin/users', { token: userToken })).status, 403, 'the gateway admin guard refuses a plain user');
    assert.equal((await call('GET', '/v1/admin/users', { token })).body.items.length, 2);

    assert.equal((await call('GET', '/v1/user/me')).status, 401, 'no bearer, no entry');
    assert.equal((await call('GET', '/v1/user/me', { token: `${token.slice(0, -4)}AAAA` })).status, 401, 'a tampered token is refused');
  });
});
