/**
 * Chat time to first token (issue 5 "Figures"), side by side in one run: a streamed chat turn
 * through the agent runtime (`POST /v1/chat/stream`: stamped principal check, guardrail input check,
 * memory and knowledge prefetch hops, session and history in SQLite, turn events, the router call)
 * vs the same model request straight to the scripted provider (`POST /v1/chat/completions`,
 * stream). TTFT = request start to the first content token. The runtime and the audit service run
 * in worker threads as under the supervisor; the scripted provider and the load generator run here.
 * The guardrail, memory and knowledge hops go to a live HTTP service that answers 404 (not built
 * yet in this bench), so their round trips are paid without a real scanner's work; the runtime is
 * set to fail open for that absent guardrail (AGENT_RUNTIME_GUARDRAIL_FAIL_MODE defaults to closed).
 *
 * Target (issue 5): at most 30 ms added at p50 by the whole stack; this measures the runtime's share.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { startScriptedLlm } from '../test/helpers/scripted-llm.js';
import { CAPABILITY_SCOPES, signStamp } from '../services/shared/identity/principal.js';
import { ulidFactory } from '../services/shared/identity/ulid.js';
import { SERVICE_NAMES, type ServiceName } from '../services/shared/services.js';
import { pct, spawnService, ttft } from './support/measure.js';
import { runtimeSettings } from '../test/helpers/runtime-config.js';
import type { Figure } from './audit.js';

const RUNTIME = pathToFileURL(fileURLToPath(new URL('../services/agent-runtime/src/index.js', import.meta.url))).href;
const AUDIT = pathToFileURL(fileURLToPath(new URL('../services/audit/src/index.js', import.meta.url))).href;
const nextTurn = ulidFactory();




/** Run the chat benchmark and return its figures. */
export async function main(): Promise<Figure[]> {
  const principalKeys = [randomBytes(32).toString('hex')];
  const capTokenKeys = [randomBytes(32).toString('hex')];
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-chat-'));
  const llm = await startScriptedLlm({ script: () => ({ content: 'Hello world, this is a benchmark answer of a few tokens.', chunkSize: 8 }) });
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const n of SERVICE_NAMES) serviceUrls[n] = llm.url;
  const common = (service: ServiceName) => ({
    service, host: '127.0.0.1', port: 0, env: 'test', dataDir, dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'), logDir: join(dataDir, 'logs'),
    migrationsDir: join(process.cwd(), 'migrations'), logLevel: 'warn', tenantId: 'acme', publicUrl: 'http://127.0.0.1:8080', principalKeys, capTokenKeys,
    authEnabled: true, serviceUrls,
  });
  const audit = await spawnService(AUDIT, {
    ...common('audit'), signingKey: randomBytes(32).toString('hex'), keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null,
    sealIntervalSeconds: 3600, sealWatermarkSeconds: 3600, sealBatchLimit: 100,
  });
  const auditUrl = `http://127.0.0.1:${audit.port}`;
  serviceUrls.audit = auditUrl;
  // Guardrail, memory and knowledge: a live service answering 404 (the sidecar hops are paid).
  serviceUrls.guardrail = auditUrl;
  serviceUrls.memory = auditUrl;
  serviceUrls.knowledge = auditUrl;
  serviceUrls['inference-router'] = llm.url;
  const runtime = await spawnService(RUNTIME, { ...common('agent-runtime'), ...runtimeSettings({ titleGeneration: false, guardrailFailMode: 'open' }) });
  const rtPool = new Pool(`http://127.0.0.1:${runtime.port}`, { connections: 1 });
  const llmPool = new Pool(llm.url, { connections: 1 });
  const stamp = (): Record<string, string> => {
    const now = Math.floor(Date.now() / 1000);
    const turn = nextTurn();
    const p = { id: 'bench-user', tenant_id: 'acme', roles: ['user'], groups: [], auth_method: 'password', iat: now, exp: now + 300 };
    return {
      'x-svc-principal': signStamp(p, principalKeys), 'x-svc-turn-id': turn,
      'x-svc-cap-token': signStamp({ sub: p.id, tenant_id: 'acme', scopes: [...CAPABILITY_SCOPES], turn_id: turn, exp: now + 300 }, capTokenKeys),
    };
  };
  const chatBody = JSON.stringify({ messages: [{ role: 'user', content: 'Say hello for the benchmark.' }] });
  const directBody = JSON.stringify({ model: 'default', stream: true, messages: [{ role: 'user', content: 'Say hello for the benchmark.' }] });
  const viaRuntime = () => ttft(rtPool, '/v1/chat/stream', stamp(), chatBody, 'event: token');
  const direct = () => ttft(llmPool, '/v1/chat/completions', {}, directBody, '"content":"Hello');

  for (let i = 0; i < 50; i++) { await direct(); await viaRuntime(); }
  const d: number[] = []; const r: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 60; i++) d.push(await direct());
    for (let i = 0; i < 60; i++) r.push(await viaRuntime());
  }
  await rtPool.close(); await llmPool.close();
  await runtime.stop(); await audit.stop(); await llm.close();

  const dP50 = pct(d, 50); const rP50 = pct(r, 50); const rP90 = pct(r, 90);
  const added = rP50 - dP50;
  console.log('\n== chat time to first token (same model request, side by side) ==');
  console.log(`TTFT p50: direct to the provider ${dP50.toFixed(3)} ms, through the agent runtime ${rP50.toFixed(3)} ms (p90 ${rP90.toFixed(3)} ms), added ${added.toFixed(3)} ms (stack target <= 30 ms)`);
  return [
    { name: 'chat TTFT p50 direct to provider', value: dP50, unit: 'ms' },
    { name: 'chat TTFT p50 through agent runtime', value: rP50, unit: 'ms' },
    { name: 'chat TTFT added by the agent runtime p50', value: added, unit: 'ms', target: '<= 30 (whole stack)', pass: added <= 30 },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main().then(() => process.exit(0), (err: unknown) => { console.error(err); process.exit(1); });
}
