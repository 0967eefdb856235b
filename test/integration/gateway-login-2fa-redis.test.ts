/**
 * Parked logins shared through Redis (issue 14 item 3; spec "Mobile-push second factor" step 3,
 * `REDIS_URL` "enables ... shared pending-challenge store"): with two gateways in front of one auth
 * service and one real redis-server, a login parked by one gateway is released by the other, once;
 * Redis holds it sealed (no token in the value); `GETDEL` hands it to exactly one of many concurrent
 * takers; with the in-process store the other gateway cannot release it (410); and with Redis gone
 * the login fails closed (503, no token). Needs Debian's redis-server (CI installs it); skipped with
 * a message where it is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { start as startAuth } from '../../services/auth/src/index.js';
import { start as startGateway } from '../../services/gateway/src/index.js';
import { PARKING_KEY_PREFIX, RedisChallengeParking } from '../../services/gateway/src/store/challenge-parking-redis.js';
import type { GatewayConfig } from '../../services/shared/config.js';
import { freePort } from '../../main/supervisor/index.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, authConfig, gatewayForAuth } from '../helpers/auth.js';
import { pairPhone } from '../helpers/phone-device.js';

const hasRedis = spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;
const skip = hasRedis ? false : 'redis-server is not installed (apt-get install redis-server)';

/** Start redis-server on a free loopback port in a temp dir; resolves once it accepts connections. */
async function startRedis(): Promise<{ url: string; proc: ChildProcess; stop(): void }> {
  const port = await freePort('127.0.0.1');
  const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, proc, stop: () => { proc.kill('SIGTERM'); rmSync(dir, { recursive: true, force: true }); } };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function post(base: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(base + path, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

test('two gateways share parked logins through Redis: parked by one, released once by the other, sealed at rest', { skip }, async (t) => {
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), 'svc-2fa-redis-'));
  const authCfg = authConfig(dir);
  const auth = await startAuth(authCfg);
  const gwCfg: GatewayConfig = { ...gatewayForAuth(authCfg, `http://127.0.0.1:${auth.port}`), redisUrl: redis.url };
  const a = await startGateway(gwCfg);
  const b = await startGateway(gwCfg);
  const local = await startGateway({ ...gwCfg, redisUrl: null });
  const spy = new Redis(redis.url);
  t.after(async () => {
    spy.disconnect();
    await a.close(); await b.close(); await local.close(); await auth.close();
    redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const A = `http://127.0.0.1:${a.port}`;
  const B = `http://127.0.0.1:${b.port}`;
  const L = `http://127.0.0.1:${local.port}`;

  // The admin pairs a phone (through A), so the admin's next login needs it.
  const first = await post(A, '/v1/auth/login', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  assert.equal(first.status, 200, first.text);
  const pairing = await post(A, '/v1/account/devices/pairing', {}, first.body.access_token);
  assert.equal(pairing.status, 201, pairing.text);
  const phone = await pairPhone(B, pairing.body.enrollment_url as string);

  const parked = await post(A, '/v1/auth/login', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  assert.equal(parked.status, 202, parked.text);
  const id = parked.body.challenge_id as string;
  const stored = await spy.get(PARKING_KEY_PREFIX + id);
  assert.ok(stored, 'the login is parked in Redis');
  // No JSON field names and no JWT (header.payload, both base64url JSON): a lone "eyJ" can occur in random ciphertext.
  assert.doesNotMatch(stored, /access_token|refresh_token|eyJ[\w-]{8,}\.eyJ/, 'sealed: no token at rest');
  const ttl = await spy.pttl(PARKING_KEY_PREFIX + id);
  assert.ok(ttl > 100_000 && ttl <= 150_000, `parked for the challenge's lifetime plus grace: ${ttl} ms`);

  assert.equal((await post(B, '/v1/auth/login/2fa', { challenge_id: id })).status, 202);
  assert.equal((await phone.answer(id, 'approve', parked.body.number_match)).body.status, 'approved');
  const released = await post(B, '/v1/auth/login/2fa', { challenge_id: id });
  assert.equal(released.status, 200, released.text);
  assert.ok(released.body.access_token, 'gateway B released what gateway A parked');
  assert.equal(await spy.exists(PARKING_KEY_PREFIX + id), 0, 'taken out of Redis');
  assert.equal((await post(A, '/v1/auth/login/2fa', { challenge_id: id })).status, 409, 'and never again');

  // Without the shared store another gateway cannot release it.
  const alone = await post(L, '/v1/auth/login', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  assert.equal(alone.status, 202);
  assert.equal((await phone.answer(alone.body.challenge_id, 'approve', alone.body.number_match)).body.status, 'approved');
  const elsewhere = await post(A, '/v1/auth/login/2fa', { challenge_id: alone.body.challenge_id });
  assert.equal(elsewhere.status, 410);
  assert.equal(elsewhere.body.code, 'challenge_expired');
});

test('GETDEL hands a parked login to exactly one of many concurrent takers on two connections', { skip }, async (t) => {
  const redis = await startRedis();
  const c1 = new Redis(redis.url);
  const c2 = new Redis(redis.url);
  t.after(() => { c1.disconnect(); c2.disconnect(); redis.stop(); });
  const keys = ['k'.repeat(32)];
  const p1 = new RedisChallengeParking(c1, keys);
  const p2 = new RedisChallengeParking(c2, keys);
  const login = { bundle: '{"access_token":"x"}', user_id: 'u1', expires_at: new Date(Date.now() + 60_000).toISOString() };
  for (let round = 0; round < 20; round++) {
    const id = `01J00000000000000000000${String(round).padStart(3, '0')}`;
    await p1.park(id, login, 60_000);
    const takes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? p1 : p2).take(id)));
    assert.equal(takes.filter((x) => x !== null).length, 1, `round ${round}`);
  }
  // A rotated key list (new key first) still opens what the old key sealed; an unrelated key does not.
  await p1.park('01J0000000000000000000ROT1', login, 60_000);
  assert.deepEqual(await new RedisChallengeParking(c2, ['n'.repeat(32), keys[0]!]).take('01J0000000000000000000ROT1'), login);
  await p1.park('01J0000000000000000000ROT2', login, 60_000);
  assert.equal(await new RedisChallengeParking(c2, ['n'.repeat(32)]).take('01J0000000000000000000ROT2'), null);
});

test('Redis gone: a login that needs its second factor fails closed (503, no token)', { skip }, async (t) => {
  const redis = await startRedis();
  const dir = mkdtempSync(join(tmpdir(), 'svc-2fa-redis-down-'));
  const authCfg = authConfig(dir);
  const auth = await startAuth(authCfg);
  const gw = await startGateway({ ...gatewayForAuth(authCfg, `http://127.0.0.1:${auth.port}`), redisUrl: redis.url });
  t.after(async () => { await gw.close(); await auth.close(); redis.stop(); rmSync(dir, { recursive: true, force: true }); });
  const G = `http://127.0.0.1:${gw.port}`;
  const first = await post(G, '/v1/auth/login', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  const pairing = await post(G, '/v1/account/devices/pairing', {}, first.body.access_token);
  await pairPhone(G, pairing.body.enrollment_url as string);
  redis.proc.kill('SIGKILL');
  await new Promise((r) => redis.proc.once('exit', r));
  const r = await post(G, '/v1/auth/login', { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
  assert.equal(r.status, 503, r.text);
  assert.equal(r.body.code, 'service_unavailable');
  assert.doesNotMatch(r.text, /access_token|refresh_token/);
});
