/**
 * The guardrail's store: SQLite `<dbDir>/guardrail.sqlite` (migrations `migrations/guardrail/`) or,
 * with `cfg.database` set, the `guardrail` schema of PostgreSQL (`migrations/guardrail/pg/`, issue 21
 * item 1). The only code of the service that opens a database. Policy overrides per tenant and
 * agent, and per-turn de-identification mappings with values encrypted at rest under the key in
 * `<dbDir>/guardrail-deid.key` (a file on both engines; on a server `dbDir` must be shared by the
 * instances). One file per table group.
 */
import type { AsyncStoreHandle } from '../../../shared/db/async-store.js';
import { openPgStore } from '../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../shared/db/pg/settings.js';
import { openStore } from '../../../shared/db/store.js';
import type { DeidMappingStore, PolicyStore } from '../domain/ports.js';
import { SqliteDeidEntries } from './deid-entries.js';
import { loadDeidKey } from './deid-key-file.js';
import { SqlitePolicies } from './policies.js';
import { PgDeidEntries } from './pg/deid-entries.js';
import { PgPolicies } from './pg/policies.js';

/** All tables of the guardrail store plus the engine-neutral handle (`txAsync`, `ready`, `isOpen`, `close`); both openers answer it. */
export type GuardStore = Readonly<{ policies: PolicyStore; mappings: DeidMappingStore }> & AsyncStoreHandle;

/** Open (creating and migrating) `<dbDir>/guardrail.sqlite`. @throws Error when it cannot be opened or the key file is unusable. */
export function openGuardStore(dbDir: string, migrationsDir: string): GuardStore {
  return openStore({ dbDir, store: 'guardrail', migrationsDir, vec: false }, (db) => ({
    policies: new SqlitePolicies(db), mappings: new SqliteDeidEntries(db, loadDeidKey(dbDir)),
  }));
}

/**
 * Connect and migrate the `guardrail` schema; the de-identification key stays the file in `dbDir`.
 * @throws Error when the server cannot be reached, a migration fails or the key file is unusable.
 */
export async function openPgGuardStore(settings: PgSettings, migrationsDir: string, dbDir: string): Promise<GuardStore> {
  const key = loadDeidKey(dbDir);
  return openPgStore({ settings, service: 'guardrail', migrationsDir }, (db) => ({ policies: new PgPolicies(db), mappings: new PgDeidEntries(db, key) }));
}
