/**
 * Build the inference router without listening (spec "Inference router"): the shared server, the
 * registry (SQLite + OS keychain or encrypted key file + local GGUF scan), the adapters, the local engine, the
 * observability and audit clients, a span per request (W3C traceparent accepted and propagated),
 * and the snapshot refresh timer.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import { buildServer } from '../../shared/http/server.js';
import { SpanExporter, parseTraceparent } from '../../observability/src/client.js';
import { chatCompletionsAdapter } from './adapters/chat-completions.js';
import { localAdapter } from './adapters/local.js';
import { probeProvider } from './adapters/probe.js';
import { responsesAdapter } from './adapters/responses.js';
import { AuditRecorder } from './clients/audit.js';
import { BudgetGuard, GenerationReporter } from './clients/observability.js';
import { serviceStamp } from './clients/service-stamp.js';
import type { RouterConfig } from './contracts.js';
import type { RouterContext } from './domain/context.js';
import { Registry } from './domain/registry.js';
import { Cooldowns } from './domain/snapshot.js';
import { LocalEngine } from './engine/local-engine.js';
import { WeightHasher, scanModels } from './engine/models-dir.js';
import { adminRoutes } from './routes/admin.js';
import { openaiRoutes } from './routes/openai.js';
import { RegistryStore } from './store/registry-store.js';
import { EncryptedFileSecretStore, type SecretStore } from './store/secret-store.js';

/** Test and host seams of `buildRouterApp`. */
export interface RouterAppOptions {
  logger: Logger;
  /** Key store (`start` passes `openSecretStore`'s choice; default: the encrypted file under `<dataDir>/secrets/`). */
  secrets?: SecretStore;
}

/** The built app and what `close()` must stop. */
export interface BuiltRouter {
  app: FastifyInstance;
  ctx: RouterContext;
  close(): Promise<void>;
}

const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/** Build the router on `cfg` (opens `<dbDir>/inference-router.sqlite`). */
export function buildRouterApp(cfg: RouterConfig, opts: RouterAppOptions): BuiltRouter {
  const log = opts.logger;
  const store = new RegistryStore(cfg.dbDir, cfg.migrationsDir);
  const secrets = opts.secrets ?? new EncryptedFileSecretStore(cfg.dataDir);
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64, headersTimeout: cfg.upstreamTimeoutMs, bodyTimeout: 0 });
  const hasher = new WeightHasher();
  const registry = new Registry({
    store, secrets, hasher,
    probe: (base, key) => probeProvider(dispatcher, base, key, cfg.probeTimeoutMs),
    scanLocal: () => (cfg.localEngineEnabled ? scanModels(cfg.modelsDir) : []),
  });
  const engine = new LocalEngine({ threads: cfg.localThreads, contextSize: cfg.localContextSize });
  const stamp = serviceStamp(cfg.tenantId, cfg.principalKeys);
  const ctx: RouterContext = {
    cfg, registry, hasher, dispatcher, log,
    cooldowns: new Cooldowns(cfg.cooldownSeconds * 1000),
    adapters: { chat_completions: chatCompletionsAdapter, responses: responsesAdapter, local: localAdapter(engine, cfg.localMaxTokens) },
    reporter: new GenerationReporter(cfg.serviceUrls.observability, stamp, log),
    budget: new BudgetGuard(cfg.serviceUrls.observability, cfg.tenantId, stamp, cfg.budgetCacheMs, log),
    tracer: new SpanExporter({ service: 'inference-router', url: cfg.serviceUrls.observability, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys }),
    audit: new AuditRecorder(cfg.serviceUrls.audit, stamp, log),
  };

  const { app } = buildServer({
    name: 'inference-router', logger: log, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, bodyLimit: 26_214_400,
  });
  app.decorateRequest('routerSpan', null);
  app.addHook('onRequest', async (req) => {
    const path = req.url.split('?', 1)[0]!;
    if (UNTRACED.has(path)) return;
    req.routerSpan = ctx.tracer.start(`${req.method} ${req.routeOptions.url ?? path}`, 'server', parseTraceparent(req.headers.traceparent));
  });
  app.addHook('onResponse', async (req, reply) => {
    req.routerSpan?.end(reply.statusCode >= 500 ? 'error' : 'ok', { 'http.status_code': reply.statusCode });
  });
  app.addHook('onSend', async (req, reply) => {
    if (req.routerSpan) void reply.header('x-svc-trace-id', req.routerSpan.traceId);
  });

  void app.register(adminRoutes(ctx));
  void app.register(openaiRoutes(ctx));

  const timer = setInterval(() => {
    try { registry.refresh(); } catch (err) { log.error({ err }, 'registry snapshot refresh failed'); }
  }, cfg.snapshotRefreshSeconds * 1000);
  timer.unref();

  return {
    app, ctx,
    close: async () => {
      clearInterval(timer);
      await engine.close();
      await ctx.reporter.close();
      await ctx.tracer.close();
      await ctx.budget.close();
      await dispatcher.close().catch(() => undefined);
      store.close();
    },
  };
}
