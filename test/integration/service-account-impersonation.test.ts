/**
 * Regression (issue 11, item 1 "No human account can be a service"): an admin created a local
 * password user with the role `service-account`; that user then appended audit rows under another
 * user's id, stored artifacts on a service-only route, and listed every user's generations.
 *
 * Now accounts hold only `user`, `admin`, `tenant_admin`, `platform_admin` (400
 * `role_not_assignable` / `role_unknown`), tokens and the gateway carry no other role, and
 * service-only routes accept only a genuine service principal (auth_method `service`, id
 * `service:<name>`), never a user principal with a role claim, even one stamped straight to the
 * service port with the stamp keys. Real auth, audit, observability and gateway on ephemeral ports.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeJwt } from 'jose';
import { monotonicFactory } from 'ulid';
import { start as startAudit } from '../../services/audit/src/index.js';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { start as startObs } from '../../services/observability/src/index.js';
import type { GatewayConfig } from '../../services/shared/config.js';
import { signStamp, type Principal } from '../../services/shared/identity/principal.js';
import { serviceStamp } from '../../services/shared/identity/service-stamp.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, ISSUER, authConfig } from '../helpers/auth.js';
import { auditConfig } from '../helpers/audit.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { obsConfig } from '../helpers/router-config.js';

const UPSTREAM_ISSUER = 'https://idp.example.test/realms/corp';
const ulid = monotonicFactory();
const now = (): number => Math.floor(Date.now() / 1000);

interface Answer { status: number; body: any } // eslint-disable-line @typescript-eslint/no-explicit-any

async function send(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const h = { ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function generation(userId: string): Record<string, unknown> {
  return {
    event_id: ulid(), created_at: new Date().toISOString(), user_id: userId, turn_id: null, trace_id: null, span_id: null, role: null,
    requested_model: 'm', model: 'm', provider_id: 'p', provider_name: 'prov', backend: 'chat_completions', provider_version: null,
    deterministic: false, weight_hash: null, stream: false, status: 'ok', error_code: null, http_status: 200, latency_ms: 1, ttft_ms: null,
    prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, attempts: 1,
  };
}

describe('service-account impersonation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-impersonation-'));
  const authCfg = authConfig(dir);
  const keys = { principalKeys: [...authCfg.principalKeys], capTokenKeys: [...authCfg.capTokenKeys] };
  const tenant = authCfg.tenantId;
  let auth: RunningService; let audit: RunningService; let obs: RunningService; let gw: RunningService;
  let idp: TestIssuer;
  let G: string; let A: string; let O: string;
  let adminToken: string;
  let victimId: string;
  let malloryId: string;
  const mallory = { email: 'mallory@example.test', password: 'mallory-password' };
  const auditDir = mkdtempSync(join(tmpdir(), 'svc-impersonation-audit-'));

  /** A genuine service stamp, as a service calling another directly sends it. */
  const service = serviceStamp('agent-runtime', tenant, keys.principalKeys);
  /** A user principal stamped straight to a service port with the stamp keys, claiming the service role. */
  const forged = (over: Partial<Principal> = {}): string => signStamp({
    id: malloryId, tenant_id: tenant, roles: ['user', 'service-account'], groups: [], auth_method: 'password', iat: now(), exp: now() + 300, ...over,
  } satisfies Principal, keys.principalKeys);
  const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
  const login = async (username: string, password: string): Promise<string> => {
    const r = await send(G, 'POST', '/v1/auth/login', {}, { username, password });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.access_token as string;
  };
  /** Audit rows of `action`, as the admin lists them through the gateway. */
  const rowsOf = async (action: string): Promise<Array<{ user_id: string | null }>> => {
    const r = await send(G, 'GET', `/v1/admin/audit?action=${encodeURIComponent(action)}`, bearer(adminToken));
    assert.equal(r.status, 200);
    return r.body.items;
  };

  before(async () => {
    idp = await startIssuer('corp-key-1');
    auth = await startAuth(authCfg);
    audit = await startAudit(auditConfig({ tenantId: tenant, ...keys }, auditDir));
    obs = await startObs(obsConfig(keys, { tenantId: tenant }));
    A = `http://127.0.0.1:${audit.port}`;
    O = `http://127.0.0.1:${obs.port}`;
    const urls: Partial<Record<ServiceName, string>> = { auth: `http://127.0.0.1:${auth.port}`, audit: A, observability: O };
    const serviceUrls = Object.fromEntries(SERVICE_NAMES.map((n) => [n, urls[n] ?? 'http://127.0.0.1:9'])) as Record<ServiceName, string>;
    const gwCfg: GatewayConfig = {
      ...authCfg, service: 'gateway', logLevel: 'warn', serviceUrls,
      maxRequestBodyBytes: 1 << 20, rateLimitIpPerMinute: 100_000, rateLimitTenantPerMinute: 100_000, redisUrl: null,
      trustedIssuers: [
        { issuer: ISSUER, jwksUrl: `${urls.auth}/.well-known/jwks.json`, algorithms: ['ES256'] },
        { issuer: UPSTREAM_ISSUER, jwksUrl: idp.jwksUrl, algorithms: ['ES256'] },
      ],
      audience: 'svc-frontend', adminEmailAllowlist: [], groupRoleMap: {}, trustProxy: false, allowedHosts: [], tokenCacheMax: 1000, rendererDir: null,
    };
    gw = await startGateway(gwCfg);
    G = `http://127.0.0.1:${gw.port}`;
    adminToken = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const victim = await send(G, 'POST', '/v1/admin/users', bearer(adminToken), { email: 'victim@example.test', display_name: 'Victim', password: 'victim-password' });
    assert.equal(victim.status, 201);
    victimId = victim.body.id;
    const m = await send(G, 'POST', '/v1/admin/users', bearer(adminToken), { email: mallory.email, display_name: 'Mallory', password: mallory.password });
    assert.equal(m.status, 201);
    malloryId = m.body.id;
    // A genuine service records one generation for each user.
    for (const u of [victimId, malloryId]) {
      assert.equal((await send(O, 'POST', '/v1/generations', { 'x-svc-principal': service() }, generation(u))).status, 201);
    }
  });
  after(async () => {
    await gw?.close(); await obs?.close(); await audit?.close(); await auth?.close(); await idp?.close();
    rmSync(dir, { recursive: true, force: true }); rmSync(auditDir, { recursive: true, force: true });
  });

  it('refuses to give an account the service role or an unknown role, on create and on update', async () => {
    for (const roles of [['service-account'], ['user', 'service-account']]) {
      const r = await send(G, 'POST', '/v1/admin/users', bearer(adminToken), { email: 'svc@example.test', display_name: 'Svc', password: 'svc-password', roles });
      assert.equal(r.status, 400, JSON.stringify(roles));
      assert.equal(r.body.code, 'role_not_assignable');
    }
    const unknown = await send(G, 'POST', '/v1/admin/users', bearer(adminToken), { email: 'svc@example.test', display_name: 'Svc', password: 'svc-password', roles: ['auditor'] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.code, 'role_unknown');
    const patched = await send(G, 'PATCH', `/v1/admin/users/${malloryId}`, bearer(adminToken), { roles: ['user', 'service-account'] });
    assert.equal(patched.status, 400);
    assert.equal(patched.body.code, 'role_not_assignable');
    assert.deepEqual((await send(G, 'GET', `/v1/admin/users/${malloryId}`, bearer(adminToken))).body.roles, ['user'], 'the refused change left the account alone');
    const ok = await send(G, 'POST', '/v1/admin/users', bearer(adminToken), { email: 'ta@example.test', display_name: 'TA', password: 'ta-password', roles: ['user', 'tenant_admin', 'platform_admin'] });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.roles, ['user', 'tenant_admin', 'platform_admin']);
  });

  it('an account stored with service-account before the rule logs in without it and gains nothing', async () => {
    const db = new Database(join(authCfg.dbDir, 'auth.sqlite'));
    try { db.prepare('UPDATE users SET roles = ? WHERE id = ?').run(JSON.stringify(['user', 'service-account']), malloryId); } finally { db.close(); }
    const token = await login(mallory.email, mallory.password);
    assert.deepEqual((decodeJwt(token).realm_access as { roles: string[] }).roles, ['user'], 'the token carries account roles only');
    assert.deepEqual((await send(G, 'GET', '/v1/user/me', bearer(token))).body.roles, ['user']);

    const appended = await send(G, 'POST', '/v1/audit', bearer(token), { user_id: victimId, action: 'probe.legacy_account' });
    assert.equal(appended.status, 201);
    assert.deepEqual((await rowsOf('probe.legacy_account')).map((r) => r.user_id), [malloryId], 'recorded as the caller, not the victim');
    const artifact = await send(G, 'POST', '/v1/audit/artifacts', bearer(token), { turn_id: ulid(), event_id: ulid(), kind: 'prompt', content: 'planted' });
    assert.equal(artifact.status, 403);
    assert.equal(artifact.body.code, 'service_account_required');
    const gens = await send(G, 'GET', '/v1/generations', bearer(token));
    assert.equal(gens.status, 200);
    assert.deepEqual(gens.body.items.map((g: { user_id: string }) => g.user_id), [malloryId], 'only the caller\'s own generations');
  });

  it('a token claiming the service role and auth method is stamped as a plain user', async () => {
    const token = await idp.mint({
      iss: UPSTREAM_ISSUER, aud: 'svc-frontend', sub: 'corp-eve', email: 'eve@corp.test', iat: now(), exp: now() + 600,
      realm_access: { roles: ['service-account', 'user', 'auditor'] }, auth_method: 'service',
    });
    const me = await send(G, 'GET', '/v1/user/me', bearer(token));
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.roles, ['user']);
    assert.equal(me.body.auth_method, 'upstream_oidc');
    const artifact = await send(G, 'POST', '/v1/audit/artifacts', bearer(token), { turn_id: ulid(), event_id: ulid(), kind: 'prompt', content: 'planted' });
    assert.equal(artifact.status, 403);
    assert.equal(artifact.body.code, 'service_account_required');
    assert.equal((await send(G, 'POST', '/v1/audit', bearer(token), { user_id: victimId, action: 'probe.upstream' })).status, 201);
    assert.deepEqual((await rowsOf('probe.upstream')).map((r) => r.user_id), ['corp-eve']);
    assert.deepEqual((await send(G, 'GET', '/v1/generations', bearer(token))).body.items, []);
  });

  it('a user principal stamped straight to the service ports is not a service, whatever it claims', async () => {
    // Role claim on a user principal; a service-looking id without the service auth method; the auth method without a service id.
    const impostors = [forged(), forged({ id: 'service:agent-runtime' }), forged({ auth_method: 'service' })];
    for (const who of impostors) {
      const h = { 'x-svc-principal': who };
      const artifact = await send(A, 'POST', '/v1/audit/artifacts', h, { turn_id: ulid(), event_id: ulid(), kind: 'prompt', content: 'planted' });
      assert.deepEqual([artifact.status, artifact.body.code], [403, 'service_account_required']);
      const events = await send(A, 'POST', '/v1/turns/events', h, { events: [] });
      assert.deepEqual([events.status, events.body.code], [403, 'service_account_required']);
      const ingest = await send(O, 'POST', '/v1/generations', h, generation(victimId));
      assert.deepEqual([ingest.status, ingest.body.code], [403, 'service_account_required']);
      const spans = await send(O, 'POST', '/v1/traces/spans', h, { spans: [] });
      assert.deepEqual([spans.status, spans.body.code], [403, 'service_account_required']);
      const budget = await send(O, 'GET', `/v1/internal/budgets/${tenant}`, h);
      assert.deepEqual([budget.status, budget.body.code], [403, 'service_account_required']);
    }
    const h = { 'x-svc-principal': forged() };
    assert.equal((await send(A, 'POST', '/v1/audit', h, { user_id: victimId, action: 'probe.direct' })).status, 201);
    assert.deepEqual((await rowsOf('probe.direct')).map((r) => r.user_id), [malloryId]);
    const gens = await send(O, 'GET', '/v1/generations', h);
    assert.deepEqual(gens.body.items.map((g: { user_id: string }) => g.user_id), [malloryId]);
    const receipts = await send(A, 'GET', '/v1/receipts', h);
    assert.equal(receipts.status, 200);
  });

  it('a genuine service stamp still may', async () => {
    const h = { 'x-svc-principal': service() };
    assert.equal((await send(A, 'POST', '/v1/audit', h, { user_id: victimId, action: 'probe.service' })).status, 201);
    assert.deepEqual((await rowsOf('probe.service')).map((r) => r.user_id), [victimId], 'a service names the user it acts for');
    const turn = ulid();
    const ev = {
      turn_id: turn, event_id: ulid(), tenant_id: tenant, principal_id: victimId, emitter_service: 'agent-runtime', emitter_instance: 'i1',
      occurred_at: new Date().toISOString(), sequence_in_service: 1, payload_type: 'turn_started', payload_json: '{}',
    };
    assert.equal((await send(A, 'POST', '/v1/turns/events', h, { events: [ev] })).status, 200);
    assert.equal((await send(A, 'POST', '/v1/audit/artifacts', h, { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: 'hello' })).status, 201);
    const gens = await send(O, 'GET', '/v1/generations', h);
    assert.deepEqual(gens.body.items.map((g: { user_id: string }) => g.user_id).sort(), [victimId, malloryId].sort());
    assert.equal((await send(O, 'GET', `/v1/internal/budgets/${tenant}`, h)).status, 200);
    assert.equal((await send(O, 'POST', '/v1/traces/spans', h, { spans: [] })).status, 202);
  });
});
