/**
 * The guardrail's SQLite store (`<dbDir>/guardrail.sqlite`, migrations `migrations/guardrail/`): the
 * only code of the service that opens the database. Policy overrides per tenant and agent, and
 * per-turn de-identification mappings with values encrypted at rest under the key in
 * `<dbDir>/guardrail-deid.key`. One file per table group.
 */
import { openStore, type Store } from '../../../shared/db/store.js';
import type { DeidMappingStore, PolicyStore } from '../domain/ports.js';
import { SqliteDeidEntries } from './deid-entries.js';
import { loadDeidKey } from './deid-key-file.js';
import { SqlitePolicies } from './policies.js';

/** All tables of the guardrail store, plus `tx`, `isOpen` and `close`. */
export type GuardStore = Store<{ policies: PolicyStore; mappings: DeidMappingStore }>;

/** Open (creating and migrating) `<dbDir>/guardrail.sqlite`. @throws Error when it cannot be opened or the key file is unusable. */
export function openGuardStore(dbDir: string, migrationsDir: string): GuardStore {
  return openStore({ dbDir, store: 'guardrail', migrationsDir, vec: false }, (db) => ({
    policies: new SqlitePolicies(db), mappings: new SqliteDeidEntries(db, loadDeidKey(dbDir)),
  }));
}
