/**
 * Open a service's PostgreSQL store (issue 21 item 1): the counterpart of `openStore` in
 * services/shared/db/store.ts. Builds the pool for the service's schema, applies
 * `migrations/<service>/pg/`, then builds the table-group stores on the `PgDb`.
 */
import { openPgPool } from './pool.js';
import { PgDb } from './db.js';
import { listPgMigrations, migratePg } from './migrate.js';
import type { PgSettings } from './settings.js';
import type { AsyncStoreHandle } from '../async-store.js';

/** Options of `openPgStore`. */
export interface OpenPgStoreOptions {
  settings: PgSettings;
  /** Migrations folder name under `migrations/` (usually the service name). */
  service: string;
  /** Absolute path of the repository's `migrations/`. */
  migrationsDir: string;
}

/**
 * A PostgreSQL store facade: the table groups `T`, the database (`db.tx`, `db.ready`, `db.close`)
 * and the engine-neutral handle (`txAsync` = `db.tx`), so a domain takes either facade.
 */
export type PgStore<T extends object> = Readonly<T> & AsyncStoreHandle & { readonly db: PgDb };

/**
 * Connect, migrate and build the table groups.
 * @throws Error when the server cannot be reached, a migration fails or `tables` throws (the pool is closed first).
 */
export async function openPgStore<T extends object>(opts: OpenPgStoreOptions, tables: (db: PgDb) => T): Promise<PgStore<T>> {
  const pool = openPgPool(opts.settings);
  const db = new PgDb(pool, opts.settings.schema);
  try {
    await migratePg(pool, opts.settings.schema, listPgMigrations(opts.migrationsDir, opts.service));
    return Object.freeze({
      ...tables(db),
      db,
      engine: 'postgres' as const,
      txAsync: <R>(fn: () => Promise<R>): Promise<R> => db.tx(fn),
      ready: (): Promise<boolean> => db.ready(),
      get isOpen(): boolean { return db.isOpen; },
      close: (): Promise<void> => db.close(),
    });
  } catch (err) {
    await db.close();
    throw err;
  }
}
