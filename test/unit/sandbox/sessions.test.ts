/**
 * The session table over a fake backend (issue 12 "Sessions", "Execution"): calls of one session run
 * one at a time; the cap evicts the longest-idle session or refuses when all are busy; the reaper
 * removes idle sessions; the watchdog replaces a container that does not answer or dies; the warm
 * pool hands out ready containers and refills; leftovers of another instance are removed; the
 * runner client matches answers by id and drops late ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { isDomainError } from '../../../services/shared/kit/domain-error.js';
import type { SandboxSettings } from '../../../services/sandbox/src/contracts.js';
import { Containers, WarmPool } from '../../../services/sandbox/src/domain/containers.js';
import { Engine } from '../../../services/sandbox/src/domain/engine.js';
import { RunnerClient, RunnerGone, RunnerTimeout } from '../../../services/sandbox/src/domain/runner.js';
import { SessionManager } from '../../../services/sandbox/src/domain/sessions.js';
import { FakeBackend } from './fake-backend.js';

const logger = pino({ enabled: false });
const settings: SandboxSettings = {
  backend: 'docker', image: 'img', runtime: 'auto', idleTimeoutSeconds: 60, maxSessions: 2, memLimitBytes: 64 * 1024 * 1024, cpus: 1,
  pidsLimit: 64, networkEnabled: false, gpuEnabled: false, gpuNetworkEnabled: false, maxTimeoutSeconds: 10, warmPoolSize: 0, dockerSocket: '/x',
};
const alice = { id: 'alice', tenant_id: 't', roles: ['user'], auth_method: 'password' as const };

function setup(over: Partial<SandboxSettings> = {}, instance = 'i1'): { backend: FakeBackend; sessions: SessionManager; pool: WarmPool; containers: Containers; clock: { t: number } } {
  const s = { ...settings, ...over };
  const clock = { t: 1_000_000 };
  const now = (): number => clock.t;
  const backend = new FakeBackend();
  const engine = new Engine({ backend, settings: s, logger, now });
  const containers = new Containers({ backend, engine, settings: s, logger, deployment: 'd1', instance, readyTimeoutMs: 1000, now });
  const pool = new WarmPool({ containers, size: s.warmPoolSize, logger, retryMs: 50 });
  const sessions = new SessionManager({ containers, pool, settings: s, logger, now });
  return { backend, sessions, pool, containers, clock };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try { await p; return 'none'; } catch (err) { if (isDomainError(err)) return err.code; throw err; }
}

const key = (sessionId: string): { tenantId: string; sessionId: string } => ({ tenantId: 't', sessionId });

test('one container per session, reused; calls of a session run one at a time', async () => {
  const { backend, sessions } = setup();
  backend.answerDelayMs = 20;
  const order: string[] = [];
  const run = (tag: string): Promise<void> => sessions.use(key('a'), alice, async (s) => {
    order.push(`start ${tag}`);
    await sessions.call(s, { op: 'ping' }, 1000);
    order.push(`end ${tag}`);
  });
  await Promise.all([run('1'), run('2'), run('3')]);
  assert.deepEqual(order, ['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  assert.equal(backend.containers.length, 1);
  assert.equal(backend.containers[0]!.spec.labels['org.svc.sandbox.session'], 'a');
  assert.equal(backend.containers[0]!.spec.runtime, 'runsc');
});

test('at the cap the longest-idle session is evicted; when every one is busy a new one is refused', async () => {
  const { backend, sessions, clock } = setup();
  const ping = (id: string): Promise<unknown> => sessions.use(key(id), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  await ping('a'); clock.t += 10;
  await ping('b'); clock.t += 10;
  await ping('a'); clock.t += 10;
  await ping('c');
  assert.deepEqual(sessions.snapshot().map((s) => s.key.sessionId).sort(), ['a', 'c']);
  assert.equal(backend.containers.find((c) => c.spec.labels['org.svc.sandbox.session'] === 'b')!.removed, true);
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const busyA = sessions.use(key('a'), alice, () => gate);
  const busyC = sessions.use(key('c'), alice, () => gate);
  assert.equal(await codeOf(ping('d')), 'session_limit_reached');
  release();
  await Promise.all([busyA, busyC]);
  assert.equal(await codeOf(sessions.use(key('a'), { ...alice, id: 'bob' }, async () => undefined)), 'forbidden');
});

test('the reaper removes sessions idle past the timeout, never busy ones', async () => {
  const { backend, sessions, clock } = setup({ idleTimeoutSeconds: 5 });
  await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  clock.t += 4000;
  assert.equal(sessions.reap(), 0);
  clock.t += 1000;
  assert.equal(sessions.reap(), 1);
  assert.equal(sessions.size, 0);
  assert.equal(backend.containers[0]!.removed, true);
});

test('the watchdog replaces a container that does not answer or dies; the next call gets a fresh one', async () => {
  const { backend, sessions } = setup();
  const stuck = await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'hang' }, 50));
  assert.deepEqual(stuck, { kind: 'stuck' });
  assert.equal(backend.containers[0]!.removed, true);
  const after = await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  assert.equal(after.kind === 'answer' && after.answer.container, 'c2');
  const died = await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'die' }, 1000));
  assert.deepEqual(died, { kind: 'died', exit: { exitCode: 137, oomKilled: true } });
  const again = await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  assert.equal(again.kind === 'answer' && again.answer.container, 'c3');
});

test('a container that died while idle is replaced and the next call learns its state is gone', async () => {
  const { backend, sessions } = setup();
  await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  backend.containers[0]!.stdout.end();
  await new Promise((r) => setImmediate(r));
  const lost = await sessions.use(key('a'), alice, async (s) => s.lostState);
  assert.equal(lost, true);
  assert.equal(backend.containers.length, 2);
});

test('the warm pool hands out a ready container and refills; removed on close', async () => {
  const { backend, sessions, pool } = setup({ warmPoolSize: 1 });
  pool.fill();
  for (let i = 0; i < 50 && pool.count < 1; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(pool.count, 1);
  assert.equal(backend.containers[0]!.spec.labels['org.svc.sandbox.pool'], 'warm');
  const got = await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  assert.equal(got.kind === 'answer' && got.answer.container, 'c1');
  for (let i = 0; i < 50 && pool.count < 1; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(backend.containers.length, 2);
  await pool.close();
  assert.equal(backend.containers[1]!.removed, true);
});

test('a new session waits for a warm start under way instead of starting one more', async () => {
  const { backend, sessions, pool } = setup({ warmPoolSize: 1 });
  pool.fill();
  assert.equal(pool.count, 0, 'the warm start is still under way');
  const got = await sessions.use(key('a'), alice, (s) => sessions.call(s, { op: 'ping' }, 1000));
  assert.equal(got.kind === 'answer' && got.answer.container, 'c1');
  assert.equal(backend.containers[0]!.spec.labels['org.svc.sandbox.pool'], 'warm');
  for (let i = 0; i < 50 && pool.count < 1; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(backend.containers.length, 2, 'one refill, no cold start');
  await pool.close();
});

test('engine problems refuse with their fix; a session whose container never started leaves no trace', async () => {
  const { backend, sessions } = setup();
  backend.image = false;
  let err: unknown;
  try { await sessions.use(key('a'), alice, async () => undefined); } catch (e) { err = e; }
  assert.ok(isDomainError(err));
  assert.equal(err.code, 'sandbox_image_missing');
  assert.deepEqual(err.extra, { fix: 'npm run sandbox:image' });
  assert.equal(sessions.size, 0);
});

test('crash cleanup removes only containers of this deployment made by another instance', async () => {
  const { backend, containers } = setup();
  await backend.create({ image: 'img', runtime: 'runc', labels: { 'org.svc.sandbox': '1', 'org.svc.sandbox.deployment': 'd1', 'org.svc.sandbox.instance': 'old' }, memoryBytes: 1, cpus: 1, pidsLimit: 1, network: false, gpu: false, tmpfsBytes: 1 });
  await backend.create({ image: 'img', runtime: 'runc', labels: { 'org.svc.sandbox': '1', 'org.svc.sandbox.deployment': 'd1', 'org.svc.sandbox.instance': 'i1' }, memoryBytes: 1, cpus: 1, pidsLimit: 1, network: false, gpu: false, tmpfsBytes: 1 });
  await backend.create({ image: 'img', runtime: 'runc', labels: { 'org.svc.sandbox': '1', 'org.svc.sandbox.deployment': 'd2', 'org.svc.sandbox.instance': 'old' }, memoryBytes: 1, cpus: 1, pidsLimit: 1, network: false, gpu: false, tmpfsBytes: 1 });
  assert.equal(await containers.removeLeftovers(), 1);
  assert.deepEqual(backend.containers.map((c) => c.removed), [true, false, false]);
});

test('runner client: answers matched by id, late answers and garbage dropped, a closed stream fails pending calls', async () => {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stray: string[] = [];
  const client = new RunnerClient(stdin, stdout, (l) => stray.push(l));
  stdout.write('{"id":"ready","ok":true}\n');
  await client.ready(100);
  const sent: Array<{ id: string }> = [];
  stdin.on('data', (b: Buffer) => { for (const l of b.toString().split('\n').filter(Boolean)) sent.push(JSON.parse(l) as { id: string }); });
  const slow = client.call({ op: 'a' }, 30);
  await assert.rejects(slow, RunnerTimeout);
  const next = client.call({ op: 'b' }, 1000);
  await new Promise((r) => setImmediate(r));
  stdout.write(`not json\n{"id":"${sent[0]!.id}","ok":true,"late":true}\n{"id":"${sent[1]!.id}","ok":true,"v":`);
  stdout.write('2}\n');
  assert.deepEqual(await next, { id: sent[1]!.id, ok: true, v: 2 });
  assert.equal(stray.length, 2);
  const pending = client.call({ op: 'c' }, 1000);
  stdout.end();
  await assert.rejects(pending, RunnerGone);
  assert.equal(client.alive, false);
  await assert.rejects(client.call({ op: 'd' }, 1000), RunnerGone);
});
