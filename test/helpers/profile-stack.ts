/**
 * A runtime behind the REAL inference router (issue 13 items 2, 3 tests): the scripted LLM is a
 * provider registered with the router, so model roles (`default`, `profile_curation`) are mapped
 * and unmapped the way an admin does it; the real audit service; the agent runtime with its data
 * dir kept until `close` (tests read its SQLite file and log). Guardrail, memory and knowledge are
 * unreachable (the guardrail fail mode is `open`, context prefetch off). Keys in the key file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { start as startRuntime } from '../../services/agent-runtime/src/index.js';
import { start as startAudit } from '../../services/audit/src/index.js';
import { start as startRouter } from '../../services/inference-router/src/index.js';
import type { AgentRuntimeConfig, AgentRuntimeSettings } from '../../services/agent-runtime/src/contracts.js';
import type { AuditConfig, CommonServiceConfig } from '../../services/shared/config.js';
import { CAPABILITY_SCOPES, signStamp, type Principal } from '../../services/shared/identity/principal.js';
import { ulidFactory } from '../../services/shared/identity/ulid.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import { routerConfig, testKeys } from './router-config.js';
import { runtimeSettings } from './runtime-config.js';
import { startScriptedLlm, type ScriptedLlm, type ScriptedLlmOptions } from './scripted-llm.js';

const nextTurn = ulidFactory();

/** Who calls: a user of tenant `acme` by default. */
export interface StackCaller { id?: string; roles?: string[]; headers?: Record<string, string> }

/** A running runtime + router + audit + scripted provider. */
export interface ProfileStack {
  runtimeUrl: string;
  routerUrl: string;
  llm: ScriptedLlm;
  cfg: AgentRuntimeConfig;
  /** The runtime's data dir (SQLite under `db/`, logs under `logs/`). */
  dataDir: string;
  /** Stamped headers as the gateway sends them (a fresh turn id). */
  headers(c?: StackCaller): Record<string, string>;
  /** Call the runtime as `c`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
  call(method: string, path: string, body?: unknown, c?: StackCaller): Promise<{ status: number; body: any; turnId: string }>;
  /** Map a model role to the scripted provider's model (admin). */
  mapRole(role: string): Promise<void>;
  /** Remove a role mapping (admin). */
  unmapRole(role: string): Promise<void>;
  close(): Promise<void>;
}

/** Start the stack; `settings` override the runtime's defaults. The `default` role is mapped. */
export async function startProfileStack(settings: Partial<AgentRuntimeSettings> = {}, llmOpts: ScriptedLlmOptions = {}): Promise<ProfileStack> {
  const keys = testKeys();
  const llm = await startScriptedLlm(llmOpts);
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
  const serviceUrls = {} as Record<ServiceName, string>;
  for (const n of SERVICE_NAMES) serviceUrls[n] = 'http://127.0.0.1:9';
  const common = (service: ServiceName, dir: string): CommonServiceConfig => ({
    service, host: '127.0.0.1', port: 0, env: 'test', dataDir: dir, dbDir: join(dir, 'db'), objectsDir: join(dir, 'objects'), logDir: join(dir, 'logs'),
    migrationsDir: join(process.cwd(), 'migrations'), logLevel: 'info', tenantId: 'acme', publicUrl: 'http://127.0.0.1:8080',
    principalKeys: keys.principalKeys, capTokenKeys: keys.capTokenKeys, authEnabled: true, serviceUrls,
  });
  const auditDir = mkdtempSync(join(tmpdir(), 'svc-profile-audit-'));
  const auditCfg: AuditConfig = {
    ...common('audit', auditDir), service: 'audit', signingKey: randomBytes(32).toString('hex'), keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null,
    sealIntervalSeconds: 3600, sealWatermarkSeconds: 3600, sealBatchLimit: 100,
  };
  const audit: RunningService = await startAudit(auditCfg);
  serviceUrls.audit = `http://127.0.0.1:${audit.port}`;
  const router = await startRouter(routerConfig(keys, { audit: serviceUrls.audit }));
  const routerUrl = `http://127.0.0.1:${router.port}`;
  serviceUrls['inference-router'] = routerUrl;
  const cfg: AgentRuntimeConfig = {
    ...common('agent-runtime', dataDir),
    ...runtimeSettings({ guardrailFailMode: 'open', contextPrefetch: false, titleGeneration: false, secretStore: 'file', ...settings }),
  };
  const rt = await startRuntime(cfg, { pluginProbeMs: 0, pluginSources: [] });
  const runtimeUrl = `http://127.0.0.1:${rt.port}`;

  const principal = (c: StackCaller = {}): Principal => {
    const now = Math.floor(Date.now() / 1000);
    return { id: c.id ?? 'user-1', tenant_id: 'acme', email: `${c.id ?? 'user-1'}@example.com`, roles: c.roles ?? ['user'], groups: [], auth_method: 'password', iat: now, exp: now + 300 };
  };
  const headers = (c: StackCaller = {}): Record<string, string> => {
    const p = principal(c);
    const turnId = nextTurn();
    return {
      'x-svc-principal': signStamp(p, keys.principalKeys), 'x-svc-turn-id': turnId,
      'x-svc-cap-token': signStamp({ sub: p.id, tenant_id: 'acme', scopes: [...CAPABILITY_SCOPES], turn_id: turnId, exp: p.exp }, keys.capTokenKeys),
      ...(c.headers ?? {}),
    };
  };
  const json = async (base: string, method: string, path: string, hd: Record<string, string>, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const init: RequestInit = { method, headers: { ...hd, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const r = await fetch(base + path, init);
    const text = await r.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* keep text */ }
    return { status: r.status, body: parsed };
  };
  const admin = (): Record<string, string> => headers({ id: 'admin-1', roles: ['admin', 'user'] });
  const reg = await json(routerUrl, 'POST', '/v1/internal/providers', admin(), { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  if (reg.status !== 201) throw new Error(`provider registration failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const providerId = (reg.body as { id: string }).id;
  const mapRole = async (role: string): Promise<void> => {
    const r = await json(routerUrl, 'PUT', `/v1/internal/roles/${role}`, admin(), { provider_id: providerId, model: 'scripted-model' });
    if (r.status !== 200) throw new Error(`role ${role} not mapped: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await mapRole('default');
  return {
    runtimeUrl, routerUrl, llm, cfg, dataDir, headers,
    async call(method, path, body, c) {
      const hd = headers(c);
      return { ...(await json(runtimeUrl, method, path, hd, body)), turnId: hd['x-svc-turn-id']! };
    },
    mapRole,
    async unmapRole(role) {
      const r = await json(routerUrl, 'DELETE', `/v1/internal/roles/${role}`, admin());
      if (r.status !== 204) throw new Error(`role ${role} not removed: ${r.status}`);
    },
    async close() {
      await rt.close();
      await router.close();
      await audit.close();
      await llm.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(auditDir, { recursive: true, force: true });
    },
  };
}
