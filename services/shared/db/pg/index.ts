/**
 * The PostgreSQL kit of the stores (issue 21 item 1): settings and schema names, the pool, the
 * migration runner for `migrations/<service>/pg/`, `PgDb` (queries, async transactions,
 * readiness) and `openPgStore`.
 */
export { schemaOf, pgSettingsFor, redactUrl, type DatabaseUrls, type PgSettings } from './settings.js';
export { openPgPool, pgTypes } from './pool.js';
export { PgDb, type PgRow, type PgTransactor, type PgTxOptions } from './db.js';
export { listPgMigrations, migratePg } from './migrate.js';
export { openPgStore, type OpenPgStoreOptions, type PgStore } from './store.js';
