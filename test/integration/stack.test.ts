/**
 * The whole headless stack through its public surface, as the "Done when" walks it:
 * bootstrap admin signs in, creates a user; spoofed headers, `alg: none`, foreign keys, tenant
 * mismatch, admin guard, body limit, rate limit, bad passwords and malformed bodies each get their
 * status and stable code; every service reports on /v1/admin/status; a crashed worker restarts; a
 * request's turn is sealed into a receipt.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, generateKeyPair } from 'jose';
import { startStack, login, ADMIN, type TestStack } from '../helpers/stack.js';
import { SERVICE_NAMES } from '../../services/shared/services.js';

let s: TestStack;
let adminToken: string;

before(async () => {
  s = await startStack({ SVC_GATEWAY_MAX_REQUEST_BODY_BYTES: '65536', SVC_RATE_LIMIT_IP_PER_MINUTE: '100000' });
  adminToken = await login(s.url, ADMIN.email, ADMIN.password);
});
after(async () => { await s.stop(); });

const auth = (t: string, extra: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${t}`, ...extra });

test('every service of the spec table runs and reports on /v1/admin/status', async () => {
  const r = await fetch(`${s.url}/v1/admin/status`, { headers: auth(adminToken) });
  assert.equal(r.status, 200);
  const body = await r.json() as { services: Array<{ name: string; state: string; port: number; restarts: number; uptime_seconds: number }> };
  assert.deepEqual(body.services.map((x) => x.name).sort(), [...SERVICE_NAMES].sort());
  for (const svc of body.services) {
    assert.equal(svc.state, 'ready', svc.name);
    assert.ok(svc.port > 0);
    assert.equal(svc.restarts, 0);
    const h = await fetch(`http://127.0.0.1:${svc.port}/healthz`);
    assert.equal(h.status, 200, `${svc.name} /healthz`);
    const m = await fetch(`http://127.0.0.1:${svc.port}/metrics`);
    assert.match(await m.text(), /process_cpu_user_seconds_total/, `${svc.name} /metrics`);
  }
});

test('admin creates a user who signs in; the user cannot use admin paths even with forged headers', async () => {
  const created = await fetch(`${s.url}/v1/admin/users`, {
    method: 'POST', headers: auth(adminToken, { 'content-type': 'application/json' }),
    body: JSON.stringify({ email: 'bea@example.com', display_name: 'Bea', password: 'a long password', roles: ['user'] }),
  });
  assert.equal(created.status, 201);
  const userToken = await login(s.url, 'bea@example.com', 'a long password');
  const me = await fetch(`${s.url}/v1/user/me`, { headers: auth(userToken, { 'x-user-id': 'admin', 'x-user-roles': 'admin' }) });
  assert.equal(me.status, 200);
  const meBody = await me.json() as { email: string; roles: string[] };
  assert.equal(meBody.email, 'bea@example.com');
  assert.deepEqual(meBody.roles, ['user']);
  const forged = await fetch(`${s.url}/v1/admin/users`, { headers: auth(userToken, { 'x-user-roles': 'admin', 'x-svc-principal': 'x.y' }) });
  assert.equal(forged.status, 403);
  const list = await fetch(`${s.url}/v1/admin/users`, { headers: auth(adminToken) });
  assert.equal(list.status, 200);
  assert.ok((await list.json() as { items: Array<{ email: string }> }).items.some((u) => u.email === 'bea@example.com'));
});

test('alg none and foreign-key tokens get 401; tenant mismatch 403; body over the limit 413', async () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: `${s.url}/auth`, aud: 'svc-frontend', sub: 'x', iat: now, exp: now + 300, realm_access: { roles: ['admin'] } };
  const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
  assert.equal((await fetch(`${s.url}/v1/user/me`, { headers: auth(none) })).status, 401);
  const { privateKey } = await generateKeyPair('ES256');
  const foreign = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'foreign' }).sign(privateKey);
  assert.equal((await fetch(`${s.url}/v1/user/me`, { headers: auth(foreign) })).status, 401);
  assert.equal((await fetch(`${s.url}/v1/user/me`, { headers: auth(adminToken, { 'x-tenant-id': 'evil' }) })).status, 403);
  const big = await fetch(`${s.url}/v1/admin/users`, { method: 'POST', headers: auth(adminToken, { 'content-type': 'application/json' }), body: JSON.stringify({ pad: 'x'.repeat(70_000) }) });
  assert.equal(big.status, 413);
});

test('wrong password 401, malformed body 400, unknown route 404, all with stable codes', async () => {
  const bad = await fetch(`${s.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: ADMIN.email, password: 'nope-nope' }) });
  assert.equal(bad.status, 401);
  assert.equal((await bad.json() as { code: string }).code, 'invalid_credentials');
  const malformed = await fetch(`${s.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' });
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json() as { code: string }).code, 'invalid_request');
  const wrongType = await fetch(`${s.url}/v1/admin/users`, { method: 'POST', headers: auth(adminToken, { 'content-type': 'application/json' }), body: JSON.stringify({ email: 5 }) });
  assert.equal(wrongType.status, 400);
  const unknown = await fetch(`${s.url}/v1/nothing-here`, { headers: auth(adminToken) });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json() as { code: string }).code, 'not_found');
});

test('an authenticated request is sealed into a receipt that audit serves', async () => {
  const r = await fetch(`${s.url}/v1/user/me`, { headers: auth(adminToken) });
  const turn = r.headers.get('x-svc-turn-id');
  assert.ok(turn);
  let status = 0;
  let body: { receipt?: { status: string; sealed: boolean }; events?: Array<{ payload_type: string }> } = {};
  for (let i = 0; i < 100 && status !== 200; i++) {
    await new Promise((res) => setTimeout(res, 50));
    const rr = await fetch(`${s.url}/v1/receipts/${turn}`, { headers: auth(adminToken) });
    status = rr.status;
    body = await rr.json() as typeof body;
  }
  assert.equal(status, 200);
  assert.equal(body.receipt?.sealed, true);
  assert.deepEqual(body.events?.map((e) => e.payload_type), ['turn_started', 'turn_sealed']);
});

test('a crashed worker is restarted and its restart counted', async () => {
  const w = s.sup.worker('memory');
  assert.ok(w);
  await w.terminate();
  let memory: { state: string; restarts: number } | undefined;
  for (let i = 0; i < 100; i++) {
    await new Promise((res) => setTimeout(res, 50));
    memory = s.sup.status().find((x) => x.name === 'memory');
    if (memory?.state === 'ready' && memory.restarts === 1) break;
  }
  assert.equal(memory?.state, 'ready');
  assert.equal(memory?.restarts, 1);
  const st = await fetch(`${s.url}/v1/admin/status`, { headers: auth(adminToken) });
  const mem = (await st.json() as { services: Array<{ name: string; restarts: number }> }).services.find((x) => x.name === 'memory');
  assert.equal(mem?.restarts, 1);
});
