/**
 * Builds the knowledge service's fastify instance without listening (DESIGN.md "Inside a service"):
 * shared server, store, object store, embedder, turn events, domain service and routes. `/readyz`
 * answers ready as soon as the store is open (keyword search works without a model) and says
 * whether dense retrieval is on and, when off, why.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildServer } from '../../shared/http/server.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { createEmbedder } from '../../embedder/src/embedder.js';
import type { Embedder } from '../../embedder/src/contracts.js';
import type { KnowledgeConfig } from './contracts.js';
import { KnowledgeService } from './domain/knowledge-service.js';
import { KnowledgeStore } from './store/knowledge-store.js';
import { ObjectStore } from './store/object-store.js';
import { ingestRoutes } from './routes/ingest.js';
import { documentRoutes } from './routes/documents.js';
import { searchRoutes } from './routes/search.js';
import { wikiRoutes } from './routes/wiki.js';
import { audienceRoutes } from './routes/audiences.js';

/** Options of `buildKnowledgeApp`. */
export interface BuildKnowledgeAppOptions {
  logger: Logger;
  /** Injected embedder (tests, benchmarks); default: the worker-thread embedder over cfg.modelDirs. */
  embedder?: Embedder;
  /** Emit turn events (default true). */
  events?: boolean;
}

/** The built app and its parts. */
export interface KnowledgeApp {
  app: FastifyInstance;
  svc: KnowledgeService;
  store: KnowledgeStore;
  embedder: Embedder;
  close(): Promise<void>;
}

/** Build the knowledge app. @throws Error when the store cannot be opened or migrated. */
export function buildKnowledgeApp(cfg: KnowledgeConfig, opts: BuildKnowledgeAppOptions): KnowledgeApp {
  const store = KnowledgeStore.open(cfg.dbDir, cfg.migrationsDir);
  const recreated = store.ensureVectorIndex(cfg.embeddingDims);
  const embedder = opts.embedder ?? createEmbedder({ modelDirs: cfg.modelDirs, model: cfg.embeddingModel, dims: cfg.embeddingDims });
  const events = opts.events === false ? null : new TurnEventClient({
    service: 'knowledge', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
    onLoss: (n, why) => opts.logger.warn({ n, why }, 'turn events lost'),
  });
  const svc = new KnowledgeService({ tenantId: cfg.tenantId, store, objects: new ObjectStore(cfg.objectsDir), embedder, settings: cfg, events, logger: opts.logger });
  svc.start(recreated);
  const { app } = buildServer({
    name: 'knowledge', logger: opts.logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, bodyLimit: 64 * 1024 * 1024,
    ready: () => (store.db.open ? true : 'knowledge store closed'),
  });
  // /readyz says plainly whether dense retrieval is on (the shared route only knows ready / not ready).
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.url !== '/readyz' || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const st = svc.status();
    return JSON.stringify({ ...JSON.parse(payload) as object, dense_retrieval: st.dense_enabled ? 'on' : 'off', dense_reason: st.dense_reason, sparse_retrieval: st.sparse_enabled ? 'on' : 'off', embedder: st.embedder.state });
  });
  const ctx = { cfg, svc };
  void app.register(ingestRoutes(ctx));
  void app.register(documentRoutes(ctx));
  void app.register(searchRoutes(ctx));
  void app.register(wikiRoutes(ctx));
  void app.register(audienceRoutes(ctx));
  let closing: Promise<void> | null = null;
  return {
    app, svc, store, embedder,
    close: () => {
      closing ??= (async () => {
        await svc.close();
        if (events) { await events.drain(2000); events.close(); }
        if (!opts.embedder) await embedder.close();
        store.close();
      })();
      return closing;
    },
  };
}
