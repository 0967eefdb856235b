/**
 * Chat throughput with one gateway and runtime vs two of each, every store on PostgreSQL and shared
 * state on Redis, same machine (issue 21 "Figures"): report the scaling and the bottleneck.
 *
 * One run, side by side: a throwaway PostgreSQL 15 cluster (test/helpers/postgres.ts), redis-server,
 * stack A (the supervisor with every service, in this process) and a scripted OpenAI-compatible
 * provider that answers at once. Phase "one": BENCH_SCALE_CHATS (default 300) non-streamed
 * `POST /v1/chat` turns, BENCH_SCALE_CONCURRENCY (default 8) at a time, all through gateway A.
 * Then process B starts (`svc --service gateway,agent-runtime`, same database and Redis). Phase
 * "two": the same turns, alternating between gateway A and gateway B. Phase "one" again after B is
 * up (so a warmer database cannot pass for scaling). Reported per phase: turns/s, p50 and p90
 * latency, and the CPU seconds per turn of process A (every single-instance service + gateway A +
 * runtime A + this load generator), process B and the PostgreSQL server (all its backends), read
 * from /proc — the component whose CPU per turn dominates, with the machine's core count, names
 * the bottleneck. Skipped with a reason when PostgreSQL or redis-server is missing.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { startScriptedLlm } from '../test/helpers/scripted-llm.js';
import { ADMIN, login, startStack } from '../test/helpers/stack.js';
import { postgresMissing, startPostgres } from '../test/helpers/postgres.js';
import { hasRedis, startPeerProcess, startRedis } from '../test/helpers/scale-out.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';

const TICK = 100; // USER_HZ on Linux

/** utime + stime of `pid` in seconds (0 when it is gone). */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICK;
  } catch { return 0; }
}

/** Every process whose parent is `ppid`. */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(d));
    } catch { /* gone */ }
  }
  return out;
}

interface Phase { name: string; turns: number; seconds: number; p50: number; p90: number; cpu: Record<string, number> }

/** Run the scale-out chat benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const missing = postgresMissing() ?? (hasRedis ? null : 'redis-server is not installed');
  if (missing) { console.log(`bench scale-out-chat skipped: ${missing}`); return []; }
  const chats = Number(process.env.BENCH_SCALE_CHATS ?? 300);
  const concurrency = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 8);
  const pgc = await startPostgres({ conf: ['max_connections = 300'] });
  const redis = await startRedis();
  const llm = await startScriptedLlm({ script: () => ({ content: 'Zanzibar is an archipelago off the coast of Tanzania.' }) });
  const env = {
    SVC_DATABASE_URL: pgc.url, REDIS_URL: redis.url, AGENT_RUNTIME_TITLES: 'false', SVC_LOG_LEVEL: 'error',
    SVC_RATE_LIMIT_IP_PER_MINUTE: '1000000', SVC_RATE_LIMIT_TENANT_PER_MINUTE: '1000000',
  };
  const stack = await startStack(env);
  let b: Awaited<ReturnType<typeof startPeerProcess>> | null = null;
  try {
    const token = await login(stack.url, ADMIN.email, ADMIN.password);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown, method = 'POST'): Promise<{ id?: string }> => {
      const r = await fetch(stack.url + path, { method, headers, body: JSON.stringify(body) });
      if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
      return await r.json() as { id?: string };
    };
    const prov = await post('/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
    await post('/v1/admin/inference/roles/default', { provider_id: prov.id, model: 'scripted-model' }, 'PUT');
    const postmaster = Number(readFileSync(join(pgc.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const pgCpu = (): number => cpuOf(postmaster) + childrenOf(postmaster).reduce((s, p) => s + cpuOf(p), 0);
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'Where is Zanzibar?' }] });

    const run = async (name: string, urls: string[]): Promise<Phase> => {
      const pools = urls.map((u) => new Pool(u, { connections: concurrency }));
      const one = async (i: number): Promise<number> => {
        const t0 = performance.now();
        const r = await pools[i % pools.length]!.request({ method: 'POST', path: '/v1/chat', headers, body });
        const text = await r.body.text();
        if (r.statusCode !== 200) throw new Error(`chat ${r.statusCode}: ${text.slice(0, 200)}`);
        return performance.now() - t0;
      };
      for (let i = 0; i < concurrency * 2; i++) await one(i); // warm every gateway's path
      const cpu0 = { a: cpuOf(process.pid), b: b ? cpuOf(b.proc.pid!) : 0, pg: pgCpu() };
      const lat: number[] = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < chats) { const i = next++; lat.push(await one(i)); }
      }));
      const seconds = (performance.now() - t0) / 1000;
      const cpu = { a: cpuOf(process.pid) - cpu0.a, b: (b ? cpuOf(b.proc.pid!) : 0) - cpu0.b, pg: pgCpu() - cpu0.pg };
      await Promise.all(pools.map((p) => p.close()));
      return { name, turns: chats, seconds, p50: pct(lat, 50), p90: pct(lat, 90), cpu };
    };

    const phases: Phase[] = [];
    phases.push(await run('one gateway + runtime', [stack.url]));
    b = await startPeerProcess(stack, ['gateway', 'agent-runtime'], env);
    phases.push(await run('two gateways + runtimes', [stack.url, b.url]));
    phases.push(await run('one gateway + runtime (again, B idle)', [stack.url]));

    console.log(`\n== chat throughput, one vs two gateways + runtimes, PostgreSQL + Redis (${chats} turns, ${concurrency} at a time, ${cpus().length} cores) ==`);
    for (const p of phases) {
      const per = (s: number): string => `${(s / p.turns * 1000).toFixed(1)} ms`;
      console.log(`${p.name.padEnd(40)} ${(p.turns / p.seconds).toFixed(1)} turns/s  p50 ${p.p50.toFixed(1)} ms  p90 ${p.p90.toFixed(1)} ms  CPU/turn: A ${per(p.cpu.a)}, B ${per(p.cpu.b)}, PostgreSQL ${per(p.cpu.pg)}; machine busy ${((p.cpu.a + p.cpu.b + p.cpu.pg) / p.seconds / cpus().length * 100).toFixed(0)}%`);
    }
    const oneRate = Math.max(phases[0]!.turns / phases[0]!.seconds, phases[2]!.turns / phases[2]!.seconds);
    const twoRate = phases[1]!.turns / phases[1]!.seconds;
    const two = phases[1]!;
    const parts = { 'process A (single-instance services, gateway A, runtime A, load generator)': two.cpu.a, 'process B (gateway B, runtime B)': two.cpu.b, PostgreSQL: two.cpu.pg };
    const top = Object.entries(parts).sort((x, y) => y[1] - x[1])[0]!;
    console.log(`scaling: two / one = ${(twoRate / oneRate).toFixed(2)}x; with two the largest CPU share is ${top[0]} (${(top[1] / (two.cpu.a + two.cpu.b + two.cpu.pg) * 100).toFixed(0)}%)`);
    return [
      { name: 'scale-out chat throughput, one gateway + runtime (PostgreSQL)', value: oneRate, unit: 'turns/s' },
      { name: 'scale-out chat throughput, two gateways + runtimes (PostgreSQL)', value: twoRate, unit: 'turns/s' },
      { name: 'scale-out chat scaling, two / one', value: twoRate / oneRate, unit: 'x' },
      { name: 'scale-out chat p50, one gateway + runtime', value: phases[0]!.p50, unit: 'ms' },
      { name: 'scale-out chat p50, two gateways + runtimes', value: two.p50, unit: 'ms' },
    ];
  } finally {
    if (b) await b.stop();
    await stack.stop();
    await llm.close();
    redis.stop();
    await pgc.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
