/**
 * Builds the memory service's fastify instance without listening: shared server, store, embedder
 * (own worker thread), turn events, the consolidation timer (every CONSOLIDATION_INTERVAL_HOURS;
 * started by `start()`), and the routes. `/readyz` says whether dense recall is on.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildServer } from '../../shared/http/server.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { signStamp, servicePrincipal } from '../../shared/identity/principal.js';
import { createEmbedder } from '../../embedder/src/embedder.js';
import type { Embedder } from '../../embedder/src/contracts.js';
import type { MemoryConfig } from './contracts.js';
import { MemoryService } from './domain/memory-service.js';
import { MemoryStore } from './store/memory-store.js';
import { memoryRoutes } from './routes/memory.js';

/** Options of `buildMemoryApp`. */
export interface BuildMemoryAppOptions { logger: Logger; embedder?: Embedder; events?: boolean }

/** The built app. `startTimers()` starts periodic consolidation. */
export interface MemoryApp { app: FastifyInstance; svc: MemoryService; store: MemoryStore; embedder: Embedder; startTimers(): void; close(): Promise<void> }

/** Build the memory app. @throws Error when the store cannot be opened. */
export function buildMemoryApp(cfg: MemoryConfig, opts: BuildMemoryAppOptions): MemoryApp {
  const store = MemoryStore.open(cfg.dbDir, cfg.migrationsDir);
  if (store.ensureDims(cfg.embeddingDims)) opts.logger.warn('EMBEDDING_DIMS changed: memory vectors dropped and re-embedded in the background');
  const embedder = opts.embedder ?? createEmbedder({ modelDirs: cfg.modelDirs, model: cfg.embeddingModel, dims: cfg.embeddingDims });
  const events = opts.events === false ? null : new TurnEventClient({
    service: 'memory', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
    onLoss: (n, why) => opts.logger.warn({ n, why }, 'turn events lost'),
  });
  const svc = new MemoryService({ store, embedder, settings: cfg, routerUrl: cfg.serviceUrls['inference-router'], events, logger: opts.logger });
  svc.start();
  const { app } = buildServer({
    name: 'memory', logger: opts.logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys,
    ready: () => (store.db.open ? true : 'memory store closed'),
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.url !== '/readyz' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const st = svc.status();
    return JSON.stringify({ ...JSON.parse(payload) as object, dense_retrieval: st.dense_enabled ? 'on' : 'off', dense_reason: st.dense_reason, sparse_retrieval: 'on' });
  });
  void app.register(memoryRoutes(svc));
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let closing: Promise<void> | null = null;
  return {
    app, svc, store, embedder,
    startTimers: () => {
      if (cfg.consolidationIntervalHours <= 0 || timer) return;
      timer = setInterval(() => {
        if (running) return;
        const headers = { 'x-svc-principal': signStamp(servicePrincipal('memory', cfg.tenantId), cfg.principalKeys) };
        running = svc.consolidate('service:memory', headers, null)
          .then((r) => opts.logger.info({ merged: r.merged, expired: r.expired_removed, by: r.decided_by }, 'consolidation pass'))
          .catch((err: unknown) => opts.logger.error({ err }, 'consolidation failed'))
          .finally(() => { running = null; });
      }, Math.max(60_000, cfg.consolidationIntervalHours * 3_600_000));
      timer.unref();
    },
    close: () => {
      closing ??= (async () => {
        if (timer) clearInterval(timer);
        await running;
        await svc.close();
        if (events) { await events.drain(2000); events.close(); }
        if (!opts.embedder) await embedder.close();
        store.close();
      })();
      return closing;
    },
  };
}
