/**
 * The guardrail service, as the kit builds it (DESIGN.md "Inside a service"): opens the store,
 * the turn-event client, the audit client and the optional router classifier (one cached service
 * stamp for both), the pool of scan workers (checks and de-identification run off the event loop
 * with a time budget each, issue 11 item 6), wires the use cases into the routes, and purges
 * de-identification mappings older than SVC_GUARDRAIL_DEID_RETENTION_HOURS at start and every hour.
 * Issue 16: the trained n-gram classifier's weights are handed to every scan worker, the imported
 * encoder classifier (when its model is installed) runs in its own worker, and `/readyz` and
 * `GET /v1/guard/status` say which of them run.
 */
import { AuditClient } from '../../audit/src/client.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import { defineService } from '../../shared/kit/service.js';
import type { ServiceRuntime } from '../../shared/runtime.js';
import { createEncoderClassifier, publicEncoderStatus } from './classifier/encoder.js';
import { ngramStatusOf } from './classifier/ngram-file.js';
import { RouterClassifier } from './clients/classifier.js';
import { GUARDRAIL_ERRORS, type GuardrailConfig } from './contracts.js';
import { Deidentifier } from './domain/deid.js';
import { GuardCheck } from './domain/guard-check.js';
import { PolicyBook } from './domain/policies.js';
import { deidRoutes } from './routes/deid.js';
import { guardRoutes } from './routes/guard.js';
import { guardGrpc } from './grpc/guard.js';
import { policyRoutes } from './routes/policy.js';
import { statusRoutes } from './routes/status.js';
import { ScanPool } from './scanning/scan-pool.js';
import { openGuardStore, openPgGuardStore } from './store/guard-store.js';

/** Host hooks of the guardrail (`start(cfg, runtime)`'s second argument); it has no test seams. */
export type GuardrailRuntime = ServiceRuntime;

/** How often expired de-identification mappings are purged, ms. */
const PURGE_INTERVAL_MS = 3_600_000;

/** The guardrail service. */
export const guardrailService = defineService<GuardrailConfig, GuardrailRuntime>({
  name: 'guardrail',
  errors: GUARDRAIL_ERRORS,
  bodyLimit: (cfg) => cfg.maxBodyBytes,
  setup: async ({ cfg, logger, app, onClose, background, grpc }) => {
    const store = cfg.database ? await openPgGuardStore(cfg.database, cfg.migrationsDir, cfg.dbDir) : openGuardStore(cfg.dbDir, cfg.migrationsDir);
    onClose(() => store.close());
    const events = new TurnEventClient({
      service: 'guardrail', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
      onLoss: (count, reason) => logger.warn({ count, reason }, 'turn events lost'),
    });
    onClose(async () => { events.close(); await events.drain(cfg.deliveryTimeoutMs); });
    const stamp = serviceStamp('guardrail', cfg.tenantId, cfg.principalKeys);
    const audit = new AuditClient({ baseUrl: cfg.serviceUrls.audit, service: 'guardrail', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, stamp });
    const classifier = new RouterClassifier({
      routerUrl: cfg.serviceUrls['inference-router'], stamp, timeoutMs: cfg.classifierTimeoutMs, negativeTtlMs: cfg.classifierRetrySeconds * 1000,
    });

    // Issue 16: the trained n-gram classifier (loaded here for its status; each scan worker loads
    // its own copy at start) and the imported encoder classifier (its own worker, when installed).
    const ngram = ngramStatusOf(cfg.ngramModelPath);
    if (ngram.status.state !== 'ready' && ngram.status.state !== 'off') logger.warn({ reason: ngram.status.reason }, 'n-gram classifier off');
    const encoder = createEncoderClassifier({
      modelDirs: cfg.modelDirs, model: cfg.encoderModel, timeoutMs: cfg.encoderTimeoutMs, maxWindows: cfg.encoderMaxWindows, threads: cfg.encoderThreads,
    });
    onClose(() => encoder.close());
    void encoder.whenSettled().then((st) => { if (st.state !== 'ready') logger.info({ state: st.state, reason: st.reason }, 'encoder classifier off; the other layers carry on'); });
    // Workers start with the first scans (an idle stack does not pay their ~20 MB each).
    const scanner = new ScanPool({ workers: cfg.checkWorkers, budgetMs: cfg.checkBudgetMs, log: logger, workerData: { ngramModelPath: ngram.loaded ? cfg.ngramModelPath : null } });
    onClose(() => scanner.close());
    const policies = new PolicyBook(store.policies, cfg.tenantId);
    const guard = new GuardCheck({
      policies, classifier, events, log: logger, tenantId: cfg.tenantId, deliveryTimeoutMs: cfg.deliveryTimeoutMs, scanner, encoder, mappings: store.mappings,
      audit: { append: (row) => audit.append(row, { timeoutMs: cfg.deliveryTimeoutMs }) },
    });
    await app.register(guardRoutes, { guard });
    grpc(guardGrpc(guard));
    await app.register(deidRoutes, { deid: new Deidentifier({ policies, mappings: store.mappings, tenantId: cfg.tenantId, scanner }) });
    await app.register(policyRoutes, { policies });
    const layerStatus = (detailed: boolean) => ({
      ngram_classifier: ngram.status,
      encoder_classifier: detailed ? encoder.status() : publicEncoderStatus(encoder.status()),
    });
    await app.register(statusRoutes, { status: layerStatus });
    app.health.check(async () => ((await store.ready()) ? true : 'guardrail store closed'));
    // Issue 16 item 1: /readyz says which learned layers run (the service is ready without them).
    app.health.detail(() => ({ classifiers: layerStatus(false) }));

    const purge = async (): Promise<void> => {
      try { await store.mappings.purgeBefore(Date.now() - cfg.deidRetentionHours * 3_600_000); } catch (err) { logger.error({ err }, 'purge of de-identification mappings failed'); }
    };
    await purge();
    background('deid-purge', () => {
      const timer = setInterval(() => { void purge(); }, PURGE_INTERVAL_MS);
      timer.unref();
      return () => clearInterval(timer);
    });
  },
});
