/**
 * The gRPC transport split (issue 20 "Figures"), side by side in one run: two stacks as `npm run
 * serve` runs them, one with USE_GRPC=true (the default) and one with USE_GRPC=false.
 *
 *  - guard input check and memory store through the gateway: p50 of sequential requests (blocks
 *    alternating between the stacks) and throughput (20 concurrent clients, alternating rounds);
 *    the figure is gRPC / HTTP (p50: lower is better; throughput: target at least 1, "gRPC should not
 *    be slower");
 *  - turn-event publish to audit: the same 20,000 events through a `TurnEventClient` over the gRPC
 *    stream and over HTTP batches (`POST /v1/turns/events`), events/s, to the gRPC stack's audit.
 */
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { ADMIN, login, startStack, type TestStack } from '../test/helpers/stack.js';
import { loadStackConfig, serviceConfigs } from '../main/config/index.js';
import { SERVICE_NAMES, portEnvName, type ServiceName } from '../services/shared/services.js';
import { TurnEventClient } from '../services/shared/events/turn-events.js';
import { ServiceTokenSource } from '../services/shared/identity/service-token.js';
import { installServiceTokens, uninstallServiceTokens } from '../services/shared/identity/service-token-dispatch.js';
import { ulidFactory } from '../services/shared/identity/ulid.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';

const SCOPE = { tenant_id: 'acme', user_id: 'bench' };

/** One request through `pool` (the gateway), body as JSON; returns ms. @throws on a non-2xx. */
async function once(pool: Pool, token: string, path: string, body: unknown): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = await pool.request({ method: 'POST', path, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await r.body.text();
  if (r.statusCode >= 300) throw new Error(`${path} answered ${r.statusCode}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

let unique = 0;
const bodyOf = (path: string): unknown => (path === '/v1/guard/input'
  ? { content: 'What is the weather like in Lisbon in March?', scope: SCOPE }
  : { content: `Benchmark fact ${++unique}: ${Math.random().toString(36).slice(2)}`, memory_type: 'user' });

/** p50 (ms) of `n` sequential requests per side, in alternating blocks of 25. */
async function p50s(a: { pool: Pool; token: string }, b: { pool: Pool; token: string }, path: string, n: number): Promise<[number, number]> {
  const xa: number[] = [];
  const xb: number[] = [];
  for (let i = 0; i < 10; i++) { await once(a.pool, a.token, path, bodyOf(path)); await once(b.pool, b.token, path, bodyOf(path)); }
  while (xa.length < n) {
    for (let i = 0; i < 25; i++) xa.push(await once(a.pool, a.token, path, bodyOf(path)));
    for (let i = 0; i < 25; i++) xb.push(await once(b.pool, b.token, path, bodyOf(path)));
  }
  return [pct(xa, 50), pct(xb, 50)];
}

/** Requests per second with `clients` concurrent sequential clients for `ms`. */
async function rate(side: { pool: Pool; token: string }, path: string, clients: number, ms: number): Promise<number> {
  const end = Date.now() + ms;
  let done = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (Date.now() < end) { await once(side.pool, side.token, path, bodyOf(path)); done++; }
  }));
  return done / (ms / 1000);
}

/** Throughput per side over alternating rounds. */
async function rates(a: { pool: Pool; token: string }, b: { pool: Pool; token: string }, path: string, rounds: number, ms: number): Promise<[number, number]> {
  let ra = 0;
  let rb = 0;
  for (let i = 0; i < rounds; i++) { ra += await rate(a, path, 20, ms); rb += await rate(b, path, 20, ms); }
  return [ra / rounds, rb / rounds];
}

/** The slices of `stack` (secrets persist in its data directory) with its actual ports. */
async function slicesOf(stack: TestStack): Promise<ReturnType<typeof serviceConfigs>> {
  const env: Record<string, string> = { SVC_DATA_DIR: stack.dataDir, SVC_ENV: 'test', SVC_TENANT_ID: 'acme', SVC_SECRET_STORE: 'file', SVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, SVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password };
  for (const n of SERVICE_NAMES) env[portEnvName(n)] = '0';
  const ports = Object.fromEntries(stack.sup.status().map((s) => [s.name, s.port])) as Record<ServiceName, number>;
  const auditGrpc = await stack.sup.setGrpc('audit', true);
  return serviceConfigs(loadStackConfig(env), ports, undefined, undefined, auditGrpc ? { audit: auditGrpc } : {});
}

/** Events per second delivered by a `TurnEventClient` (gRPC stream when `grpcAddr`, else HTTP batches). */
async function publish(cfg: ReturnType<typeof serviceConfigs>['gateway'], grpcAddr: string | null, events: number): Promise<number> {
  let batches = { grpc: 0, http: 0 };
  const client = new TurnEventClient({
    service: 'gateway', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, auditGrpc: grpcAddr,
    batchDelayMs: 5, onBatch: (t) => { batches = { ...batches, [t]: batches[t] + 1 }; },
  });
  const ulid = ulidFactory();
  const turns = Array.from({ length: events / 10 }, () => ulid());
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < events; i++) client.emit(turns[i % turns.length]!, 'bench-user', 'model_invoked', { model: 'bench', n: i });
  const ok = await client.deliver(120_000);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  await client.shutdown(1000);
  if (!ok) throw new Error('turn events not delivered');
  if (grpcAddr && batches.http > 0) throw new Error(`${batches.http} batches fell back to HTTP`);
  return events / s;
}

/** Run the benchmark; print and return the figures. */
export async function main(): Promise<Figure[]> {
  // The bench's load must not meet the gateway's rate limits.
  const limits = { SVC_RATE_LIMIT_IP_PER_MINUTE: '10000000', SVC_RATE_LIMIT_TENANT_PER_MINUTE: '10000000' };
  const g = await startStack(limits);
  const h = await startStack({ ...limits, USE_GRPC: 'false' });
  const pools: Pool[] = [];
  try {
    const side = async (s: TestStack): Promise<{ pool: Pool; token: string }> => {
      const pool = new Pool(s.url, { connections: 32 });
      pools.push(pool);
      return { pool, token: await login(s.url, ADMIN.email, ADMIN.password) };
    };
    const [a, b] = [await side(g), await side(h)];
    const [guardG, guardH] = await p50s(a, b, '/v1/guard/input', 300);
    const [memG, memH] = await p50s(a, b, '/v1/memory', 150);
    const [guardRg, guardRh] = await rates(a, b, '/v1/guard/input', 3, 3000);
    const [memRg, memRh] = await rates(a, b, '/v1/memory', 2, 3000);
    console.log(`grpc-transport: guard input p50 ${guardG.toFixed(2)} ms gRPC vs ${guardH.toFixed(2)} ms HTTP; ${guardRg.toFixed(0)} vs ${guardRh.toFixed(0)} req/s`);
    console.log(`grpc-transport: memory store p50 ${memG.toFixed(2)} ms gRPC vs ${memH.toFixed(2)} ms HTTP; ${memRg.toFixed(0)} vs ${memRh.toFixed(0)} req/s`);

    // Turn events, both ways to the same audit.
    const cfgs = await slicesOf(g);
    const source = new ServiceTokenSource({ tokenUrl: cfgs.gateway.internalAuth!.tokenUrl, clientId: cfgs.gateway.internalAuth!.clientId, clientSecret: cfgs.gateway.internalAuth!.clientSecret });
    await source.get();
    installServiceTokens(cfgs.gateway.serviceUrls, source);
    let evG = 0;
    let evH = 0;
    try {
      await publish(cfgs.gateway, cfgs.gateway.grpcUrls!.audit!, 2000);
      await publish(cfgs.gateway, null, 2000);
      for (let i = 0; i < 2; i++) {
        evG += await publish(cfgs.gateway, cfgs.gateway.grpcUrls!.audit!, 10_000) / 2;
        evH += await publish(cfgs.gateway, null, 10_000) / 2;
      }
    } finally { uninstallServiceTokens(source); }
    console.log(`grpc-transport: turn-event publish ${evG.toFixed(0)} events/s gRPC stream vs ${evH.toFixed(0)} events/s HTTP batches`);
    return [
      { name: 'guard input p50 gRPC / HTTP', value: guardG / guardH, unit: 'x', target: '<= 1', pass: guardG <= guardH * 1.05 },
      { name: 'guard input throughput gRPC / HTTP', value: guardRg / guardRh, unit: 'x', target: '>= 1', pass: guardRg >= guardRh * 0.95 },
      { name: 'memory store p50 gRPC / HTTP', value: memG / memH, unit: 'x', target: '<= 1', pass: memG <= memH * 1.05 },
      { name: 'memory store throughput gRPC / HTTP', value: memRg / memRh, unit: 'x', target: '>= 1', pass: memRg >= memRh * 0.95 },
      { name: 'turn-event publish gRPC stream', value: evG, unit: 'events/s' },
      { name: 'turn-event publish HTTP batches', value: evH, unit: 'events/s' },
    ];
  } finally {
    for (const p of pools) await p.close();
    await g.stop();
    await h.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
}
