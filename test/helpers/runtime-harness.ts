/**
 * Test harness of the agent runtime (shared by test/integration/runtime*.test.ts and chat*.test.ts):
 * the real runtime on port 0 with a temporary data dir, the scripted LLM as the inference router,
 * the real audit service, and a small recording guardrail whose verdicts a test scripts. Memory and
 * knowledge point at the guardrail recorder, which answers 404 there (services not built: the
 * runtime treats them as unavailable). The harness plays the gateway's part: it stamps principal,
 * turn id and capability token, and emits `turn_started` / `turn_sealed` around a turn.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { start as startRuntime } from '../../services/agent-runtime/src/index.js';
import { start as startAudit } from '../../services/audit/src/index.js';
import type { AgentRuntimeConfig, AgentRuntimeHooks, AgentRuntimeSettings } from '../../services/agent-runtime/src/contracts.js';
import type { AuditConfig, CommonServiceConfig } from '../../services/shared/config.js';
import { TurnEventClient } from '../../services/shared/events/turn-events.js';
import { CAPABILITY_SCOPES, signStamp, type Principal } from '../../services/shared/identity/principal.js';
import { ulidFactory } from '../../services/shared/identity/ulid.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { SseParser, type SseRecord } from '../../services/gateway/src/agui/sse.js';
import { runtimeSettings } from './runtime-config.js';
import { startScriptedLlm, type ScriptedLlm, type ScriptedLlmOptions } from './scripted-llm.js';
import { startPostgres, type TestPostgres } from './postgres.js';

const nextTurn = ulidFactory();

/** A guardrail verdict a test scripts. */
export interface GuardVerdict { decision: string; reason?: string; rewritten_content?: string | null; scanner_results?: unknown[] }

/** A recording guardrail stand-in (spec "Guardrail" result shape). */
export interface GuardRecorder {
  url: string;
  seen: Array<{ path: string; body: Record<string, unknown>; headers: Record<string, unknown> }>;
  /** Verdict per path; default allow. `null` answers 503. */
  input: (content: string) => GuardVerdict | null;
  output: (content: string) => GuardVerdict | null;
  close(): Promise<void>;
}

async function startGuard(): Promise<GuardRecorder> {
  const g = {
    seen: [] as GuardRecorder['seen'],
    input: (_c: string): GuardVerdict | null => ({ decision: 'allow' }),
    output: (_c: string): GuardVerdict | null => ({ decision: 'allow' }),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString('utf8'); });
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      let body: Record<string, unknown> = {};
      try { body = raw ? JSON.parse(raw) as Record<string, unknown> : {}; } catch { /* recorded empty */ }
      g.seen.push({ path, body, headers: req.headers });
      const fn = path === '/v1/guard/input' ? g.input : path === '/v1/guard/output' ? g.output : null;
      if (!fn) { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":"not found","code":"not_found"}'); return; }
      const v = fn(String(body.content ?? ''));
      if (!v) { res.writeHead(503); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ decision: v.decision, reason: v.reason ?? '', scanner_results: v.scanner_results ?? [], rewritten_content: v.rewritten_content ?? null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return Object.assign(g, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  }) as GuardRecorder;
}

/** Who calls (a user of the pinned tenant by default). */
export interface Caller { id?: string; roles?: string[] }

/** A running harness. */
export interface Harness {
  url: string;
  auditUrl: string;
  llm: ScriptedLlm;
  guard: GuardRecorder;
  cfg: AgentRuntimeConfig;
  /** Stamped headers for a new turn of `caller` (the turn id is in `x-svc-turn-id`). */
  headers(caller?: Caller, turnId?: string): Record<string, string>;
  /** Headers of the runtime's service principal towards audit. */
  serviceHeaders(): Record<string, string>;
  /** Emit the gateway's `turn_started` for a turn and wait until audit has it. */
  startTurn(turnId: string, principalId?: string): Promise<void>;
  /** Emit the gateway's `turn_sealed` and wait until audit has it. */
  sealTurn(turnId: string, principalId?: string): Promise<void>;
  /** Call the runtime. */
  call(method: string, path: string, body?: unknown, caller?: Caller, turnId?: string): Promise<{ status: number; body: unknown; turnId: string }>;
  /** POST /v1/chat/stream and collect the SSE records. */
  stream(body: unknown, caller?: Caller, opts?: { turnId?: string; onRecord?: (r: SseRecord) => void }): Promise<{ status: number; records: SseRecord[]; turnId: string; raw: string }>;
  close(): Promise<void>;
}

/** Start the harness; `settings` override the settings reader's defaults (runtime-config.ts) and `hooks` go to the runtime. */
export async function startHarness(settings: Partial<AgentRuntimeSettings> = {}, llmOpts: ScriptedLlmOptions = {}, hooks: AgentRuntimeHooks = { pluginProbeMs: 0 }): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-rt-'));
  const principalKeys = [randomBytes(32).toString('hex')];
  const capTokenKeys = [randomBytes(32).toString('hex')];
  const llm = await startScriptedLlm(llmOpts);
  const guard = await startGuard();
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const n of SERVICE_NAMES) serviceUrls[n] = guard.url;
  const common = (service: ServiceName): CommonServiceConfig => ({
    service, host: '127.0.0.1', port: 0, env: 'test', dataDir, dbDir: join(dataDir, 'db'), objectsDir: join(dataDir, 'objects'), logDir: join(dataDir, 'logs'),
    migrationsDir: join(process.cwd(), 'migrations'), logLevel: 'warn', tenantId: 'acme', publicUrl: 'http://127.0.0.1:8080',
    principalKeys, capTokenKeys, authEnabled: true, serviceUrls,
  });
  const auditCfg: AuditConfig = {
    ...common('audit'), service: 'audit', signingKey: randomBytes(32).toString('hex'), keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null,
    sealIntervalSeconds: 3600, sealWatermarkSeconds: 3600, sealBatchLimit: 100,
  };
  const audit: RunningService = await startAudit(auditCfg);
  serviceUrls.audit = `http://127.0.0.1:${audit.port}`;
  serviceUrls['inference-router'] = llm.url;
  const cfg: AgentRuntimeConfig = { ...common('agent-runtime'), ...runtimeSettings(settings) };
  // Issue 21 item 1: scripts/run-tests.mjs's PostgreSQL pass (SVC_TEST_POSTGRES=1) puts the runtime's stores in a throwaway cluster.
  let pgCluster: TestPostgres | null = null;
  if (process.env['SVC_TEST_POSTGRES'] === '1' && !cfg.database) {
    pgCluster = await startPostgres();
    cfg.database = { url: pgCluster.url, schema: 'agent_runtime' };
  }
  const rt = await startRuntime(cfg, hooks);
  const url = `http://127.0.0.1:${rt.port}`;
  serviceUrls['agent-runtime'] = url;
  const gatewayEvents = new TurnEventClient({ service: 'gateway', auditUrl: serviceUrls.audit, tenantId: 'acme', principalKeys });

  const principal = (c: Caller = {}): Principal => {
    const now = Math.floor(Date.now() / 1000);
    return { id: c.id ?? 'user-1', tenant_id: 'acme', email: `${c.id ?? 'user-1'}@example.com`, roles: c.roles ?? ['user'], groups: [], auth_method: c.roles?.includes('service-account') ? 'service' : 'password', iat: now, exp: now + 300 };
  };
  const headers = (c: Caller = {}, turnId: string = nextTurn()): Record<string, string> => {
    const p = principal(c);
    return {
      'x-svc-principal': signStamp(p, principalKeys),
      'x-svc-turn-id': turnId,
      'x-svc-cap-token': signStamp({ sub: p.id, tenant_id: 'acme', scopes: [...CAPABILITY_SCOPES], turn_id: turnId, exp: p.exp }, capTokenKeys),
    };
  };
  const h: Harness = {
    url, auditUrl: serviceUrls.audit, llm, guard, cfg, headers,
    serviceHeaders: () => headers({ id: 'service:test', roles: ['service-account'] }),
    async startTurn(turnId, principalId = 'user-1') {
      gatewayEvents.emit(turnId, principalId, 'turn_started', { method: 'POST', path: '/v1/chat' });
      await gatewayEvents.deliver();
    },
    async sealTurn(turnId, principalId = 'user-1') {
      gatewayEvents.emit(turnId, principalId, 'turn_sealed', { status: 200 });
      await gatewayEvents.deliver();
    },
    async call(method, path, body, caller, turnId) {
      const hd = headers(caller, turnId);
      const init: RequestInit = { method, headers: { ...hd, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const r = await fetch(url + path, init);
      const text = await r.text();
      let parsed: unknown = text;
      try { parsed = text ? JSON.parse(text) : null; } catch { /* keep text */ }
      return { status: r.status, body: parsed, turnId: hd['x-svc-turn-id']! };
    },
    async stream(body, caller, opts = {}) {
      const hd = headers(caller, opts.turnId);
      const r = await fetch(`${url}/v1/chat/stream`, { method: 'POST', headers: { ...hd, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const records: SseRecord[] = [];
      const parser = new SseParser();
      let raw = '';
      if (r.body) {
        const dec = new TextDecoder();
        for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
          const s = dec.decode(chunk, { stream: true });
          raw += s;
          for (const rec of parser.push(s)) { records.push(rec); opts.onRecord?.(rec); }
        }
        for (const rec of parser.end()) { records.push(rec); opts.onRecord?.(rec); }
      }
      return { status: r.status, records, turnId: hd['x-svc-turn-id']!, raw };
    },
    async close() {
      gatewayEvents.close();
      await gatewayEvents.drain(2000);
      await rt.close();
      await audit.close();
      await llm.close();
      await guard.close();
      await pgCluster?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** GET an audit route with a privileged (service) principal. */
export async function auditGet(h: Harness, path: string): Promise<{ status: number; body: unknown }> {
  const r = await fetch(h.auditUrl + path, { headers: h.serviceHeaders() });
  const text = await r.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch { /* text */ }
  return { status: r.status, body };
}

/** Poll `fn` until it returns a truthy value or `ms` pass. */
export async function eventually<T>(fn: () => Promise<T | null | undefined | false>, ms = 5000, every = 25): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, every));
  }
}
