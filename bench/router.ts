/**
 * Inference router figures (issue 4 "Figures"), side by side in one run against the same scripted
 * OpenAI-compatible server. The provider, observability, the router and the gateway each run in a
 * worker thread (as under the supervisor); the client runs in this thread.
 *
 *  - TTFT overhead: sequential streamed requests on one kept-alive connection, alternating blocks of
 *    direct-to-provider and via-router (model "default", pre-stamped principal); time from sending to
 *    the first content delta; p50 of each (target: router adds at most 2 ms). Via gateway + router is
 *    printed too.
 *  - Streamed tokens per second, direct vs through gateway + router (real JWT, turn events, rate limits
 *    on); tokens = content chunks (target: at least 0.9 of direct), measured two ways:
 *    paced: 32 concurrent streams of 300 chunks, the provider pacing 1 ms per chunk (a fast real
 *    provider), aggregate tokens/s over the wall time (the figure);
 *    burst: one 4000-chunk stream at a time written with no pause at all (~0.6 MB in one go), which
 *    measures loopback copying more than routing; printed for information.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { startIssuer } from '../test/helpers/issuer.js';
import { gatewayConfig, TEST_ISSUER } from '../test/helpers/gateway-config.js';
import { obsConfig, routerConfig, stamp, testKeys } from '../test/helpers/router-config.js';
import { signStamp, servicePrincipal } from '../services/shared/identity/principal.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';

const WORKER = fileURLToPath(new URL('./support/worker.js', import.meta.url));
const LLM_WORKER = fileURLToPath(new URL('./router-llm-worker.js', import.meta.url));
const mod = (p: string): string => pathToFileURL(fileURLToPath(new URL(p, import.meta.url))).href;

async function spawn(file: string, data: unknown): Promise<{ port: number; stop(): Promise<void> }> {
  const w = new Worker(file, { workerData: data });
  const port = await new Promise<number>((resolve, reject) => {
    w.once('message', (m: { port: number | string }) => resolve(Number(m.port)));
    w.once('error', reject);
  });
  return { port, stop: async () => { w.postMessage('close'); await new Promise((r) => w.once('exit', r)); } };
}


const CONTENT = /"content":"[^"]/;

/** One streamed request: ms to the first content delta, ms to the end, content chunks seen. */
async function streamOnce(pool: Pool, path: string, headers: Record<string, string>, model: string): Promise<{ ttft: number; total: number; chunks: number }> {
  const t0 = process.hrtime.bigint();
  const r = await pool.request({
    method: 'POST', path, headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'go' }] }),
  });
  if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}: ${await r.body.text()}`);
  let ttft = -1; let chunks = 0; let tail = '';
  r.body.setEncoding('utf8');
  for await (const c of r.body as AsyncIterable<string>) {
    if (ttft < 0 && CONTENT.test(c)) ttft = Number(process.hrtime.bigint() - t0) / 1e6;
    const text = tail + c;
    const parts = text.split('\n\n');
    tail = parts.pop()!;
    for (const p of parts) if (CONTENT.test(p)) chunks++;
  }
  return { ttft, total: Number(process.hrtime.bigint() - t0) / 1e6, chunks };
}

/** Run the router benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const keys = testKeys();
  const issuer = await startIssuer();
  const small = await spawn(LLM_WORKER, { chunks: 8 });
  const big = await spawn(LLM_WORKER, { chunks: 4000 });
  const paced = await spawn(LLM_WORKER, { chunks: 300, chunkDelayMs: 1 });
  const pacedUrl = `http://127.0.0.1:${paced.port}`;
  const smallUrl = `http://127.0.0.1:${small.port}`;
  const bigUrl = `http://127.0.0.1:${big.port}`;
  const obs = await spawn(WORKER, { module: mod('../services/observability/src/index.js'), cfg: obsConfig(keys) });
  const obsUrl = `http://127.0.0.1:${obs.port}`;
  const router = await spawn(WORKER, { module: mod('../services/inference-router/src/index.js'), cfg: routerConfig(keys, { observability: obsUrl }, { budgetCacheMs: 5000, localEngineEnabled: false }) });
  const routerUrl = `http://127.0.0.1:${router.port}`;
  const gwCfg = gatewayConfig(routerUrl, issuer.jwksUrl, { ...keys, rateLimitIpPerMinute: 10_000_000, rateLimitTenantPerMinute: 10_000_000, maxRequestBodyBytes: 1 << 20 });
  gwCfg.serviceUrls = { ...gwCfg.serviceUrls, observability: obsUrl };
  const gw = await spawn(WORKER, { module: mod('../services/gateway/src/index.js'), cfg: gwCfg });
  const gwUrl = `http://127.0.0.1:${gw.port}`;

  const now = Math.floor(Date.now() / 1000);
  const admin = { 'x-svc-principal': stamp(keys, { id: 'bench-admin', roles: ['admin'], exp: now + 3600 }) };
  const user = { 'x-svc-principal': signStamp({ ...servicePrincipal('bench', 'acme'), id: 'bench-user', roles: ['user'], auth_method: 'password', exp: now + 3600 }, keys.principalKeys) };
  const token = await issuer.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'bench-user', email: 'b@example.com', realm_access: { roles: ['user'] }, iat: now, exp: now + 3600 });
  const bearer = { authorization: `Bearer ${token}` };

  // Register both providers and map roles: "default" -> 8-chunk replies, "knowledge" -> 4000-chunk replies.
  const admin1 = new Pool(routerUrl, { connections: 1 });
  const reg = async (name: string, url: string): Promise<string> => {
    const r = await admin1.request({ method: 'POST', path: '/v1/internal/providers', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ name, base_url: `${url}/v1`, adapter: 'chat_completions' }) });
    const j = await r.body.json() as { id: string };
    if (r.statusCode !== 201) throw new Error(`register ${name}: ${r.statusCode} ${JSON.stringify(j)}`);
    return j.id;
  };
  const sid = await reg('small', smallUrl);
  const bid = await reg('big', bigUrl);
  const pid = await reg('paced', pacedUrl);
  for (const [role, id] of [['default', sid], ['knowledge', bid], ['memory', pid]] as const) {
    const r = await admin1.request({ method: 'PUT', path: `/v1/internal/roles/${role}`, headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ provider_id: id, model: 'scripted-model' }) });
    await r.body.dump();
  }
  await admin1.close();

  // TTFT.
  const pd = new Pool(smallUrl, { connections: 1 });
  const pr = new Pool(routerUrl, { connections: 1 });
  const pg = new Pool(gwUrl, { connections: 1 });
  const ttft = async (pool: Pool, path: string, h: Record<string, string>, model: string, n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await streamOnce(pool, path, h, model)).ttft);
    return out;
  };
  await ttft(pd, '/v1/chat/completions', {}, 'scripted-model', 200);
  await ttft(pr, '/v1/chat/completions', user, 'default', 200);
  await ttft(pg, '/v1/chat/completions', bearer, 'default', 200);
  const d: number[] = []; const r: number[] = []; const g: number[] = [];
  for (let round = 0; round < 5; round++) {
    d.push(...await ttft(pd, '/v1/chat/completions', {}, 'scripted-model', 150));
    r.push(...await ttft(pr, '/v1/chat/completions', user, 'default', 150));
    g.push(...await ttft(pg, '/v1/chat/completions', bearer, 'default', 150));
  }
  const dP = pct(d, 50); const rP = pct(r, 50); const gP = pct(g, 50);

  // Streamed tokens per second.
  const bd = new Pool(bigUrl, { connections: 1 });
  const rate = async (pool: Pool, path: string, h: Record<string, string>, model: string, n: number): Promise<number> => {
    let chunks = 0; let ms = 0;
    for (let i = 0; i < n; i++) { const s = await streamOnce(pool, path, h, model); chunks += s.chunks; ms += s.total; }
    return chunks / (ms / 1000);
  };
  await rate(bd, '/v1/chat/completions', {}, 'scripted-model', 3);
  await rate(pg, '/v1/chat/completions', bearer, 'knowledge', 3);
  let dRate = 0; let gRate = 0; let rRate = 0;
  for (let round = 0; round < 4; round++) {
    dRate += await rate(bd, '/v1/chat/completions', {}, 'scripted-model', 3);
    gRate += await rate(pg, '/v1/chat/completions', bearer, 'knowledge', 3);
    rRate += await rate(pr, '/v1/chat/completions', user, 'knowledge', 3);
  }
  dRate /= 4; gRate /= 4; rRate /= 4;

  // Paced: 32 concurrent streams.
  const cd = new Pool(pacedUrl, { connections: 32 });
  const cg = new Pool(gwUrl, { connections: 32 });
  const concurrent = async (pool: Pool, h: Record<string, string>, model: string): Promise<number> => {
    const t0 = process.hrtime.bigint();
    const res = await Promise.all(Array.from({ length: 32 }, () => streamOnce(pool, '/v1/chat/completions', h, model)));
    return res.reduce((n, x) => n + x.chunks, 0) / (Number(process.hrtime.bigint() - t0) / 1e9);
  };
  await concurrent(cd, {}, 'scripted-model');
  await concurrent(cg, bearer, 'memory');
  let pdRate = 0; let pgRate = 0;
  for (let round = 0; round < 3; round++) {
    pdRate += await concurrent(cd, {}, 'scripted-model');
    pgRate += await concurrent(cg, bearer, 'memory');
  }
  pdRate /= 3; pgRate /= 3;

  await Promise.all([pd.close(), pr.close(), pg.close(), bd.close(), cd.close(), cg.close()]);
  await gw.stop(); await router.stop(); await obs.stop(); await small.stop(); await big.stop(); await paced.stop(); await issuer.close();

  const added = rP - dP;
  const ratio = pgRate / pdRate;
  const burst = gRate / dRate;
  console.log('\n== inference router (same scripted provider, side by side) ==');
  console.log(`TTFT p50, 1 connection: direct ${dP.toFixed(3)} ms, via router ${rP.toFixed(3)} ms (added ${added.toFixed(3)} ms, target <= 2 ms), via gateway + router ${gP.toFixed(3)} ms`);
  console.log(`streamed tokens/s, 32 paced streams (1 ms/chunk): direct ${pdRate.toFixed(0)}, via gateway + router ${pgRate.toFixed(0)}, ratio ${ratio.toFixed(3)} (target >= 0.9)`);
  console.log(`streamed tokens/s, unpaced burst, one 4000-chunk stream at a time: direct ${dRate.toFixed(0)}, via router ${rRate.toFixed(0)}, via gateway + router ${gRate.toFixed(0)}, ratio ${burst.toFixed(3)} (information)`);
  return [
    { name: 'router added TTFT p50', value: added, unit: 'ms', target: '<= 2', pass: added <= 2 },
    { name: 'gateway+router streamed tokens/s / direct (paced, 32 streams)', value: ratio, unit: 'ratio', target: '>= 0.9', pass: ratio >= 0.9 },
    { name: 'gateway+router streamed tokens/s / direct (unpaced burst)', value: burst, unit: 'ratio' },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
