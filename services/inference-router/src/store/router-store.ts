/**
 * The router's stores as one facade (issue 21 item 1): the provider registry and the egress
 * allowlist, on SQLite (`<dbDir>/inference-router.sqlite`, each table group with its own
 * connection, as before) or, with `cfg.database` set, the `inference_router` schema of PostgreSQL
 * (`migrations/inference-router/pg/`). Provider API keys stay in the secret store (keychain or the
 * encrypted file under `<dataDir>/secrets/`) on both engines.
 */
import { sqliteAsyncTransactor, type AsyncStoreHandle } from '../../../shared/db/async-store.js';
import { openPgStore } from '../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../shared/db/pg/settings.js';
import type { EgressAllowlistStore } from '../domain/egress.js';
import type { RegistryStore } from '../domain/ports.js';
import { SqliteEgressAllowlistStore } from './egress-allowlist-store.js';
import { PgEgressAllowlistStore } from './pg/egress-allowlist.js';
import { PgRegistryStore } from './pg/registry.js';
import { SqliteRegistryStore } from './registry-store.js';

/** The router's table groups plus the engine-neutral handle; both openers answer it. */
export type RouterStore = Readonly<{ registry: RegistryStore; egress: EgressAllowlistStore }> & AsyncStoreHandle;

/** Open (create, migrate) the SQLite stores under `dbDir`. @throws Error when the database cannot be opened or migrated. */
export function openRouterStore(dbDir: string, migrationsDir: string): RouterStore {
  const registry = new SqliteRegistryStore(dbDir, migrationsDir);
  let egress: SqliteEgressAllowlistStore;
  try { egress = new SqliteEgressAllowlistStore(dbDir, migrationsDir); } catch (err) { registry.close(); throw err; }
  let open = true;
  return Object.freeze({
    registry, egress,
    engine: 'sqlite' as const,
    txAsync: sqliteAsyncTransactor(registry.database),
    ready: (): Promise<boolean> => Promise.resolve(open),
    get isOpen(): boolean { return open; },
    close: (): void => { if (!open) return; open = false; egress.close(); registry.close(); },
  });
}

/** Connect and migrate the `inference_router` schema. @throws Error when the server cannot be reached or a migration fails. */
export function openPgRouterStore(settings: PgSettings, migrationsDir: string): Promise<RouterStore> {
  return openPgStore({ settings, service: 'inference-router', migrationsDir }, (db) => ({ registry: new PgRegistryStore(db), egress: new PgEgressAllowlistStore(db) }));
}
