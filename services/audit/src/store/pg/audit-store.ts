/**
 * The audit service's PostgreSQL store (issue 21 item 1): schema `audit` of the database
 * `SVC_DATABASE_URL` (or `SVC_AUDIT_DATABASE_URL`) names, migrations `migrations/audit/pg/`.
 * Today it holds the audit chain (`audit_log`, `chain_head`); turns, turn events, envelopes and
 * artifacts stay on SQLite until their async implementations exist (docs/scale-out.md).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import { openPgStore } from '../../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { PgAuditLogStore } from './audit-log.js';

/** The audit store on PostgreSQL: the chain and the database handle (`db.tx`, `db.ready`, `db.close`). */
export interface PgAuditStore {
  readonly log: PgAuditLogStore;
  readonly db: PgDb;
}

/**
 * Connect and migrate the `audit` schema.
 * @throws Error when the server cannot be reached or a migration fails.
 */
export function openPgAuditStore(settings: PgSettings, migrationsDir: string): Promise<PgAuditStore> {
  return openPgStore({ settings, service: 'audit', migrationsDir }, (db) => ({ log: new PgAuditLogStore(db) }));
}
