/**
 * The audit service, as the kit builds it (DESIGN.md "Inside a service"; spec "Services": audit,
 * port 8008). Wiring only: resolves the signing keys (refusing to start on a short or placeholder
 * AUDIT_SIGNING_KEY), opens the store (`<dbDir>/audit.sqlite`, or schema `audit` of PostgreSQL when
 * `cfg.database` is set: issue 21 item 1, no `.sqlite` file then) and the shared object store (bringing blobs of
 * the old audit layout under its rules; an S3-compatible bucket instead when `cfg.objectStore` is set, item 4), builds the single group-committing writer and the domain
 * services, registers the route plugins, and runs the stalled-turn sealer in the background.
 * Close order: HTTP drains, the sealer stops, queued writes commit, the store closes.
 */
import type { AuditConfig } from '../../shared/config.js';
import { defineService } from '../../shared/kit/service.js';
import { openServiceBlobs } from '../../shared/objects/open-object-store.js';
import { AUDIT_BODY_LIMIT, AUDIT_ERRORS, type AuditRuntime } from './contracts.js';
import { ArtifactService } from './domain/artifacts.js';
import { AuditLogService } from './domain/audit-log.js';
import { resolveKeyProvider } from './domain/keys.js';
import { ReceiptService } from './domain/receipts.js';
import { Sealer } from './domain/sealer.js';
import { SealPassTracker } from './domain/seal-jobs.js';
import { sealJobRoutes } from './routes/seal-jobs.js';
import { TurnService } from './domain/turns.js';
import { artifactRoutes } from './routes/artifacts.js';
import { auditRoutes } from './routes/audit.js';
import { auditGrpc } from './grpc/audit.js';
import { receiptRoutes } from './routes/receipts.js';
import { turnRoutes } from './routes/turns.js';
import { AuditStore } from './store/audit-store.js';
import { sqliteAuditBackend } from './store/backend.js';
import { openPgAuditStore } from './store/pg/audit-store.js';
import { migrateAuditObjects } from './store/object-migration.js';
import { ReceiptKeyStore } from './store/receipt-keys.js';
import { receiptKeyRoutes } from './routes/receipt-keys.js';
import { receiptCheckpointRoutes } from './routes/receipt-checkpoints.js';
import { CheckpointTimer } from './domain/checkpoints.js';
import { receiptV2 } from './receipt-v2.js';
import { egressStatsRoutes } from './routes/egress-stats.js';
import { EgressShipper } from './domain/egress-shipper.js';
import { accessLogFile } from './store/egress-log-file.js';

/** The audit service (port 8008): the signed audit chain, turn envelopes, receipts and artifacts. */
export const auditService = defineService<AuditConfig, AuditRuntime>({
  name: 'audit',
  errors: AUDIT_ERRORS,
  bodyLimit: AUDIT_BODY_LIMIT,
  async setup({ cfg, runtime, logger, app, onClose, background, grpc }) {
    const keys = resolveKeyProvider(cfg, runtime);
    const store = cfg.database ? await openPgAuditStore(cfg.database, cfg.migrationsDir) : sqliteAuditBackend(AuditStore.open(cfg.dbDir, cfg.migrationsDir));
    onClose(() => store.close());
    // Issue 21 item 4: artifact bodies in an S3-compatible bucket when SVC_OBJECT_STORE_URL is set.
    const blobs = openServiceBlobs(cfg.objectStore, cfg.objectsDir, onClose, () => {
      const migrated = migrateAuditObjects(cfg.objectsDir);
      if (migrated.foldersTightened || migrated.tempsRemoved) logger.info(migrated, 'audit objects brought under the shared object store layout');
    });
    const writer = store.writer(keys);
    onClose(() => writer.close());
    // Issue 22: envelopes are Ed25519-signed at sealing (a decorated envelope port), checkpoints signed.
    const receiptKeys = new ReceiptKeyStore(cfg.dataDir);
    receiptKeys.keys();
    const v2 = receiptV2(store, receiptKeys);
    const turns = new TurnService({ turns: store.turns, events: store.events, envelopes: v2.envelopes }, writer);
    const receipts = new ReceiptService(store, keys, turns, v2);
    const artifacts = new ArtifactService(store, blobs, turns);
    const auditLog = new AuditLogService(cfg.tenantId, store.log, writer, keys);

    const sealPasses = new SealPassTracker();
    const sealer = new Sealer(turns, {
      intervalSeconds: cfg.sealIntervalSeconds, watermarkSeconds: cfg.sealWatermarkSeconds, batchLimit: cfg.sealBatchLimit,
      onError: (err) => logger.error({ err }, 'seal pass failed'),
      tracker: sealPasses,
    });
    background('sealer', () => {
      sealer.start();
      return () => sealer.stop();
    });

    app.health.check(async () => ((await store.ready()) ? true : store.engine === 'sqlite' ? 'audit store closed' : 'audit store unreachable'));
    const tenantId = cfg.tenantId;
    await app.register(auditRoutes, { tenantId, auditLog, turns });
    grpc(auditGrpc({ tenantId, auditLog, turns }));
    await app.register(turnRoutes, { tenantId, turns, receipts });
    await app.register(sealJobRoutes, { tracker: sealPasses });
    await app.register(receiptRoutes, { tenantId, receipts });
    await app.register(artifactRoutes, { tenantId, artifacts });
    // Issue 19 item 3 / issue 22 item 1: the receipt signing keys, generated on first run, published.
    await app.register(receiptKeyRoutes, { keys: () => receiptKeys.keys() });
    await app.register(receiptCheckpointRoutes, { tenantId, checkpoints: v2.checkpoints });
    background('checkpoints', () => {
      const timer = new CheckpointTimer(() => writer.run(tenantId, () => v2.checkpoints.signHeadSteps(tenantId)), cfg.checkpointIntervalSeconds ?? 300,
        (err) => logger.error({ err }, 'checkpoint pass failed'));
      timer.start();
      return () => timer.stop();
    });
    // Issue 19 item 6: the egress shipper tails Squid's access log into audit rows; the stats route.
    await app.register(egressStatsRoutes, { tenantId, stats: store.egressStats });
    const eg = cfg.egress;
    if (eg && eg.policy !== 'off') {
      const shipper = new EgressShipper(accessLogFile(eg.accessLogPath), store.egressCursor, writer, tenantId);
      background('egress-shipper', () => {
        let running = false;
        const timer = setInterval(() => {
          if (running) return;
          running = true;
          shipper.pass().catch((err: unknown) => logger.error({ err }, 'egress shipper pass failed')).finally(() => { running = false; });
        }, 250);
        return () => clearInterval(timer);
      });
    }
  },
});
