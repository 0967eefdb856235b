/**
 * The audit service's PostgreSQL store (issue 21 item 1): schema `audit` of the database
 * `SVC_DATABASE_URL` (or `SVC_AUDIT_DATABASE_URL`) names, migrations `migrations/audit/pg/`.
 * Every table of the SQLite store: the chain (`audit_log`, `chain_head`), turns, turn events,
 * envelopes, artifacts' metadata, envelope signatures, checkpoints and the egress cursor. Writes go
 * through `AsyncChainWriter` inside the tenant's locked transaction. Blobs stay on the object store,
 * the receipt keys and the egress access log stay files.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import { openPgStore, type PgStore } from '../../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { AsyncChainWriter } from '../../domain/async-chain-writer.js';
import type { AuditBackend } from '../backend.js';
import { PgAuditLogStore } from './audit-log.js';
import { PgArtifactStore, PgCheckpointStore, PgEgressCursor, PgEgressStats, PgEnvelopeSignatureStore } from './tables.js';
import { PgEnvelopeStore, PgTurnEventStore, PgTurnStore } from './turns.js';

/** The table groups of the PostgreSQL audit store. */
export interface PgAuditTables extends Omit<AuditBackend, 'engine' | 'ready' | 'close' | 'log'> {
  readonly log: PgAuditLogStore;
}

/** The audit store on PostgreSQL: every table group, the writer, and the database handle (`db.tx`, `ready`, `close`). */
export type PgAuditStore = PgStore<PgAuditTables> & AuditBackend & { readonly log: PgAuditLogStore; readonly db: PgDb };

function tables(db: PgDb): PgAuditTables {
  const log = new PgAuditLogStore(db);
  return {
    log, turns: new PgTurnStore(db), events: new PgTurnEventStore(db), envelopes: new PgEnvelopeStore(db), artifacts: new PgArtifactStore(db),
    signatures: new PgEnvelopeSignatureStore(db), checkpoints: new PgCheckpointStore(db), egressCursor: new PgEgressCursor(db),
    egressStats: new PgEgressStats(db), writer: (keys) => new AsyncChainWriter(log, keys),
  };
}

/**
 * Connect and migrate the `audit` schema.
 * @throws Error when the server cannot be reached or a migration fails.
 */
export async function openPgAuditStore(settings: PgSettings, migrationsDir: string): Promise<PgAuditStore> {
  return openPgStore({ settings, service: 'audit', migrationsDir }, tables);
}
