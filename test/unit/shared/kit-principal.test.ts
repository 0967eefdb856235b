/**
 * The `svc-principal` plugin (services/shared/kit/principal.ts): stamped principal and capability
 * token checks on private and public routes, and `requirePrincipal` / `requireRole`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildService, defineService, type BuiltService } from '../../../services/shared/kit/service.js';
import { requirePrincipal, requireRole } from '../../../services/shared/kit/principal.js';
import { signStamp, type CapabilityToken, type Principal } from '../../../services/shared/identity/principal.js';
import { CAP_KEYS, KEYS, commonConfig, silentLogger } from './support.js';

const now = (): number => Math.floor(Date.now() / 1000);

function principal(over: Partial<Principal> = {}): Principal {
  return { id: 'u1', tenant_id: 'acme', roles: ['user'], groups: [], auth_method: 'password', iat: now(), exp: now() + 300, ...over };
}

function cap(over: Partial<CapabilityToken> = {}): CapabilityToken {
  return { sub: 'u1', tenant_id: 'acme', scopes: ['tool.*'], turn_id: 't1', exp: now() + 300, ...over };
}

let built: BuiltService;

before(async () => {
  const def = defineService({
    name: 'sandbox',
    errors: {},
    setup: async ({ app }) => {
      app.get('/private', async (req) => ({ id: req.principal?.id, turn: req.turnId, cap: req.capToken?.scopes ?? null }));
      app.get('/public', { config: { public: true } }, async (req) => ({ id: req.principal?.id ?? null, turn: req.turnId }));
      app.get('/needs-one', { config: { public: true } }, async (req) => ({ id: requirePrincipal(req).id }));
      app.get('/admin', async (req) => ({ id: requireRole(req, 'admin').id }));
      app.get('/auditor', async (req) => ({ id: requireRole(req, 'auditor').id }));
    },
  });
  built = await buildService(def, commonConfig(), {}, { logger: silentLogger() });
});

after(async () => { await built.close(); });

const get = (url: string, headers: Record<string, string> = {}) => built.app.inject({ method: 'GET', url, headers });

test('a private route without a stamp answers 401 principal_missing', async () => {
  const r = await get('/private');
  assert.equal(r.statusCode, 401);
  assert.equal(r.json().code, 'principal_missing');
});

test('a forged, expired or wrongly keyed stamp answers 401 principal_invalid', async () => {
  for (const stamp of [
    'garbage',
    signStamp(principal(), ['z'.repeat(40)]),
    signStamp(principal({ iat: now() - 600, exp: now() - 1 }), KEYS),
  ]) {
    const r = await get('/private', { 'x-svc-principal': stamp });
    assert.equal(r.statusCode, 401, stamp);
    assert.equal(r.json().code, 'principal_invalid');
  }
});

test('a valid stamp (any key of the rotation) sets the principal and the turn id', async () => {
  const r = await get('/private', { 'x-svc-principal': signStamp(principal(), KEYS), 'x-svc-turn-id': 't1' });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { id: 'u1', turn: 't1', cap: null });
  const older = await get('/private', { 'x-svc-principal': signStamp(principal({ id: 'u2' }), [KEYS[1]!]) });
  assert.equal(older.statusCode, 200);
  assert.equal(older.json().id, 'u2');
});

test('a capability token must verify and be bound to the principal and the turn', async () => {
  const p = signStamp(principal(), KEYS);
  const ok = await get('/private', { 'x-svc-principal': p, 'x-svc-turn-id': 't1', 'x-svc-cap-token': signStamp(cap(), CAP_KEYS) });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json().cap, ['tool.*']);
  for (const token of [
    signStamp(cap(), KEYS), // signed with the principal keys, not the capability keys
    signStamp(cap({ sub: 'someone-else' }), CAP_KEYS),
    signStamp(cap({ turn_id: 't2' }), CAP_KEYS),
  ]) {
    const r = await get('/private', { 'x-svc-principal': p, 'x-svc-turn-id': 't1', 'x-svc-cap-token': token });
    assert.equal(r.statusCode, 401);
    assert.equal(r.json().code, 'cap_token_invalid');
  }
});

test('a public route answers without a stamp, ignores a bad one, and takes a valid one', async () => {
  assert.deepEqual((await get('/public')).json(), { id: null, turn: null });
  const bad = await get('/public', { 'x-svc-principal': 'garbage', 'x-svc-turn-id': 't9' });
  assert.equal(bad.statusCode, 200);
  assert.deepEqual(bad.json(), { id: null, turn: null });
  const good = await get('/public', { 'x-svc-principal': signStamp(principal(), KEYS), 'x-svc-turn-id': 't9' });
  assert.deepEqual(good.json(), { id: 'u1', turn: 't9' });
});

test('requirePrincipal and requireRole: 401 without one, 403 admin_required / forbidden without the role', async () => {
  const none = await get('/needs-one');
  assert.equal(none.statusCode, 401);
  assert.equal(none.json().code, 'principal_missing');
  const user = signStamp(principal(), KEYS);
  const admin = await get('/admin', { 'x-svc-principal': user });
  assert.equal(admin.statusCode, 403);
  assert.equal(admin.json().code, 'admin_required');
  const auditor = await get('/auditor', { 'x-svc-principal': user });
  assert.equal(auditor.statusCode, 403);
  assert.equal(auditor.json().code, 'forbidden');
  const ok = await get('/admin', { 'x-svc-principal': signStamp(principal({ roles: ['admin'] }), KEYS) });
  assert.equal(ok.statusCode, 200);
});

test('health and metrics are public', async () => {
  assert.equal((await get('/healthz')).statusCode, 200);
  assert.equal((await get('/readyz')).statusCode, 200);
  assert.equal((await get('/metrics')).statusCode, 200);
});
