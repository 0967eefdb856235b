/**
 * The agent runtime app (spec "Services": agent runtime, port 8001), not listening: opens
 * `<dbDir>/agent-runtime.sqlite`, wires the clients of its peers (inference router, guardrail,
 * memory, knowledge, audit), the tool registry with the built-in tools and the plug-in loader, the
 * chat engine, and registers the routes of `contracts.ts`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { openDb } from '../../shared/db/open.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { buildServer } from '../../shared/http/server.js';
import { AuditClient } from './clients/audit.js';
import { ContextClient } from './clients/context.js';
import { GuardrailClient } from './clients/guardrail.js';
import { callJson } from './clients/http.js';
import { InferenceClient } from './clients/inference.js';
import { DEFAULT_RUNTIME_SETTINGS, type AgentRuntimeConfig, type AgentRuntimeSettings, type ToolModule, type ToolPolicy } from './contracts.js';
import { ApprovalCenter } from './domain/approvals.js';
import { ChatEngine } from './domain/chat-engine.js';
import { LiveReplay } from './domain/replay.js';
import { SessionService } from './domain/sessions.js';
import { ToolRegistry } from './domain/tool-registry.js';
import type { SourcedRule } from './domain/tool-policy.js';
import { approvalRoutes } from './routes/approvals.js';
import { chatRoutes } from './routes/chat.js';
import { replayRoutes } from './routes/replay.js';
import { sessionRoutes } from './routes/sessions.js';
import type { RuntimeContext } from './routes/context.js';
import { RuntimeStore } from './store/runtime-store.js';
import { BUILTIN_TOOLS, loadPlugin, pluginSources, type PluginSource } from './tools/index.js';

/** Host hooks the runtime accepts (tests and embedders). */
export interface AgentRuntimeHooks {
  /** Extra tools registered at start under the source name `extra`. */
  extraTools?: ToolModule[];
  /** Plug-in sources to look for instead of the default knowledge/memory/sandbox modules. */
  pluginSources?: PluginSource[];
  /** How often plug-in sources are probed, ms (default 30,000; 0 = only at start). */
  pluginProbeMs?: number;
}

/** Fill unset settings with their defaults. */
export function resolveSettings(cfg: AgentRuntimeConfig): AgentRuntimeSettings {
  const out = { ...DEFAULT_RUNTIME_SETTINGS } as AgentRuntimeSettings;
  for (const k of Object.keys(DEFAULT_RUNTIME_SETTINGS) as Array<keyof AgentRuntimeSettings>) {
    if (cfg[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = cfg[k];
  }
  return out;
}

/** Build the runtime app plus what `close()` must stop. */
export async function buildRuntimeApp(cfg: AgentRuntimeConfig, logger: Logger, hooks: AgentRuntimeHooks = {}): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const settings = resolveSettings(cfg);
  const db = openDb({ dbDir: cfg.dbDir, store: 'agent-runtime', migrationsDir: cfg.migrationsDir, vec: false });
  const store = new RuntimeStore(db);
  const cancelled = store.cancelPendingApprovals(new Date().toISOString());
  if (cancelled) logger.warn({ cancelled }, 'approvals pending at the last stop were cancelled');

  const events = new TurnEventClient({
    service: 'agent-runtime', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
    onLoss: (n, reason) => logger.error({ lost: n, reason }, 'turn events lost'),
  });
  const inference = new InferenceClient(cfg.serviceUrls['inference-router'], settings.modelTimeoutSeconds * 1000);
  const guardrail = new GuardrailClient(cfg.serviceUrls.guardrail, settings.sidecarTimeoutMs);
  const context = new ContextClient(cfg.serviceUrls.memory, cfg.serviceUrls.knowledge, settings.sidecarTimeoutMs);
  const audit = new AuditClient(cfg.serviceUrls.audit, cfg.tenantId, cfg.principalKeys);
  const tools = new ToolRegistry();
  tools.register('builtin', BUILTIN_TOOLS);
  if (hooks.extraTools?.length) tools.register('extra', hooks.extraTools);

  // Plug-in tools register while their service answers /readyz, and go when it stops answering.
  const sources = hooks.pluginSources ?? pluginSources();
  const probe = async (): Promise<void> => {
    await Promise.all(sources.map(async (src) => {
      let up = false;
      try { up = (await callJson(`${cfg.serviceUrls[src.service]}/readyz`, { timeoutMs: 1000 })).status === 200; } catch { up = false; }
      if (!up) { if (tools.has(src.service)) { tools.unregister(src.service); logger.warn({ source: src.service }, 'tool source withdrawn'); } return; }
      if (tools.has(src.service)) return;
      const list = await loadPlugin(src.moduleUrl);
      if (list?.length) logger.info({ source: src.service, tools: tools.register(src.service, list) }, 'tools registered');
    }));
  };
  void probe();
  // Peers start in parallel with the runtime: probe again soon after start, then at the steady pace.
  const earlyProbes = [500, 1500, 3500, 7500].map((ms) => { const t = setTimeout(() => void probe(), ms); t.unref(); return t; });
  const probeMs = hooks.pluginProbeMs ?? 30_000;
  const probeTimer = probeMs > 0 ? setInterval(() => void probe(), probeMs) : null;
  probeTimer?.unref();

  const baseRules: SourcedRule[] = settings.toolPolicy.map((r) => ({ ...r, origin: 'config' as const }));
  const policyRules = (tenantId: string): SourcedRule[] => [
    ...baseRules,
    ...store.listPolicies(tenantId).map((r): SourcedRule => ({
      tool: r.tool, policy: r.policy as ToolPolicy, tenant_id: r.tenant_id, ...(r.agent_id ? { agent_id: r.agent_id } : {}), origin: 'admin',
    })),
  ];
  const approvals = new ApprovalCenter(store);
  const engine = new ChatEngine({
    settings, store, inference, guardrail, context, audit, events, tools, policyRules, approvals, serviceUrls: cfg.serviceUrls, log: logger,
  });
  const sessions = new SessionService(store, inference, settings.defaultAgentId);
  const replay = new LiveReplay(audit, inference, events);

  const { app } = buildServer({ name: 'agent-runtime', logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, bodyLimit: 32 * 1024 * 1024 });
  const ctx: RuntimeContext = { tenantId: cfg.tenantId, settings, engine, sessions, approvals, replay, store, tools, policyRules, log: logger };
  // Parked runs hold their streams open: release them before the server waits for in-flight requests.
  app.addHook('preClose', async () => { approvals.cancelAll('the runtime is stopping'); });
  await app.register(chatRoutes(ctx));
  await app.register(sessionRoutes(ctx));
  await app.register(approvalRoutes(ctx));
  await app.register(replayRoutes(ctx));

  return {
    app,
    close: async () => {
      if (probeTimer) clearInterval(probeTimer);
      for (const t of earlyProbes) clearTimeout(t);
      events.close();
      await events.drain(3000);
      db.close();
    },
  };
}
