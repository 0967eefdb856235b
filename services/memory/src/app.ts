/**
 * The memory service, as the kit builds it (DESIGN.md "Inside a service"): opens the store
 * (PostgreSQL when `cfg.database` is set, issue 21 item 1; else `<dbDir>/memory.sqlite`), the
 * embedder (own worker thread; with no model, recall is keyword-only), the turn-event client and
 * the memory role client; wires the use cases into the routes; says on `/readyz` whether dense
 * recall is on; and runs two pieces of background work: the embedding pump and consolidation every
 * CONSOLIDATION_INTERVAL_HOURS (0: off).
 */
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { serviceStamp } from '../../shared/identity/service-stamp.js';
import { defineService } from '../../shared/kit/service.js';
import type { ServiceRuntime } from '../../shared/runtime.js';
import { createEmbedder, type Embedder } from '../../embedder/src/index.js';
import { RouterMemoryRole } from './clients/memory-role.js';
import { MEMORY_ERRORS, type MemoryConfig } from './contracts.js';
import { Consolidator } from './domain/consolidate.js';
import { ConsolidationJobs } from './domain/consolidation-jobs.js';
import { consolidationJobRoutes } from './routes/consolidation-jobs.js';
import { DenseIndex } from './domain/dense.js';
import type { MemoryDeps } from './domain/deps.js';
import { MemoryEditor } from './domain/edit.js';
import { MemoryRecall } from './domain/recall.js';
import { MemoryWriter } from './domain/write.js';
import { memoryRoutes } from './routes/memory.js';
import { memoryGrpc } from './grpc/memory.js';
import { openMemoryStore, type MemoryStoreFacade } from './store/memory-store.js';
import { openPgMemoryStore } from './store/pg/memory-store.js';

/** Host hooks and test seams of the memory service (`start(cfg, runtime)`'s second argument). */
export interface MemoryRuntime extends ServiceRuntime {
  /** An embedder to use instead of starting one (tests); the service does not close it. */
  embedder?: Embedder;
  /** False: emit no turn events (tests without an audit service). Default true. */
  events?: boolean;
}

/** Shortest consolidation period, ms, whatever the setting says. */
const MIN_CONSOLIDATION_PERIOD_MS = 60_000;
/** How long closing waits for pending turn events, ms. */
const EVENT_DRAIN_MS = 2000;

/** The memory service. */
export const memoryService = defineService<MemoryConfig, MemoryRuntime>({
  name: 'memory',
  errors: MEMORY_ERRORS,
  setup: async ({ cfg, runtime, logger, app, onClose, background, grpc }) => {
    const store: MemoryStoreFacade = cfg.database
      ? await openPgMemoryStore(cfg.database, cfg.migrationsDir)
      : openMemoryStore(cfg.dbDir, cfg.migrationsDir);
    onClose(() => store.close());
    if (await store.vectors.ensureDims(cfg.embeddingDims)) logger.warn('EMBEDDING_DIMS changed: memory vectors dropped and re-embedded in the background');
    const embedder = runtime.embedder ?? createEmbedder({ modelDirs: cfg.modelDirs, model: cfg.embeddingModel, dims: cfg.embeddingDims });
    if (!runtime.embedder) onClose(() => embedder.close());
    const events = runtime.events === false ? null : new TurnEventClient({
      service: 'memory', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
      onLoss: (n, why) => logger.warn({ n, why }, 'turn events lost'),
    });
    if (events) onClose(async () => { await events.drain(EVENT_DRAIN_MS); events.close(); });
    const dense = new DenseIndex({ vectors: store.vectors, embedder });
    onClose(() => dense.close());

    const deps: MemoryDeps = {
      memories: store.memories, vectors: store.vectors, history: store.history, tx: store.txAsync, dense,
      role: new RouterMemoryRole(cfg.serviceUrls['inference-router']), events, settings: cfg,
    };
    const consolidationJobs = new ConsolidationJobs();
    const consolidator = new Consolidator(deps, consolidationJobs);
    const writer = new MemoryWriter(deps);
    await app.register(memoryRoutes, { writer, recall: new MemoryRecall(deps), editor: new MemoryEditor(deps), consolidator, dense });
    grpc(memoryGrpc(writer));
    await app.register(consolidationJobRoutes, { jobs: consolidationJobs });

    app.health.check(async () => (await store.ready() ? true : `memory store ${store.isOpen ? 'unreachable' : 'closed'}`));
    app.health.detail(() => {
      const st = dense.status(null); // unauthenticated: no directories in the reason (issue 11 item 9)
      return { dense_retrieval: st.dense_enabled ? 'on' : 'off', dense_reason: st.dense_reason, sparse_retrieval: 'on' };
    });

    background('embedding-pump', () => { dense.start(); });
    background('consolidation', () => {
      if (cfg.consolidationIntervalHours <= 0) return undefined;
      const stamp = serviceStamp('memory', cfg.tenantId, cfg.principalKeys);
      let running: Promise<unknown> | null = null;
      const timer = setInterval(() => {
        if (running) return;
        running = consolidator.consolidate('service:memory', { 'x-svc-principal': stamp() }, null)
          .then((r) => logger.info({ merged: r.merged, expired: r.expired_removed, by: r.decided_by }, 'consolidation pass'))
          .catch((err: unknown) => logger.error({ err }, 'consolidation failed'))
          .finally(() => { running = null; });
      }, Math.max(MIN_CONSOLIDATION_PERIOD_MS, cfg.consolidationIntervalHours * 3_600_000));
      timer.unref();
      return async () => { clearInterval(timer); await running; };
    });
  },
});
