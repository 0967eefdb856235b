/**
 * Builds the audit service's fastify instance without listening (DESIGN.md "Inside a service"):
 * shared server (error handler, principal verification, health), the audit store, the single
 * group-committing writer, turn ingestion and sealing, receipts, artifacts, and the background
 * sealer (started by `start()`, not here, so tests can drive passes by hand).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AuditConfig } from '../../shared/config.js';
import { buildServer } from '../../shared/http/server.js';
import { ArtifactService } from './domain/artifacts.js';
import { ChainWriter } from './domain/chain-writer.js';
import { keyRingFromConfig, type KeyProvider } from './domain/keys.js';
import { ReceiptService } from './domain/receipts.js';
import { Sealer } from './domain/sealer.js';
import { TurnService } from './domain/turns.js';
import { artifactRoutes } from './routes/artifacts.js';
import { auditRoutes } from './routes/audit.js';
import type { AuditContext } from './routes/context.js';
import { receiptRoutes } from './routes/receipts.js';
import { turnRoutes } from './routes/turns.js';
import { AuditStore } from './store/audit-store.js';
import { ObjectStore } from './store/object-store.js';

/** Largest JSON body of ordinary routes, bytes (event batches). */
export const AUDIT_BODY_LIMIT = 16 * 1024 * 1024;

/** Options of `buildAuditApp`. */
export interface BuildAuditAppOptions {
  logger: Logger;
  /** Key ring provider; default the config's keys (validated here). */
  keys?: KeyProvider;
}

/** The built app and its parts. `close()` stops the sealer, commits queued writes, closes the DB. */
export interface AuditApp {
  app: FastifyInstance;
  ctx: AuditContext;
  sealer: Sealer;
  close(): Promise<void>;
}

/**
 * Build the audit app.
 * @throws Error when AUDIT_SIGNING_KEY (or the previous key) is missing, shorter than 32 characters
 *   or a placeholder, or when the store cannot be opened or migrated.
 */
export function buildAuditApp(cfg: AuditConfig, opts: BuildAuditAppOptions): AuditApp {
  const configRing = keyRingFromConfig(cfg);
  const keys: KeyProvider = opts.keys ?? (() => configRing);
  // Validate the injected provider once at start too: a broken provider must fail loudly now.
  keys();
  const store = AuditStore.open(cfg.dbDir, cfg.migrationsDir);
  const writer = new ChainWriter(store, keys);
  const turns = new TurnService(store, writer);
  const receipts = new ReceiptService(store, keys);
  const artifacts = new ArtifactService(store, new ObjectStore(cfg.objectsDir));
  const ctx: AuditContext = { tenantId: cfg.tenantId, store, writer, turns, receipts, artifacts, keys };
  const sealer = new Sealer(turns, {
    intervalSeconds: cfg.sealIntervalSeconds, watermarkSeconds: cfg.sealWatermarkSeconds, batchLimit: cfg.sealBatchLimit,
    onError: (err) => opts.logger.error({ err }, 'seal pass failed'),
  });
  const { app } = buildServer({
    name: 'audit', logger: opts.logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, bodyLimit: AUDIT_BODY_LIMIT,
    ready: () => (store.db.open ? true : 'audit store closed'),
  });
  void app.register(auditRoutes(ctx));
  void app.register(turnRoutes(ctx));
  void app.register(receiptRoutes(ctx));
  void app.register(artifactRoutes(ctx));
  let closing: Promise<void> | null = null;
  return {
    app, ctx, sealer,
    close: () => {
      closing ??= (async () => {
        await sealer.stop();
        writer.close();
        store.close();
      })();
      return closing;
    },
  };
}
