/**
 * Service tokens on the gateway hop (issue 15 item 4 "Figures"), side by side in one run: the same
 * authenticated request through the gateway to the same kit-built service, once with service
 * tokens off (today's hop) and once on (the gateway adds its cached service token, the service
 * verifies it: signature, issuer, audience, client and allow-list, cached by token string). Tokens
 * come from a real local issuer's client_credentials grant (test/helpers/service-issuer.ts); the
 * gateways and services run in worker threads as under the supervisor.
 *
 *  - added p50 latency: sequential requests on one kept-alive connection, alternating off and on in
 *    blocks (target: at most 0.1 ms added with a cached token);
 *  - throughput: autocannon, 50 connections, alternating rounds (target: on at least 0.9 of off).
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import autocannon from 'autocannon';
import { startIssuer } from '../test/helpers/issuer.js';
import { startServiceIssuer } from '../test/helpers/service-issuer.js';
import { gatewayConfig, TEST_ISSUER } from '../test/helpers/gateway-config.js';
import { pct, spawnService } from './support/measure.js';
import type { Figure } from './audit.js';
import { ServiceTokenSource } from '../services/shared/identity/service-token.js';
import { ServiceTokenVerifier } from '../services/shared/identity/service-token-verifier.js';
import { serviceTokenInterceptor } from '../services/shared/identity/service-token-dispatch.js';
import type { Dispatcher } from 'undici';

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

/**
 * CPU time of the token work of one hop, in this thread (robust to a loaded machine): the
 * interceptor adding a cached token to a forwarded request's headers, plus the receiver's cached
 * verification. @returns microseconds per hop.
 */
async function perHopMicros(realm: Awaited<ReturnType<typeof startServiceIssuer>>, secret: string): Promise<number> {
  const source = new ServiceTokenSource({ tokenUrl: realm.tokenUrl, clientId: 'service-gateway', clientSecret: secret });
  const token = await source.get();
  const verifier = new ServiceTokenVerifier({ issuer: realm.issuer, jwksUrl: realm.jwksUrl, audience: 'svc-internal', allowedClients: ['service-gateway'] });
  await verifier.verify(token);
  const origin = 'http://127.0.0.1:1';
  const sink: Dispatcher.Dispatch = (opts) => (opts.headers as Record<string, string>).authorization !== undefined;
  const dispatch = serviceTokenInterceptor(new Set([origin]), source, origin)(sink);
  const headers = { 'x-correlation-id': 'c', 'x-forwarded-for': '127.0.0.1', 'x-svc-principal': 'p'.repeat(300), 'x-svc-turn-id': 't', 'x-svc-cap-token': 'c'.repeat(300), 'x-user-id': 'u', accept: '*/*', host: 'h' };
  const handler = {} as Dispatcher.DispatchHandler;
  const n = 200_000;
  let ok = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    if (dispatch({ method: 'GET', path: '/v1/x', headers }, handler)) ok++;
    // The receiver reads a fresh header string each request.
    const raw = `Bearer ${token}`;
    if (verifier.cached(raw.slice(7))) ok++;
  }
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / n;
  if (ok !== 2 * n) throw new Error('token work failed in the loop');
  return us;
}

/** Run the service-hop benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const users = await startIssuer();
  const secrets = { 'service-gateway': randomBytes(24).toString('hex'), 'service-agent-runtime': randomBytes(24).toString('hex') };
  const realm = await startServiceIssuer({ clients: secrets });
  const principalKeys = [randomBytes(32).toString('hex')];
  const capTokenKeys = [randomBytes(32).toString('hex')];

  /** A target service and a gateway in front of it; `tokens` turns service tokens on for both. */
  const pair = async (tokens: boolean): Promise<{ url: string; stop(): Promise<void> }> => {
    const dataDir = mkdtempSync(join(tmpdir(), `svc-bench-hop-${tokens ? 'on' : 'off'}-`));
    const targetCfg = {
      service: 'agent-runtime', host: '127.0.0.1', port: 0, principalKeys, capTokenKeys, dataDir, logLevel: 'warn', logDir: join(dataDir, 'logs'),
      serviceUrls: {}, ...(tokens ? { internalAuth: realm.config('service-agent-runtime', ['service-gateway']) } : {}),
    };
    const target = await spawnService(TARGET, targetCfg);
    const targetUrl = `http://127.0.0.1:${target.port}`;
    const gwCfg = gatewayConfig(targetUrl, users.jwksUrl, {
      principalKeys, capTokenKeys, rateLimitIpPerMinute: 10_000_000, rateLimitTenantPerMinute: 10_000_000, maxRequestBodyBytes: 26_214_400,
      ...(tokens ? { internalAuth: realm.config('service-gateway') } : {}),
    });
    // Every upstream is the target, but the gateway's own URL is not (no service token goes to a gateway).
    gwCfg.serviceUrls = { ...gwCfg.serviceUrls, gateway: 'http://127.0.0.1:9' };
    const gw = await spawnService(GATEWAY, gwCfg);
    return { url: `http://127.0.0.1:${gw.port}`, stop: async () => { await gw.stop(); await target.stop(); } };
  };
  const off = await pair(false);
  const on = await pair(true);
  const now = Math.floor(Date.now() / 1000);
  const token = await users.mint({ iss: TEST_ISSUER, aud: 'svc-frontend', sub: 'bench-user', email: 'b@example.com', realm_access: { roles: ['user'] }, iat: now, exp: now + 3600 });
  const headers = { authorization: `Bearer ${token}` };

  // Warm both paths (JIT, pools, the user-token cache, the service token and its verification).
  await latencies(off.url, headers, 2000);
  await latencies(on.url, headers, 2000);
  const a: number[] = []; const b: number[] = [];
  for (let round = 0; round < 6; round++) {
    a.push(...await latencies(off.url, headers, 1000));
    b.push(...await latencies(on.url, headers, 1000));
  }
  const offP50 = pct(a, 50); const onP50 = pct(b, 50);

  await throughput(off.url, headers, 2);
  await throughput(on.url, headers, 2);
  let offRps = 0; let onRps = 0;
  for (let round = 0; round < 2; round++) {
    offRps += await throughput(off.url, headers, 5);
    onRps += await throughput(on.url, headers, 5);
  }
  offRps /= 2; onRps /= 2;
  const issued = realm.issued;
  const micros = await perHopMicros(realm, secrets['service-gateway']);

  await on.stop(); await off.stop(); await realm.close(); await users.close();
  const added = onP50 - offP50;
  const ratio = onRps / offRps;
  console.log('\n== service tokens on the gateway hop (same request, same service, side by side) ==');
  console.log(`p50 latency, 1 connection: tokens off ${offP50.toFixed(3)} ms, on ${onP50.toFixed(3)} ms, added ${added.toFixed(3)} ms (target <= 0.1 ms)`);
  console.log(`throughput, 50 connections: tokens off ${offRps.toFixed(0)} req/s, on ${onRps.toFixed(0)} req/s, ratio ${ratio.toFixed(3)} (target >= 0.9)`);
  console.log(`service tokens issued during the run: ${issued} (cached); token work per hop in-process (add + cached verify): ${micros.toFixed(2)} µs`);
  return [
    { name: 'service-token hop added p50 latency', value: added, unit: 'ms', target: '<= 0.1', pass: added <= 0.1 },
    { name: 'service-token hop throughput / without', value: ratio, unit: 'ratio', target: '>= 0.9', pass: ratio >= 0.9 },
    { name: 'service-token work per hop (CPU, in-process)', value: micros, unit: 'µs' },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
