/**
 * The inference router as the kit builds it (spec "Inference router"): the provider registry
 * (SQLite + OS keychain or encrypted key file + local GGUF scan), the upstream adapters over the
 * outbound agent (no URL of the workstation's own, issue 11 item 8) and the local engine,
 * observability (spans, generation records, budget) and audit clients, a span per request (W3C
 * traceparent accepted and propagated), the snapshot refresh, and the routes. Wiring only; the use
 * cases live in `domain/`.
 */
import { AuditClient } from '../../audit/src/client.js';
import { BudgetGuard, GenerationReporter, SpanExporter } from '../../observability/src/client.js';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import { workstationEndpoints } from '../../shared/http/outbound.js';
import { createOutboundAgent } from '../../shared/http/outbound-agent.js';
import type { Keychain } from '../../../native/keychain.js';
import { defineService } from '../../shared/kit/service.js';
import { statusOf } from '../../shared/kit/domain-error.js';
import { localAdapter } from './adapters/local.js';
import { probeProvider } from './adapters/probe.js';
import { createUpstream } from './adapters/upstream.js';
import { INFERENCE_ROUTER_ERRORS, type RouterConfig } from './contracts.js';
import { RegistryAdmin } from './domain/admin.js';
import { GenerationRecorder } from './domain/generation.js';
import { InferenceService } from './domain/inference.js';
import type { AdminAudit, SecretStore } from './domain/ports.js';
import { Registry } from './domain/registry.js';
import { Cooldowns } from './domain/snapshot.js';
import { LocalEngine } from './engine/local-engine.js';
import { WeightHasher, scanModels } from './engine/models-dir.js';
import { adminRoutes } from './routes/admin.js';
import { openaiRoutes } from './routes/openai.js';
import { routerTracing } from './routes/tracing.js';
import { openPgRouterStore, openRouterStore } from './store/router-store.js';
import { squidControl } from './clients/squid-control.js';
import { EgressAllowlist } from './domain/egress.js';
import { egressRoutes } from './routes/egress.js';
import { ulidFactory } from '../../shared/identity/ulid.js';
import { openSecretStore } from './store/secret-store.js';

/** Host hooks and test seams of the router (`start(cfg, runtime)`'s second argument). */
export interface RouterRuntime {
  /** Key store to use instead of opening the one `cfg.secretStore` names. */
  secrets?: SecretStore;
  /** How the OS keychain is opened (default native/keychain.ts). */
  openKeychain?: (service: string, onUnavailable: (reason: string) => void) => Promise<Keychain | null>;
}

/** Largest request body, bytes (25 MiB: long chats with images). */
const BODY_LIMIT = 26_214_400;

/** The inference router. */
export const inferenceRouterService = defineService<RouterConfig, RouterRuntime>({
  name: 'inference-router',
  errors: INFERENCE_ROUTER_ERRORS,
  bodyLimit: BODY_LIMIT,
  async setup(ctx) {
    const { cfg, logger: log, app, runtime } = ctx;
    const secrets = runtime.secrets ?? await openSecretStore(cfg.dataDir, {
      log, mode: cfg.secretStore, ...(runtime.openKeychain ? { openKeychain: runtime.openKeychain } : {}),
    });
    const store = cfg.database ? await openPgRouterStore(cfg.database, cfg.migrationsDir) : openRouterStore(cfg.dbDir, cfg.migrationsDir);
    ctx.onClose(() => store.close());
    app.health.check(async () => ((await store.ready()) ? true : 'inference-router store closed'));
    // Provider base URLs are supplied by admins: every connection is checked against the
    // workstation's own ports and link-local addresses (issue 11 item 8), this service's bound port included.
    const own = workstationEndpoints(cfg);
    app.addHook('onListen', function onListen(done) {
      const a = this.server.address();
      if (a && typeof a === 'object') own.addPort(a.port);
      done();
    });
    const dispatcher = createOutboundAgent({ own }, { keepAliveTimeout: 30_000, connections: 64, headersTimeout: cfg.upstreamTimeoutMs, bodyTimeout: 0 });
    ctx.onClose(() => dispatcher.close().catch(() => undefined));

    const stamp = serviceStamp('inference-router', cfg.tenantId, cfg.principalKeys);
    const obs = cfg.serviceUrls.observability;
    const budget = new BudgetGuard(obs, cfg.tenantId, stamp, cfg.budgetCacheMs, log);
    ctx.onClose(() => budget.close());
    const tracer = new SpanExporter({ service: 'inference-router', url: obs, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, stamp });
    ctx.onClose(() => tracer.close());
    const reporter = new GenerationReporter(obs, stamp, log);
    ctx.onClose(() => reporter.close());
    const engine = new LocalEngine({ threads: cfg.localThreads, contextSize: cfg.localContextSize });
    ctx.onClose(() => engine.close());

    const auditClient = new AuditClient({ baseUrl: cfg.serviceUrls.audit, service: 'inference-router', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, stamp });
    const audit: AdminAudit = {
      record: async (c) => {
        await auditClient.append({
          action: c.action, resource_type: c.resourceType, resource_id: c.resourceId, user_id: c.userId, detail_type: 'inference_admin_change', detail: c.detail,
        }, {
          attempts: 2,
          onFailure: (f) => {
            if (f.kind === 'refused') log.warn({ status: f.status, action: c.action }, 'audit refused an admin-change row');
            else log.warn({ err: f.error.message, action: c.action }, 'audit unreachable for an admin-change row');
          },
        });
      },
    };

    const hasher = new WeightHasher();
    const registry = new Registry({
      store: store.registry, secrets, hasher,
      probe: (base, key) => probeProvider(dispatcher, base, key, cfg.probeTimeoutMs),
      scanLocal: () => (cfg.localEngineEnabled ? scanModels(cfg.modelsDir) : []),
    });
    await registry.refresh();
    const cooldowns = new Cooldowns(cfg.cooldownSeconds * 1000);
    const snapshot = () => registry.snapshot;
    const inference = new InferenceService({
      snapshot, cooldowns, budget, tracer, log,
      upstream: createUpstream({ dispatcher, timeoutMs: cfg.upstreamTimeoutMs, local: localAdapter(engine, cfg.localMaxTokens) }),
      recorder: new GenerationRecorder({ sink: reporter, budget, localModels: () => registry.localModels, hashes: hasher }),
      statusOf: (err) => statusOf(INFERENCE_ROUTER_ERRORS, err.code, err.situation),
    });

    ctx.background('snapshot-refresh', () => {
      const timer = setInterval(() => {
        registry.refresh().catch((err: unknown) => { log.error({ err }, 'registry snapshot refresh failed'); });
      }, cfg.snapshotRefreshSeconds * 1000);
      timer.unref();
      return () => clearInterval(timer);
    });

    await app.register(routerTracing, { tracer });
    await app.register(adminRoutes, { registry, admin: new RegistryAdmin(registry, audit) });
    await app.register(openaiRoutes, { inference, snapshot, cooldowns, hashes: hasher });

    // Issue 19 item 6: the egress allowlist; the Squid include is rewritten from the store at start.
    const allowlist = new EgressAllowlist(store.egress, squidControl(cfg.egress, log), ulidFactory(), () => new Date(), audit);
    await allowlist.sync();
    if (cfg.egress?.policy === 'enforce' && cfg.egress.state !== 'running') {
      app.health.check(() => `egress enforce: proxy unavailable (${cfg.egress?.reason ?? 'unknown'}); outbound calls fail closed`);
    }
    await app.register(egressRoutes, { allowlist });
  },
});
