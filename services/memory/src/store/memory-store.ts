/**
 * The memory service's SQLite store (`<dbDir>/memory.sqlite`, migrations `migrations/memory/`):
 * the only code of the service that opens the database. One file per table group.
 */
import { openStore, type Store } from '../../../shared/db/store.js';
import type { HistoryRepository, MemoryRepository, VectorRepository } from '../domain/ports.js';
import { SqliteHistory } from './history.js';
import { SqliteMemories } from './memories.js';
import { SqliteVectors } from './vectors.js';

/** All tables of the memory store, plus `tx`, `isOpen` and `close`. */
export type MemoryStore = Store<{ memories: MemoryRepository; vectors: VectorRepository; history: HistoryRepository }>;

/** Open (create, migrate) `<dbDir>/memory.sqlite`. @throws Error when it cannot be opened or migrated. */
export function openMemoryStore(dbDir: string, migrationsDir: string): MemoryStore {
  return openStore({ dbDir, store: 'memory', migrationsDir, vec: false }, (db) => ({
    memories: new SqliteMemories(db), vectors: new SqliteVectors(db), history: new SqliteHistory(db),
  }));
}
