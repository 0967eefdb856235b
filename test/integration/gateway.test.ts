/**
 * Gateway chain over real sockets (spec: "What the service does", "Authentication", "Errors",
 * "Limits"): bearer validation, header stripping and stamping, tenant pin, admin guard, body limit,
 * rate limits, routing precedence, 502, bearer bypass, turn events, dev mode.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { start } from '../../services/gateway/src/index.js';
import { verifyStamp, type Principal, type CapabilityToken } from '../../services/shared/identity/principal.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { startUpstream, type RecordingUpstream } from '../helpers/upstream.js';
import { gatewayConfig, TEST_ISSUER } from '../helpers/gateway-config.js';
import type { GatewayConfig } from '../../services/shared/config.js';
import type { RunningService } from '../../services/shared/runtime.js';

let issuer: TestIssuer;
let foreign: TestIssuer;
let up: RecordingUpstream;
let gw: RunningService;
let cfg: GatewayConfig;
let base: string;

const now = (): number => Math.floor(Date.now() / 1000);
const claims = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'user-1', email: 'ana@example.com', name: 'Ana',
  realm_access: { roles: ['user'] }, groups: ['Analysts'], iat: now(), exp: now() + 600, auth_method: 'password', ...over,
});

before(async () => {
  issuer = await startIssuer();
  foreign = await startIssuer('test-key-1'); // same kid, different key
  up = await startUpstream();
  cfg = gatewayConfig(up.url, issuer.jwksUrl, {
    adminEmailAllowlist: ['boss@example.com'], groupRoleMap: { Auditors: ['tenant_admin'], Admins: ['admin'] },
  });
  gw = await start(cfg);
  base = `http://127.0.0.1:${gw.port}`;
});
after(async () => { await gw.close(); await up.close(); await issuer.close(); await foreign.close(); });

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  return fetch(base + path, { ...init, headers });
}

test('missing, malformed, alg none, expired, foreign-key, wrong issuer and wrong audience tokens get 401', async () => {
  const cases: Array<[string, string | undefined]> = [
    ['missing', undefined],
    ['malformed', 'not-a-jwt'],
    ['alg none', `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`],
    ['expired', await issuer.mint(claims({ iat: now() - 7200, exp: now() - 3600 }))],
    ['foreign key', await foreign.mint(claims())],
    ['wrong issuer', await issuer.mint(claims({ iss: 'http://evil.example/auth' }))],
    ['wrong audience', await issuer.mint(claims({ aud: 'someone-else' }))],
    ['no aud', await issuer.mint(claims({ aud: undefined }))],
    ['no exp', await issuer.mint(claims({ exp: undefined }))],
    ['no sub', await issuer.mint(claims({ sub: undefined }))],
  ];
  for (const [name, token] of cases) {
    const r = await call('/v1/sessions', token === undefined ? {} : { token });
    assert.equal(r.status, 401, name);
    const body = await r.json() as { code: string; error: string };
    assert.match(body.code, /^token_(missing|invalid|expired)$/, name);
    assert.equal(typeof body.error, 'string');
  }
  assert.equal(up.seen.length, 0, 'nothing reached the upstream');
});

test('valid token: spoofed identity headers are replaced by stamped ones', async () => {
  up.seen.length = 0;
  const token = await issuer.mint(claims());
  const r = await call('/v1/sessions?x=1', {
    token,
    headers: {
      'x-user-id': 'mallory', 'x-user-roles': 'admin', 'x-user-email': 'm@evil', 'x-svc-principal': 'forged.sig',
      'x-svc-turn-id': 'forged', 'x-svc-cap-token': 'forged.cap', 'x-tenant-id': 'acme',
    },
  });
  assert.equal(r.status, 200);
  const turn = r.headers.get('x-svc-turn-id');
  assert.match(turn ?? '', /^[0-9A-HJKMNP-TV-Z]{26}$/);
  const seen = up.seen.at(-1)!;
  assert.equal(seen.url, '/v1/sessions?x=1');
  assert.equal(seen.headers['x-user-id'], 'user-1');
  assert.equal(seen.headers['x-user-email'], 'ana@example.com');
  assert.equal(seen.headers['x-user-roles'], 'user');
  assert.equal(seen.headers['x-tenant-id'], 'acme');
  assert.equal(seen.headers['x-svc-turn-id'], turn);
  assert.equal(seen.headers.authorization, undefined, 'user bearer is not forwarded');
  assert.ok(seen.headers['x-correlation-id']);
  const p = verifyStamp<Principal>(seen.headers['x-svc-principal'] as string, cfg.principalKeys);
  assert.ok(p.ok);
  if (p.ok) {
    assert.equal(p.payload.id, 'user-1');
    assert.equal(p.payload.tenant_id, 'acme');
    assert.deepEqual(p.payload.roles, ['user']);
    assert.equal(p.payload.auth_method, 'password');
    assert.equal(p.payload.local_iss, TEST_ISSUER);
    assert.ok(p.payload.exp - p.payload.iat === 300);
  }
  const c = verifyStamp<CapabilityToken>(seen.headers['x-svc-cap-token'] as string, cfg.capTokenKeys);
  assert.ok(c.ok);
  if (c.ok) {
    assert.equal(c.payload.turn_id, turn);
    assert.equal(c.payload.sub, 'user-1');
    assert.deepEqual(c.payload.scopes, ['agent.invoke', 'tool.*', 'memory.*', 'knowledge.*', 'guardrail.*']);
  }
});

test('each authenticated request gets a new turn id', async () => {
  const token = await issuer.mint(claims());
  const a = await call('/v1/sessions', { token });
  const b = await call('/v1/sessions', { token });
  assert.notEqual(a.headers.get('x-svc-turn-id'), b.headers.get('x-svc-turn-id'));
});

test('mismatched X-Tenant-ID gets 403', async () => {
  const token = await issuer.mint(claims());
  const r = await call('/v1/sessions', { token, headers: { 'x-tenant-id': 'other' } });
  assert.equal(r.status, 403);
  assert.equal((await r.json() as { code: string }).code, 'tenant_mismatch');
});

test('admin guard: a user gets 403 on admin paths even with forged X-User-Roles; admins, allow-listed emails and mapped groups pass', async () => {
  const user = await issuer.mint(claims());
  const r1 = await call('/v1/admin/users', { token: user, headers: { 'x-user-roles': 'admin' } });
  assert.equal(r1.status, 403);
  assert.equal((await r1.json() as { code: string }).code, 'admin_required');
  const r2 = await call('/v1/admin/status', { token: user });
  assert.equal(r2.status, 403);

  const admin = await issuer.mint(claims({ sub: 'admin-1', realm_access: { roles: ['admin'] } }));
  const r3 = await call('/v1/admin/users', { token: admin });
  assert.equal(r3.status, 200);

  const boss = await issuer.mint(claims({ sub: 'boss', email: 'Boss@Example.com' }));
  assert.equal((await call('/v1/admin/users', { token: boss })).status, 200);

  const grouped = await issuer.mint(claims({ sub: 'g', groups: ['Admins', 'Auditors'] }));
  up.seen.length = 0;
  assert.equal((await call('/v1/admin/users', { token: grouped })).status, 200);
  assert.equal(up.seen.at(-1)!.headers['x-user-roles'], 'admin,tenant_admin,user');
});

test('a body over the limit gets 413 and never reaches the service', async () => {
  const token = await issuer.mint(claims());
  up.seen.length = 0;
  const r = await call('/v1/chat', { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'a'.repeat(5000) }) });
  assert.equal(r.status, 413);
  assert.equal((await r.json() as { code: string }).code, 'payload_too_large');
  assert.equal(up.seen.length, 0);
  const ok = await call('/v1/chat', { token, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'small' }) });
  assert.equal(ok.status, 200);
  assert.equal(up.seen.at(-1)!.body, JSON.stringify({ x: 'small' }), 'body forwarded byte for byte');
});

test('routing: longest match wins, sandbox prefix stripped, admin inference rewritten, reserved patterns 404', async () => {
  const admin = await issuer.mint(claims({ realm_access: { roles: ['admin'] } }));
  const paths: Array<[string, string]> = [
    ['/v1/sandbox/execute', '/execute'],
    ['/v1/admin/inference/providers/p1/models', '/v1/internal/providers/p1/models'],
    ['/v1/admin/egress/allowlist', '/v1/internal/egress/allowlist'],
    ['/v1/receipts/01ABC/proof', '/v1/receipts/01ABC/proof'],
  ];
  for (const [path, expected] of paths) {
    up.seen.length = 0;
    const r = await call(path, { token: admin });
    assert.equal(r.status, 200, path);
    assert.equal(up.seen.at(-1)!.url, expected, path);
  }
  for (const path of ['/v1/connectors', '/v1/connectors/x', '/v1/workflows']) {
    const r = await call(path, { token: admin });
    assert.equal(r.status, 404, path);
    const body = await r.json() as { code: string; error: string };
    assert.equal(body.code, 'not_found');
    assert.match(body.error, /reserved/);
  }
  const nf = await call('/nope', { token: admin });
  assert.equal(nf.status, 404);
});

test('the OAuth callback, webhooks and public auth routes bypass the bearer chain', async () => {
  for (const [method, path] of [['GET', '/v1/oauth/github/callback?code=1'], ['POST', '/v1/webhook'], ['POST', '/v1/webhook/slack'], ['POST', '/v1/auth/login'], ['GET', '/v1/auth/config']] as const) {
    up.seen.length = 0;
    const r = await call(path, { method, headers: { 'x-user-id': 'spoof', 'x-svc-principal': 'forged' }, ...(method === 'POST' ? { body: '{}' } : {}) });
    assert.equal(r.status, 200, path);
    const seen = up.seen.at(-1)!;
    assert.equal(seen.headers['x-user-id'], undefined, `${path}: spoofed header stripped`);
    assert.equal(seen.headers['x-svc-principal'], undefined, `${path}: no principal on a public route`);
  }
  assert.equal((await call('/v1/auth/verify')).status, 401, 'verify needs a bearer');
});

test('turn_started and turn_sealed reach audit for every authenticated request', async () => {
  const token = await issuer.mint(claims());
  const r = await call('/v1/sessions', { token });
  const turn = r.headers.get('x-svc-turn-id')!;
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && up.events.filter((e) => e.turn_id === turn).length < 2) await new Promise((res) => setTimeout(res, 20));
  const mine = up.events.filter((e) => e.turn_id === turn);
  assert.deepEqual(mine.map((e) => e.payload_type), ['turn_started', 'turn_sealed']);
  assert.equal(mine[0]!.tenant_id, 'acme');
  assert.equal(mine[0]!.principal_id, 'user-1');
  assert.equal(mine[0]!.emitter_service, 'gateway');
  assert.ok(mine[1]!.sequence_in_service > mine[0]!.sequence_in_service);
});

test('turn events are retried while audit is unavailable, and none is lost', async () => {
  const token = await issuer.mint(claims());
  up.failEvents = 3;
  const turns: string[] = [];
  for (let i = 0; i < 5; i++) turns.push((await call('/v1/sessions', { token })).headers.get('x-svc-turn-id')!);
  const deadline = Date.now() + 8000;
  const have = (): number => up.events.filter((e) => turns.includes(e.turn_id)).length;
  while (Date.now() < deadline && have() < 10) await new Promise((res) => setTimeout(res, 50));
  assert.equal(have(), 10);
  assert.equal(up.failEvents, 0, 'the failing posts were attempted');
});

test('a service that is down gets 502 {"error":"service unavailable"}', async () => {
  const down = gatewayConfig('http://127.0.0.1:9', issuer.jwksUrl);
  const g2 = await start(down);
  try {
    const token = await issuer.mint(claims());
    const r = await fetch(`http://127.0.0.1:${g2.port}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(r.status, 502);
    assert.equal(await r.text(), '{"error":"service unavailable"}');
  } finally { await g2.close(); }
});

test('dev mode with auth disabled stamps the anonymous principal', async () => {
  const dev = gatewayConfig(up.url, issuer.jwksUrl, { authEnabled: false });
  const g2 = await start(dev);
  try {
    up.seen.length = 0;
    const r = await fetch(`http://127.0.0.1:${g2.port}/v1/sessions`);
    assert.equal(r.status, 200);
    const p = verifyStamp<Principal>(up.seen.at(-1)!.headers['x-svc-principal'] as string, dev.principalKeys);
    assert.ok(p.ok && p.payload.auth_method === 'anonymous' && p.payload.id === 'anonymous');
  } finally { await g2.close(); }
});
