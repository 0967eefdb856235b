/**
 * Observability as the kit builds it (spec "Observability"): the store, the price book with the
 * external price list (fetched through the outbound agent, issue 11 item 8), generation, budget and
 * trace use cases, a server span (stored directly) for each request that carries a W3C
 * `traceparent`, hourly span pruning, and the routes. Wiring only.
 */
import { workstationEndpoints } from '../../shared/http/outbound.js';
import { createOutboundAgent } from '../../shared/http/outbound-agent.js';
import { defineService } from '../../shared/kit/service.js';
import { httpPriceList } from './clients/price-list.js';
import { OBSERVABILITY_ERRORS, type ObservabilityConfig } from './contracts.js';
import { BudgetAlerts } from './domain/budget-alerts.js';
import { BudgetService } from './domain/budgets.js';
import { NotificationsClient } from '../../agent-runtime/src/client.js';
import { GenerationService } from './domain/generations.js';
import type { PriceListSource } from './domain/ports.js';
import { PriceBook } from './domain/price-book.js';
import { SpanBatcher, TraceService } from './domain/traces.js';
import { adminRoutes } from './routes/admin.js';
import { generationRoutes } from './routes/generations.js';
import { priceRoutes } from './routes/prices.js';
import { obsTracing } from './routes/tracing.js';
import { openObsStore, openPgObsStore } from './store/obs-store.js';

/** Test seams of observability (`start(cfg, runtime)`'s second argument). */
export interface ObservabilityRuntime {
  /** Where `POST /v1/prices/refresh` fetches the list (default: HTTP GET of PRICING_MODELS_URL). */
  priceList?: PriceListSource;
}

/** How often spans past the retention are deleted, ms. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** The observability service. */
export const observabilityService = defineService<ObservabilityConfig, ObservabilityRuntime>({
  name: 'observability',
  errors: OBSERVABILITY_ERRORS,
  async setup(ctx) {
    const { cfg, logger, app } = ctx;
    const store = cfg.database ? await openPgObsStore(cfg.database, cfg.migrationsDir) : openObsStore(cfg);
    ctx.onClose(() => store.close());
    const { tenantId } = cfg;
    let source = ctx.runtime.priceList;
    if (!source) {
      // PRICING_MODELS_URL is supplied by the operator: no URL of the workstation's own (issue 11 item 8).
      const outbound = createOutboundAgent({ own: workstationEndpoints(cfg) }, { connections: 1 });
      ctx.onClose(() => outbound.close().catch(() => undefined));
      source = httpPriceList(outbound);
    }
    const prices = new PriceBook({
      store: store.prices, source, tenantId,
      localPrices: cfg.localPrices, pricingModelsUrl: cfg.pricingModelsUrl, pricingTimeoutMs: cfg.pricingTimeoutMs,
    });
    await prices.reload();
    const budgets = new BudgetService({ budgets: store.budgets, generations: store.generations, tenantId });
    // Spend past a budget limit notifies the admin who set it, through the agent runtime (issue 13 item 1; fails soft).
    const notifier = new NotificationsClient({ baseUrl: cfg.serviceUrls['agent-runtime'], service: 'observability', tenantId, principalKeys: cfg.principalKeys, log: logger });
    const alerts = new BudgetAlerts({
      status: (t) => budgets.status(t), sink: (n) => notifier.notify(n),
      hasLimits: async (t) => { const b = await store.budgets.get(t); return !!b && (b.soft_limit_usd !== null || b.hard_limit_usd !== null); },
    });
    const generations = new GenerationService({ store: store.generations, prices, tenantId, onRecorded: (rec) => alerts.recorded(rec.tenant_id) });
    const traces = new TraceService(store.spans);

    // Our own spans go straight to the store (a batch per tick), never over HTTP to ourselves.
    const own = new SpanBatcher(store.spans, (err) => logger.warn({ err }, 'span insert failed'));
    ctx.onClose(() => own.flush());
    app.health.check(async () => ((await store.ready()) ? true : 'observability store closed'));

    ctx.background('span-prune', () => {
      const timer = setInterval(() => {
        traces.prune(cfg.traceRetentionDays).catch(() => { /* next round */ });
      }, PRUNE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    });

    await app.register(obsTracing, { sink: own.add });
    await app.register(generationRoutes, { generations });
    await app.register(priceRoutes, { prices });
    await app.register(adminRoutes, { budgets, traces });
  },
});
