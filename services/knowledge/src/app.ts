/**
 * The knowledge service, as the kit builds it (DESIGN.md "Inside a service"): opens the store
 * (PostgreSQL when `cfg.database` is set, issue 21 item 1; else `<dbDir>/knowledge.sqlite`) and
 * the object store (moving blobs of the old layout first), starts the embedder (its own worker
 * thread; with no model, dense retrieval is off and BM25 carries on), wires the domain and the
 * routes. `/readyz` answers ready as soon as the store is open and says whether dense and sparse
 * retrieval are on and, when dense is off, why. Uploads are parsed in worker threads (issue 11
 * item 5). The indexing pump and the resumption of parses a stop cut short are the background work.
 * On close: the pump finishes its batch, running parses stop, turn events are flushed, the
 * embedder and the store close.
 */
import { defineService } from '../../shared/kit/service.js';
import { holdSole, pgLeases } from '../../shared/db/leases.js';
import { openServiceBlobs } from '../../shared/objects/open-object-store.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { createEmbedder } from '../../embedder/src/index.js';
import { NotificationsClient } from '../../agent-runtime/src/client.js';
import { KNOWLEDGE_ERRORS, type KnowledgeConfig, type KnowledgeRuntime } from './contracts.js';
import { AccessProfiles } from './domain/access-profiles.js';
import { AfterCommit } from './domain/after-commit.js';
import { Audiences } from './domain/audiences.js';
import { DocumentNotices } from './domain/document-notices.js';
import { Documents } from './domain/documents.js';
import { Indexer } from './domain/indexing.js';
import { Ingest } from './domain/ingest.js';
import { Jobs } from './domain/jobs.js';
import { EmbeddingPump } from './domain/pump.js';
import { Search } from './domain/search.js';
import { StatusReport } from './domain/status.js';
import { Visibility } from './domain/visibility.js';
import { Wiki } from './domain/wiki.js';
import { WorkerPreparer } from './parsing/worker-preparer.js';
import { accessRoutes } from './routes/access.js';
import { audienceRoutes } from './routes/audiences.js';
import { documentRoutes } from './routes/documents.js';
import { ingestRoutes } from './routes/ingest.js';
import { searchRoutes } from './routes/search.js';
import { wikiRoutes } from './routes/wiki.js';
import { wikiGrpc } from './grpc/wiki.js';
import { openKnowledgeStore, type KnowledgeStoreFacade } from './store/knowledge-store.js';
import { openPgKnowledgeStore } from './store/pg/knowledge-store.js';
import { migrateLegacyObjects } from './store/legacy-objects.js';

/** Largest request body outside the upload routes, bytes. */
const BODY_LIMIT = 64 * 1024 * 1024;

/** The knowledge service (port 8007): documents, hybrid search, wiki and audiences of the tenant. */
export const knowledgeService = defineService<KnowledgeConfig, KnowledgeRuntime>({
  name: 'knowledge',
  errors: KNOWLEDGE_ERRORS,
  bodyLimit: BODY_LIMIT,
  async setup({ cfg, runtime, logger, app, onClose, background, grpc }) {
    const tenantId = cfg.tenantId;
    const pgStore = cfg.database ? await openPgKnowledgeStore(cfg.database, cfg.migrationsDir) : null;
    const store: KnowledgeStoreFacade = pgStore ?? openKnowledgeStore(cfg.dbDir, cfg.migrationsDir);
    onClose(() => store.close());
    // Several instances on one PostgreSQL database (issue 21): knowledge runs as one instance per
    // database (its start-up recovery below and the embedding pump assume they are alone); a second
    // instance refuses to start, naming the holder, once a crashed holder's lease had time to expire.
    if (pgStore) {
      const sole = await holdSole(pgLeases(pgStore.db), 'knowledge-instance', {
        onLose: () => logger.error({ lease: 'knowledge-instance' }, 'the knowledge instance lease was lost (database unreachable past its expiry)'),
        onError: (err) => logger.warn({ err: err.message, lease: 'knowledge-instance' }, 'lease renewal failed'),
      });
      onClose(() => sole.stop());
    }
    await store.jobs.failInterrupted(new Date().toISOString());
    const recreated = await store.vectors.ensure(cfg.embeddingDims);

    // Issue 21 item 4: original uploads in an S3-compatible bucket when SVC_OBJECT_STORE_URL is set.
    const objects = openServiceBlobs(cfg.objectStore, cfg.objectsDir, onClose, (local) => {
      const migrated = migrateLegacyObjects(local);
      if (migrated.moved || migrated.staleTemps) logger.info({ moved: migrated.moved, stale_temps: migrated.staleTemps }, 'original uploads moved to the shared object layout');
      if (migrated.mismatched.length) logger.warn({ files: migrated.mismatched }, 'uploads whose bytes do not match their name were left in the old layout');
    });

    const embedder = runtime.embedder ?? createEmbedder({ modelDirs: cfg.modelDirs, model: cfg.embeddingModel, dims: cfg.embeddingDims });
    if (!runtime.embedder) onClose(() => embedder.close());
    const events = runtime.events === false ? null : new TurnEventClient({
      service: 'knowledge', auditUrl: cfg.serviceUrls.audit, tenantId, principalKeys: cfg.principalKeys,
      onLoss: (n, why) => logger.warn({ n, why }, 'turn events lost'),
    });
    if (events) onClose(async () => { await events.drain(2000); events.close(); });

    const { chunks, audiences, wiki, jobs } = store;
    // The domain's atomic groups; notices wait for the end of the transaction they were raised in.
    const afterCommit = new AfterCommit(store.txAsync);
    const tx = afterCommit.tx;
    // Finished uploads notify their creator through the agent runtime (issue 13 item 1; fails soft).
    const notifier = new NotificationsClient({ baseUrl: cfg.serviceUrls['agent-runtime'], service: 'knowledge', tenantId, principalKeys: cfg.principalKeys, log: logger });
    const notices = new DocumentNotices({ tenantId, sink: (n) => notifier.notify(n), defer: afterCommit.defer });
    const documents = notices.watchDocuments(store.documents);
    const vectors = notices.watchVectors(store.vectors);
    const pump = new EmbeddingPump({ tenantId, chunks, vectors, jobs, embedder, logger });
    const indexer = new Indexer({ chunks, vectors, embedder, settings: cfg, pump, logger });
    // Permission profiles pushed by the agent runtime narrow what a restricted caller reads (issue 13 item 8).
    const access = new AccessProfiles(store.accessProfiles, tenantId);
    const visibility = new Visibility({ tenantId, audiences, documents, scopes: access });
    // Documents are parsed in worker threads, bounded in time, memory and number (issue 11 item 5);
    // closed before the store, so a parse cut short leaves its document for the next start.
    const preparer = new WorkerPreparer({
      prepare: indexer.prepareOptions(), timeoutMs: cfg.parseTimeoutMs, memoryMb: cfg.parseMemoryMb, concurrency: cfg.parseConcurrency, logger,
    });
    onClose(() => preparer.close());
    const ingest = new Ingest({ tenantId, documents, audiences, jobs, objects, indexer, preparer, pump, visibility, settings: cfg, logger, tx });
    const status = new StatusReport({ chunks, vectors, embedder, indexer, pump, settings: cfg });

    background('embedding-pump', () => pump.start(recreated));
    background('interrupted-parses', () => {
      ingest.resumeInterrupted().catch((err: unknown) => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'resuming parses cut short failed'));
    });
    app.health.check(async () => (await store.ready() ? true : `knowledge store ${store.isOpen ? 'unreachable' : 'closed'}`));
    app.health.detail(() => status.readiness());

    await app.register(ingestRoutes, { ingest, jobs: new Jobs({ tenantId, jobs, documents, embedder }), maxUploadBytes: cfg.maxUploadBytes });
    await app.register(documentRoutes, {
      documents: new Documents({ tenantId, visibility, documents, chunks, vectors, audiences, objects, indexer, pump, tx }), ingest,
    });
    await app.register(searchRoutes, { search: new Search({ visibility, chunks, vectors, embedder, indexer, settings: cfg, events }), status });
    const wikiUseCase = new Wiki({ tenantId, wiki, audiences, visibility });
    await app.register(wikiRoutes, { wiki: wikiUseCase });
    grpc(wikiGrpc(wikiUseCase));
    await app.register(audienceRoutes, { audiences: new Audiences({ tenantId, audiences, tx }) });
    await app.register(accessRoutes, { access });
  },
});
