/**
 * Gateway overhead (issue 2 "Figures"), side by side in one run:
 * an authenticated request through the gateway (JWT validation with its cache, header stripping and
 * stamping, per-IP and per-tenant rate limits on, turn events posted) vs the same request straight
 * to the service with a pre-stamped principal. The service and the gateway run in worker threads as
 * under the supervisor; the load generator runs in this thread.
 *
 *  - added p50 latency: sequential requests on one kept-alive connection, alternating direct and
 *    gateway in blocks, p50 of each (target: at most 0.5 ms added);
 *  - throughput: autocannon, 50 connections, alternating rounds (target: gateway at least 0.35 of direct).
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import autocannon from 'autocannon';
import { startIssuer } from '../test/helpers/issuer.js';
import { gatewayConfig, TEST_ISSUER } from '../test/helpers/gateway-config.js';
import { CAPABILITY_SCOPES, signStamp, servicePrincipal } from '../services/shared/identity/principal.js';
import { pct, spawnService } from './support/measure.js';
import type { Figure } from './audit.js';

const TARGET = pathToFileURL(fileURLToPath(new URL('./support/target-service.js', import.meta.url))).href;
const GATEWAY = pathToFileURL(fileURLToPath(new URL('../services/gateway/src/index.js', import.meta.url))).href;



async function latencies(url: string, headers: Record<string, string>, n: number): Promise<number[]> {
  const pool = new Pool(url, { connections: 1 });
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      const r = await pool.request({ method: 'GET', path: '/v1/bench/echo', headers });
      await r.body.text();
      if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
      out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  } finally { await pool.close(); }
  return out;
}

async function throughput(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const res = await autocannon({ url: `${url}/v1/bench/echo`, connections: 50, duration: seconds, headers });
  if (res.non2xx > 0 || res.errors > 0) throw new Error(`autocannon saw ${res.non2xx} non-2xx and ${res.errors} errors`);
  return res.requests.average;
}

/** Run the gateway benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const issuer = await startIssuer();
  const principalKeys = [randomBytes(32).toString('hex')];
  const capTokenKeys = [randomBytes(32).toString('hex')];
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-gw-'));
  const targetCfg = { service: 'agent-runtime', host: '127.0.0.1', port: 0, principalKeys, capTokenKeys, dataDir, logLevel: 'warn', logDir: join(dataDir, 'logs') };
  const target = await spawnService(TARGET, targetCfg);
  const targetUrl = `http://127.0.0.1:${target.port}`;
  const gwCfg = gatewayConfig(targetUrl, issuer.jwksUrl, {
    principalKeys, capTokenKeys, rateLimitIpPerMinute: 10_000_000, rateLimitTenantPerMinute: 10_000_000, maxRequestBodyBytes: 26_214_400,
  });
  const gw = await spawnService(GATEWAY, gwCfg);
  const gwUrl = `http://127.0.0.1:${gw.port}`;
  const now = Math.floor(Date.now() / 1000);
  const token = await issuer.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'bench-user', email: 'b@example.com', realm_access: { roles: ['user'] }, iat: now, exp: now + 3600 });
  const gwHeaders = { authorization: `Bearer ${token}` };
  const principal = { ...servicePrincipal('bench', 'acme'), id: 'bench-user', roles: ['user'], auth_method: 'password' as const, exp: now + 3600 };
  // "The same request straight to the service": the headers the gateway would stamp, signed once.
  const turnId = '01JBENCH0000000000000000TT';
  const directHeaders = {
    'x-svc-principal': signStamp(principal, principalKeys),
    'x-svc-turn-id': turnId,
    'x-svc-cap-token': signStamp({ sub: principal.id, tenant_id: 'acme', scopes: [...CAPABILITY_SCOPES], turn_id: turnId, exp: now + 3600 }, capTokenKeys),
    'x-user-id': principal.id, 'x-user-email': 'b@example.com', 'x-user-roles': 'user', 'x-tenant-id': 'acme',
    'x-correlation-id': '9c0e2a47-1d1f-4a53-9d0e-5b7f0c3c2a11',
  };

  // Warm both paths (JIT, pools, token cache).
  await latencies(targetUrl, directHeaders, 2000);
  await latencies(gwUrl, gwHeaders, 2000);
  const d: number[] = []; const g: number[] = [];
  for (let round = 0; round < 6; round++) {
    d.push(...await latencies(targetUrl, directHeaders, 1000));
    g.push(...await latencies(gwUrl, gwHeaders, 1000));
  }
  const dP50 = pct(d, 50); const gP50 = pct(g, 50);

  await throughput(targetUrl, directHeaders, 2);
  await throughput(gwUrl, gwHeaders, 2);
  let dRps = 0; let gRps = 0;
  for (let round = 0; round < 2; round++) {
    dRps += await throughput(targetUrl, directHeaders, 5);
    gRps += await throughput(gwUrl, gwHeaders, 5);
  }
  dRps /= 2; gRps /= 2;

  await gw.stop(); await target.stop(); await issuer.close();
  const added = gP50 - dP50;
  const ratio = gRps / dRps;
  console.log('\n== gateway overhead (same request, same service, side by side) ==');
  console.log(`p50 latency, 1 connection: direct ${dP50.toFixed(3)} ms, via gateway ${gP50.toFixed(3)} ms, added ${added.toFixed(3)} ms (target <= 0.5 ms)`);
  console.log(`throughput, 50 connections: direct ${dRps.toFixed(0)} req/s, via gateway ${gRps.toFixed(0)} req/s, ratio ${ratio.toFixed(3)} (target >= 0.35)`);
  return [
    { name: 'gateway added p50 latency', value: added, unit: 'ms', target: '<= 0.5', pass: added <= 0.5 },
    { name: 'gateway throughput / direct', value: ratio, unit: 'ratio', target: '>= 0.35', pass: ratio >= 0.35 },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
