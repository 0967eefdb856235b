/**
 * The knowledge service's PostgreSQL store (issue 21 item 1): schema `knowledge` of the database
 * `SVC_DATABASE_URL` (or `SVC_KNOWLEDGE_DATABASE_URL`) names, migrations `migrations/knowledge/pg/`,
 * pgvector for dense vectors and full-text search for keywords. Holds the retrieval table groups
 * (chunks, vectors, document writes); audiences, wiki, jobs, access profiles and the rest of the
 * document store stay on SQLite until their async implementations exist (docs/scale-out.md).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import { openPgStore } from '../../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { PgChunkStore } from './chunks.js';
import { PgDocumentStore } from './documents.js';
import { PgVectorIndex } from './vectors.js';

/** The knowledge store on PostgreSQL. */
export interface PgKnowledgeStore {
  readonly documents: PgDocumentStore;
  readonly chunks: PgChunkStore;
  readonly vectors: PgVectorIndex;
  readonly db: PgDb;
}

/**
 * Connect and migrate the `knowledge` schema (creates the `vector` extension when the role may).
 * @throws Error when the server cannot be reached, pgvector is missing or a migration fails.
 */
export function openPgKnowledgeStore(settings: PgSettings, migrationsDir: string): Promise<PgKnowledgeStore> {
  return openPgStore({ settings, service: 'knowledge', migrationsDir }, (db) => ({
    documents: new PgDocumentStore(db), chunks: new PgChunkStore(db), vectors: new PgVectorIndex(db),
  }));
}
