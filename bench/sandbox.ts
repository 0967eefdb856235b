/**
 * Sandbox figures (issue 12 "Figures"), side by side in one run, under runc and, where the engine
 * lists it, gVisor's runsc:
 *  (a) warm `POST /execute` of `print(1)` through the service over HTTP, p50, against
 *      `docker exec <container> python3 -c 'print(1)'` on the same image and runtime, p50
 *      (target ratio <= 0.5: the long-lived runner beats an exec per call);
 *  (b) the first call of a new session with the warm pool filled, p50, against a bare hardened
 *      `docker run --rm <image> python3 -c 'print(1)'`, p50 (target ratio <= 0.3);
 *  (c) 10 sessions executing at once: every answer correct, no state seen across sessions (each
 *      reads back its own variable and finds another session's undefined), throughput in calls/s;
 *  (d) the service's overhead per call above the runner itself: HTTP p50 minus the runner's own
 *      `duration_ms` p50;
 *  (e) the warm and first-call figures under runsc beside runc.
 * The service runs in a worker thread, as under the supervisor. Skipped, with the reason and the
 * fix, when no Docker engine answers or the image is not built.
 *
 * Alone: `node dist/bench/sandbox.js` (after `npm run build`); in `npm run bench` with the others.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { dockerClient, dockerMissing, engineRuntimes, sandboxConfig } from '../test/helpers/sandbox.js';
import { removeDir } from '../test/helpers/service-configs.js';
import { stampedHeaders, testPrincipal } from '../test/helpers/principals.js';
import { pct, spawnService, runIfEntry } from './support/measure.js';
import type { Figure } from './audit.js';

const run = promisify(execFile);
const SANDBOX = pathToFileURL(fileURLToPath(new URL('../services/sandbox/src/index.js', import.meta.url))).href;
const IMAGE = process.env.SANDBOX_IMAGE || 'svc-sandbox:latest';
const TENANT = 'acme';
/** The hardened flags of a bare container, as the issue measures it (the service adds a CPU quota and no logs). */
const HARDENED = ['--network', 'none', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--read-only', '--tmpfs', '/tmp:size=64m',
  '--pids-limit', '128', '--memory', '512m', '--mount', 'type=volume,target=/workspace'];
const WARM_CALLS = 30;
const EXEC_CALLS = 30;
const FIRST_CALLS = 10;
const BARE_RUNS = 10;
const CONCURRENT_SESSIONS = 10;
const CONCURRENT_ROUNDS = 5;

type Runtime = 'runc' | 'runsc';
interface RuntimeFigures {
  runtime: Runtime;
  warmP50: number;
  runnerP50: number;
  execP50: number;
  firstP50: number;
  bareP50: number;
  throughput: number;
  concurrentOk: boolean;
  concurrentNote: string;
}

/** Headers of a fresh stamp (a stamp lives five minutes; the bench may run longer). */
const as = (id: string, roles: string[]): Record<string, string> => ({ ...stampedHeaders(testPrincipal(id, roles, TENANT)), 'content-type': 'application/json' });

async function post(pool: Pool, path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any; ms: number }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const t0 = performance.now();
  const r = await pool.request({ method: 'POST', path, headers, body: JSON.stringify(body) });
  const parsed = await r.body.json();
  return { status: r.statusCode, body: parsed, ms: performance.now() - t0 };
}

async function execute(pool: Pool, session: string, code: string, user = 'bench-user'): Promise<{ status: number; body: any; ms: number }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await post(pool, '/execute', as(user, ['user']), { code, language: 'python', tenant_id: TENANT, session_id: session });
  if (r.status !== 200) throw new Error(`execute in ${session}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

/** Wait until the warm pool holds `size` ready containers. */
async function poolFilled(pool: Pool, size: number, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const r = await pool.request({ method: 'GET', path: '/sessions', headers: as('bench-admin', ['admin']) });
    const b = await r.body.json() as { warm?: number };
    if ((b.warm ?? 0) >= size) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the warm pool did not fill to ${size} in ${ms} ms`);
}

async function removeSession(pool: Pool, session: string): Promise<void> {
  const r = await pool.request({ method: 'DELETE', path: `/sessions/${TENANT}/${session}`, headers: as('bench-admin', ['admin']) });
  await r.body.dump();
}

/** `docker exec` p50 of `print(1)` in a hardened container of the image under `runtime`. */
async function dockerExecP50(runtime: Runtime): Promise<number> {
  const { stdout } = await run('docker', ['run', '-d', '--runtime', runtime, ...HARDENED, IMAGE, 'sleep', 'infinity']);
  const id = stdout.trim();
  try {
    await run('docker', ['exec', id, 'python3', '-c', 'print(1)']);
    const lat: number[] = [];
    for (let i = 0; i < EXEC_CALLS; i++) {
      const t0 = performance.now();
      const r = await run('docker', ['exec', id, 'python3', '-c', 'print(1)']);
      lat.push(performance.now() - t0);
      if (r.stdout !== '1\n') throw new Error(`docker exec answered ${JSON.stringify(r.stdout)}`);
    }
    return pct(lat, 50);
  } finally {
    await run('docker', ['rm', '-f', '-v', id]).catch(() => undefined);
  }
}

/** Bare hardened `docker run --rm` p50 of `print(1)` under `runtime`. */
async function dockerRunP50(runtime: Runtime): Promise<number> {
  const lat: number[] = [];
  for (let i = 0; i < BARE_RUNS; i++) {
    const t0 = performance.now();
    const r = await run('docker', ['run', '--rm', '--runtime', runtime, ...HARDENED, IMAGE, 'python3', '-c', 'print(1)']);
    lat.push(performance.now() - t0);
    if (r.stdout !== '1\n') throw new Error(`docker run answered ${JSON.stringify(r.stdout)}`);
  }
  return pct(lat, 50);
}

async function measure(runtime: Runtime): Promise<RuntimeFigures> {
  const cfg = sandboxConfig({ tenantId: TENANT, env: { SANDBOX_RUNTIME: runtime, SANDBOX_WARM_POOL: '2', SANDBOX_IMAGE: IMAGE } });
  const svc = await spawnService(SANDBOX, { ...cfg, logLevel: 'warn' });
  const pool = new Pool(`http://127.0.0.1:${svc.port}`, { connections: CONCURRENT_SESSIONS + 2 });
  try {
    // (a), (d): warm calls on one session.
    await execute(pool, 'warm', 'print(1)');
    const warm: number[] = [];
    const runner: number[] = [];
    for (let i = 0; i < WARM_CALLS; i++) {
      const r = await execute(pool, 'warm', 'print(1)');
      if (r.body.stdout !== '1\n' || r.body.runtime !== runtime) throw new Error(`warm call answered ${JSON.stringify(r.body)}`);
      warm.push(r.ms);
      runner.push(Number(r.body.duration_ms));
    }
    await removeSession(pool, 'warm');
    const execP50 = await dockerExecP50(runtime);

    // (b): first call of a new session, the pool filled before each.
    const first: number[] = [];
    for (let i = 0; i < FIRST_CALLS; i++) {
      await poolFilled(pool, 2);
      const r = await execute(pool, `first-${i}`, 'print(1)');
      if (r.body.stdout !== '1\n') throw new Error(`first call answered ${JSON.stringify(r.body)}`);
      first.push(r.ms);
      await removeSession(pool, `first-${i}`);
    }
    const bareP50 = await dockerRunP50(runtime);

    // (c): 10 sessions at once, each with its own variable; another session's name is undefined.
    const ids = Array.from({ length: CONCURRENT_SESSIONS }, (_, i) => i);
    await Promise.all(ids.map((i) => execute(pool, `c-${i}`, `mine = 'session-${i}'\nsecret_${i} = ${i * 7}`, `bench-user-${i}`)));
    let ok = 0;
    const bad: string[] = [];
    const t0 = performance.now();
    for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
      const answers = await Promise.all(ids.map((i) => {
        const other = (i + 1 + round) % CONCURRENT_SESSIONS;
        return execute(pool, `c-${i}`, `print(mine, secret_${i}, 'secret_${other}' in globals(), 'mine' in globals())`, `bench-user-${i}`)
          .then((r) => ({ i, stdout: r.body.stdout as string }));
      }));
      for (const a of answers) {
        if (a.stdout === `session-${a.i} ${a.i * 7} False True\n`) ok++;
        else bad.push(`c-${a.i}: ${JSON.stringify(a.stdout)}`);
      }
    }
    const wall = (performance.now() - t0) / 1000;
    const total = CONCURRENT_ROUNDS * CONCURRENT_SESSIONS;
    for (const i of ids) await removeSession(pool, `c-${i}`);
    return {
      runtime, warmP50: pct(warm, 50), runnerP50: pct(runner, 50), execP50, firstP50: pct(first, 50), bareP50,
      throughput: total / wall, concurrentOk: ok === total, concurrentNote: bad.length ? bad.slice(0, 3).join('; ') : `${ok}/${total} correct`,
    };
  } finally {
    await pool.close();
    await svc.stop();
    removeDir(cfg.dataDir);
  }
}

/** Why the bench cannot run here (no engine, no image), with the fix; null when it can. */
async function missing(): Promise<string | null> {
  const noEngine = await dockerMissing();
  if (noEngine) return noEngine;
  try {
    await dockerClient().getImage(IMAGE).inspect();
    return null;
  } catch {
    return `the image ${IMAGE} is not built (fix: npm run sandbox:image)`;
  }
}

export async function main(): Promise<Figure[]> {
  console.log('== sandbox: warm execute vs docker exec, first call vs docker run, 10 sessions at once ==');
  const why = await missing();
  if (why) {
    console.log(`sandbox bench skipped: ${why}`);
    return [];
  }
  const listed = await engineRuntimes();
  const runtimes: Runtime[] = listed.includes('runsc') ? ['runc', 'runsc'] : ['runc'];
  if (!listed.includes('runsc')) console.log('sandbox: the engine does not list runsc (gVisor): runc figures only');
  const all: RuntimeFigures[] = [];
  for (const rt of runtimes) {
    const f = await measure(rt);
    all.push(f);
    console.log(`${rt.padEnd(5)} warm execute p50 ${f.warmP50.toFixed(1)} ms (runner ${f.runnerP50.toFixed(2)} ms, service overhead ${(f.warmP50 - f.runnerP50).toFixed(1)} ms)`
      + ` vs docker exec p50 ${f.execP50.toFixed(1)} ms: ratio ${(f.warmP50 / f.execP50).toFixed(3)} (target <= 0.5)`);
    console.log(`${rt.padEnd(5)} first call p50 ${f.firstP50.toFixed(1)} ms (warm pool) vs docker run --rm p50 ${f.bareP50.toFixed(1)} ms: ratio ${(f.firstP50 / f.bareP50).toFixed(3)} (target <= 0.3)`);
    console.log(`${rt.padEnd(5)} ${CONCURRENT_SESSIONS} sessions at once: ${f.concurrentNote}, ${f.throughput.toFixed(1)} calls/s`);
  }
  if (all.length === 2) {
    const [c, g] = all as [RuntimeFigures, RuntimeFigures];
    console.log(`runsc/runc: warm ${(g.warmP50 / c.warmP50).toFixed(2)}x, first call ${(g.firstP50 / c.firstP50).toFixed(2)}x, docker run ${(g.bareP50 / c.bareP50).toFixed(2)}x`);
  }
  return all.flatMap((f) => [
    { name: `sandbox ${f.runtime} warm execute p50 / docker exec p50`, value: f.warmP50 / f.execP50, unit: '', target: '<= 0.5', pass: f.warmP50 / f.execP50 <= 0.5 },
    { name: `sandbox ${f.runtime} warm execute p50 (HTTP)`, value: f.warmP50, unit: 'ms' },
    { name: `sandbox ${f.runtime} docker exec p50`, value: f.execP50, unit: 'ms' },
    { name: `sandbox ${f.runtime} first call p50 / docker run --rm p50`, value: f.firstP50 / f.bareP50, unit: '', target: '<= 0.3', pass: f.firstP50 / f.bareP50 <= 0.3 },
    { name: `sandbox ${f.runtime} first call p50 (warm pool)`, value: f.firstP50, unit: 'ms' },
    { name: `sandbox ${f.runtime} docker run --rm p50 (hardened)`, value: f.bareP50, unit: 'ms' },
    { name: `sandbox ${f.runtime} ${CONCURRENT_SESSIONS} sessions at once: answers correct, no state across sessions`, value: f.concurrentOk ? 1 : 0, unit: '', target: '1', pass: f.concurrentOk },
    { name: `sandbox ${f.runtime} ${CONCURRENT_SESSIONS} sessions at once: throughput`, value: f.throughput, unit: 'calls/s' },
    { name: `sandbox ${f.runtime} service overhead per call (HTTP p50 - runner duration_ms p50)`, value: f.warmP50 - f.runnerP50, unit: 'ms' },
  ]);
}

await runIfEntry(import.meta.url, main);
