/**
 * The knowledge service's SQLite store (`<dbDir>/knowledge.sqlite`, migrations `migrations/knowledge/`,
 * sqlite-vec loaded): the only code of the service that opens the database. One store per table
 * group (documents, chunks, vectors, audiences, wiki, jobs, access profiles), each implementing its interface of
 * `domain/ports.ts`, plus a transaction helper.
 */
import type { AsyncStoreHandle } from '../../../shared/db/async-store.js';
import { openStore, type Store } from '../../../shared/db/store.js';
import type {
  AccessProfileStore, AudienceStore, ChunkStore, DocumentStore, JobStore, VectorIndex, WikiStore,
} from '../domain/ports.js';
import { SqliteAccessProfileStore } from './access-profiles.js';
import { SqliteAudienceStore } from './audiences.js';
import { SqliteChunkStore } from './chunks.js';
import { SqliteDocumentStore } from './documents.js';
import { SqliteJobStore } from './jobs.js';
import { SqliteVectorIndex } from './vectors.js';
import { SqliteWikiStore } from './wiki.js';

/**
 * The knowledge store as the service uses it, whatever the engine (issue 21 item 1): the table
 * groups as their `domain/ports.ts` interfaces plus the engine-neutral handle (`txAsync`, `ready`,
 * `close`). `openKnowledgeStore` (SQLite) and `openPgKnowledgeStore` (PostgreSQL) both return one.
 */
export type KnowledgeStoreFacade = Readonly<{
  documents: DocumentStore; chunks: ChunkStore; vectors: VectorIndex;
  audiences: AudienceStore; wiki: WikiStore; jobs: JobStore; accessProfiles: AccessProfileStore;
}> & AsyncStoreHandle;

/** All table groups of the knowledge store, plus `tx`, `isOpen` and `close`. */
export type KnowledgeStore = Store<{
  documents: SqliteDocumentStore; chunks: SqliteChunkStore; vectors: SqliteVectorIndex;
  audiences: SqliteAudienceStore; wiki: SqliteWikiStore; jobs: SqliteJobStore; accessProfiles: SqliteAccessProfileStore;
}>;

/**
 * Open (create, migrate) `<dbDir>/knowledge.sqlite`.
 * @throws Error when the database cannot be opened or migrated.
 */
export function openKnowledgeStore(dbDir: string, migrationsDir: string): KnowledgeStore {
  return openStore({ dbDir, store: 'knowledge', migrationsDir }, (db) => ({
    documents: new SqliteDocumentStore(db), chunks: new SqliteChunkStore(db), vectors: new SqliteVectorIndex(db),
    audiences: new SqliteAudienceStore(db), wiki: new SqliteWikiStore(db), jobs: new SqliteJobStore(db),
    accessProfiles: new SqliteAccessProfileStore(db),
  }));
}
