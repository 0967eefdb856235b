/**
 * The memory service's SQLite store (`<dbDir>/memory.sqlite`, migrations `migrations/memory/`):
 * the only code of the service that opens the database. One file per table group.
 */
import type { AsyncStoreHandle } from '../../../shared/db/async-store.js';
import { openStore, type Store } from '../../../shared/db/store.js';
import type { HistoryRepository, MemoryRepository, VectorRepository } from '../domain/ports.js';
import { SqliteHistory } from './history.js';
import { SqliteMemories } from './memories.js';
import { SqliteVectors } from './vectors.js';

/**
 * The memory store as the service uses it, whatever the engine (issue 21 item 1): the repositories
 * plus the engine-neutral handle (`txAsync`, `ready`, `close`). `openMemoryStore` (SQLite) and
 * `openPgMemoryStore` (PostgreSQL, store/pg/memory-store.ts) both return one.
 */
export type MemoryStoreFacade = Readonly<{ memories: MemoryRepository; vectors: VectorRepository; history: HistoryRepository }> & AsyncStoreHandle;

/** All tables of the memory store, plus `tx`, `isOpen` and `close`. */
export type MemoryStore = Store<{ memories: MemoryRepository; vectors: VectorRepository; history: HistoryRepository }>;

/** Open (create, migrate) `<dbDir>/memory.sqlite`. @throws Error when it cannot be opened or migrated. */
export function openMemoryStore(dbDir: string, migrationsDir: string): MemoryStore {
  return openStore({ dbDir, store: 'memory', migrationsDir, vec: false }, (db) => ({
    memories: new SqliteMemories(db), vectors: new SqliteVectors(db), history: new SqliteHistory(db),
  }));
}
