/**
 * The memory service's PostgreSQL store (issue 21 item 1): schema `memory` of the database
 * `SVC_DATABASE_URL` (or `SVC_MEMORY_DATABASE_URL`) names, migrations `migrations/memory/pg/`:
 * memories with full-text BM25, their vectors (pgvector) and history, with the same answers as the
 * SQLite store.
 */
import { openPgStore, type PgStore } from '../../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { PgHistory } from './history.js';
import { PgMemories } from './memories.js';
import { PgVectors } from './vectors.js';

/** The table groups of the memory store on PostgreSQL. */
export interface PgMemoryTables { memories: PgMemories; vectors: PgVectors; history: PgHistory }

/** The memory store on PostgreSQL (a `MemoryStoreFacade`, plus `db`). */
export type PgMemoryStore = PgStore<PgMemoryTables>;

/**
 * Connect and migrate the `memory` schema (creates the `vector` extension when the role may).
 * @throws Error when the server cannot be reached, pgvector is missing or a migration fails.
 */
export function openPgMemoryStore(settings: PgSettings, migrationsDir: string): Promise<PgMemoryStore> {
  return openPgStore({ settings, service: 'memory', migrationsDir }, (db): PgMemoryTables => ({
    memories: new PgMemories(db), vectors: new PgVectors(db), history: new PgHistory(db),
  }));
}
