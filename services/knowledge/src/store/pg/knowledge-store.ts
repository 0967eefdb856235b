/**
 * The knowledge service's PostgreSQL store (issue 21 item 1): schema `knowledge` of the database
 * `SVC_DATABASE_URL` (or `SVC_KNOWLEDGE_DATABASE_URL`) names, migrations `migrations/knowledge/pg/`,
 * pgvector for dense vectors and full-text search for keywords. Every table group of the SQLite
 * store (documents, chunks, vectors, audiences, wiki, jobs, access profiles) with the same answers;
 * original uploads stay in the object store.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import { openPgStore, type PgStore } from '../../../../shared/db/pg/store.js';
import type { PgSettings } from '../../../../shared/db/pg/settings.js';
import { PgChunkStore } from './chunks.js';
import { PgDocumentStore } from './documents.js';
import { PgAccessProfileStore, PgAudienceStore, PgJobStore, PgWikiStore } from './governance.js';
import { PgVectorIndex } from './vectors.js';

/** The table groups of the knowledge store on PostgreSQL. */
export interface PgKnowledgeTables {
  readonly documents: PgDocumentStore;
  readonly chunks: PgChunkStore;
  readonly vectors: PgVectorIndex;
  readonly audiences: PgAudienceStore;
  readonly wiki: PgWikiStore;
  readonly jobs: PgJobStore;
  readonly accessProfiles: PgAccessProfileStore;
}

/** The knowledge store on PostgreSQL: the table groups, `db` and the engine-neutral handle (a `KnowledgeStoreFacade`). */
export type PgKnowledgeStore = PgStore<PgKnowledgeTables> & { readonly db: PgDb };

/**
 * Connect and migrate the `knowledge` schema (creates the `vector` extension when the role may).
 * @throws Error when the server cannot be reached, pgvector is missing or a migration fails.
 */
export function openPgKnowledgeStore(settings: PgSettings, migrationsDir: string): Promise<PgKnowledgeStore> {
  return openPgStore({ settings, service: 'knowledge', migrationsDir }, (db): PgKnowledgeTables => ({
    documents: new PgDocumentStore(db), chunks: new PgChunkStore(db), vectors: new PgVectorIndex(db),
    audiences: new PgAudienceStore(db), wiki: new PgWikiStore(db), jobs: new PgJobStore(db), accessProfiles: new PgAccessProfileStore(db),
  }));
}
