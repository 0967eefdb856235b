/**
 * What the knowledge domain needs from persistence and the outside world (DESIGN.md "Inside a
 * service"). `store/` implements the stores over SQLite (one file per table group) and `store/pg/`
 * over PostgreSQL (FTS5 as `tsvector`, sqlite-vec as pgvector; issue 21 item 1): no database or
 * statement types cross them. Store methods answer `Awaitable<T>`: now on SQLite, later on PostgreSQL.
 *
 * Visibility (spec "Knowledge" visibility table) of documents and chunks is applied by the stores
 * on every read path that takes a `Viewer`, so it can run inside the database's query.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { KnowledgeProfile, KnowledgeScope } from '../../../shared/identity/access-profiles.js';
import type { DocumentStatus, VisibilityMode } from '../contracts.js';
import type { DocFormat } from './parsers.js';
import type { PreparedDocument } from './prepare.js';

/**
 * Run `fn` in one transaction of the store's database, either engine (issue 21 item 1): inside it
 * await only store calls (services/shared/db/async-store.ts). The domain's atomic groups use it.
 */
export type { AsyncTransactor } from '../../../shared/db/async-store.js';

/** Who is reading: resolved once per request. */
export interface Viewer {
  tenantId: string;
  userId: string;
  /** admin, tenant_admin or platform_admin: sees everything of the tenant. */
  admin: boolean;
  /** Audience tags the viewer belongs to (memberships plus principal groups). */
  audiences: string[];
  /**
   * What the viewer's permission profiles open (issue 13 item 8): beyond their own items, only items
   * carrying one of `scope.tags` or shared with one of `scope.audiences`. Absent or null: not narrowed.
   */
  scope?: KnowledgeScope | null;
  /**
   * A search's own narrowing (issue 17 item 1; contracts `SearchFilter`): only documents with one of
   * `tags`, shared with one of `audiences`, or among `documentIds`, on top of everything above (admins
   * included). Absent, null or all lists empty: not narrowed.
   */
  filter?: { tags: string[]; audiences: string[]; documentIds: string[] } | null;
}

/** A new document. */
export interface NewDocument {
  /** ULID, also the knowledge item id. */
  id: string;
  tenant_id: string;
  title: string;
  source_type: 'file' | 'text' | 'batch';
  filename: string | null;
  mime_type: string | null;
  bytes: number | null;
  /** sha256 of the original upload in the object store (files only). */
  object_sha256: string | null;
  owner_user_id: string;
  creator_user_id: string;
  visibility_mode: VisibilityMode;
  tags: string[];
  metadata: Record<string, unknown>;
  audience_tags: string[];
  user_grants: string[];
  batch_id: string | null;
  /** RFC 3339 UTC: created_at and updated_at. */
  now: string;
}

/** A document: the new-document fields plus indexing state. */
export interface DocumentRow extends Omit<NewDocument, 'now'> {
  status: DocumentStatus;
  chunks_indexed: number;
  chunks_embedded: number;
  last_error: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Keyset position in the document list (newest first). */
export interface DocumentPosition { created_at: string; id: string }

/** Filters and page of the document list. */
export interface DocumentListQuery {
  /** Rows to return (callers ask one more than the page to know whether more follow). */
  limit: number;
  /** Rows strictly after this position, or from the newest. */
  cursor: DocumentPosition | null;
  archived: 'exclude' | 'include' | 'only';
  status?: string;
  /** Substring of the title (case-insensitive for ASCII). */
  q?: string;
}

/** Indexing outcome of a document. `content` (the extracted text) is kept when null. */
export interface IndexState {
  status: DocumentStatus;
  chunks: number;
  embedded: number;
  error: string | null;
  content: string | null;
}

/** Governance fields of a document, as a change sets them. */
export interface GovernanceChange {
  visibility: VisibilityMode;
  owner: string;
  audiences: string[];
  grants: string[];
  title: string;
}

/** Documents of a batch, and how many chunks have vectors. */
export interface BatchProgress { documents: number; indexed: number; failed: number; chunks: number; embedded: number }

/** Documents with their governance rows (audiences, grants). */
export interface DocumentStore {
  insert(d: NewDocument): Awaitable<void>;
  /** The document of `tenantId`, visible or not. */
  get(tenantId: string, id: string): Awaitable<DocumentRow | null>;
  /** The document when `viewer` may read it, else null (absent and invisible look the same). */
  getVisible(viewer: Viewer, id: string): Awaitable<DocumentRow | null>;
  /** Documents visible to `viewer`, newest first (created_at, id), after `q.cursor`. */
  list(viewer: Viewer, q: DocumentListQuery): Awaitable<DocumentRow[]>;
  /** The extracted text, or null. */
  contentOf(id: string): Awaitable<string | null>;
  setIndexed(id: string, state: IndexState, now: string): Awaitable<void>;
  setTitle(id: string, title: string): Awaitable<void>;
  setFailed(id: string, error: string, now: string): Awaitable<void>;
  setArchived(id: string, at: string | null, now: string): Awaitable<void>;
  /** Replace visibility, audiences, grants, owner and title. */
  setGovernance(id: string, g: GovernanceChange, now: string): Awaitable<void>;
  /** Remove the document row and its governance rows (chunks are removed by `ChunkStore.removeAll`). */
  delete(id: string): Awaitable<void>;
  batchProgress(batchId: string): Awaitable<BatchProgress>;
  /**
   * File and text documents whose parse never finished (`indexing` with no chunks: a stop cut
   * their parse short), oldest first (issue 11 item 5: parsing runs in the background).
   */
  awaitingParse(tenantId: string): Awaitable<DocumentRow[]>;
}

/** A chunk to index: its text and its analysed title and body terms for keyword search. */
export interface NewChunk { chunk_index: number; heading: string | null; content: string; titleTerms: string; bodyTerms: string }

/** A chunk of a document. */
export interface ChunkRow { id: number; chunk_index: number; heading: string | null; content: string }

/** A chunk joined with its document's display fields. */
export interface ChunkHit { chunk_id: number; document_id: string; chunk_index: number; heading: string | null; content: string; title: string }

/** A keyword match: `score` is BM25 as the engine reports it (lower is better). */
export interface SparseMatch { chunk_id: number; document_id: string; score: number }

/** New analysed terms of a chunk (after a title change). */
export interface ChunkTerms { chunkId: number; titleTerms: string; bodyTerms: string }

/** Chunks and their keyword index (BM25 over analysed title and body terms). */
export interface ChunkStore {
  /** Ids of a document's chunks. */
  idsOf(documentId: string): Awaitable<number[]>;
  /** Replace a document's chunks and their keyword rows. @returns the new chunk ids, in order. */
  replace(documentId: string, chunks: NewChunk[]): Awaitable<number[]>;
  /** Remove a document's chunks and their keyword rows. */
  removeAll(documentId: string): Awaitable<void>;
  /** A document's chunks by index. */
  list(documentId: string): Awaitable<ChunkRow[]>;
  count(): Awaitable<number>;
  /** Rewrite the keyword rows of chunks (a new document title). */
  retitle(terms: ChunkTerms[]): Awaitable<void>;
  /**
   * Best keyword matches among visible, unarchived chunks, best first.
   * @param match an FTS query over analysed terms; @param titleWeight weight of the title column.
   */
  sparse(viewer: Viewer, match: string, limit: number, titleWeight: number): Awaitable<SparseMatch[]>;
  /** The subset of `ids` the viewer may read (unarchived), with their document ids. */
  visibleChunkIds(viewer: Viewer, ids: number[]): Awaitable<Map<number, string>>;
  /** Chunks with their document titles, by id. */
  hits(ids: number[]): Awaitable<Map<number, ChunkHit>>;
}

/** A chunk that lacks a vector, with what its embedding text is made of. */
export interface PendingChunk { chunk_id: number; document_id: string; heading: string | null; content: string; title: string }

/** A vector of a chunk (L2-normalised). */
export interface ChunkVector { chunkId: number; documentId: string; vector: Float32Array }

/**
 * Chunk vectors: float vectors for exact rescoring and a sign-bit index for candidate search, plus
 * the embedding bookkeeping of chunks (has a vector) and documents (how many chunks have one).
 */
export interface VectorIndex {
  /**
   * Make sure the index exists for `dims`. When the stored width differs, the index and stored
   * vectors are dropped and every chunk waits for a new vector.
   * @returns true when an existing index of another width was recreated.
   */
  ensure(dims: number): Awaitable<boolean>;
  /** Store vectors of chunks that still exist and lack one; bumps their documents' counts (`indexed` when complete). */
  put(items: ChunkVector[], now: string): Awaitable<void>;
  /** Remove the vectors of chunks. */
  remove(chunkIds: number[]): Awaitable<void>;
  /** Nearest chunks by Hamming distance over sign bits (candidates for rescoring). */
  knn(query: Float32Array, k: number): Awaitable<Array<{ chunk_id: number; distance: number }>>;
  /** Float vectors of chunks. */
  vectorsOf(ids: number[]): Awaitable<Map<number, Float32Array>>;
  /** Chunks still lacking a vector, oldest first. */
  pending(limit: number): Awaitable<PendingChunk[]>;
  countPending(): Awaitable<number>;
  /** Documents that wait for vectors no model will make: mark them indexed. */
  finishWithoutVectors(): Awaitable<void>;
  /** A document's chunks wait for new vectors (its count restarts; `indexing` again when `dense`). */
  markForReembedding(documentId: string, dense: boolean): Awaitable<void>;
}

/** An audience row with its member count. */
export interface AudienceRow { tag: string; description: string | null; created_at: string; updated_at: string; member_count: number }

/** A permission profile as the agent runtime pushed it (roles, groups and the knowledge it opens). */
export interface AccessProfileRow extends KnowledgeProfile { id: string; roles: string[]; groups: string[] }

/** The tenant's permission profiles as far as knowledge is concerned (issue 13 item 8). */
export interface AccessProfileStore {
  list(tenantId: string): Awaitable<AccessProfileRow[]>;
  /** Replace the tenant's whole list (one transaction) and note when. */
  replace(tenantId: string, rows: readonly AccessProfileRow[], at: string): Awaitable<void>;
}

/** Audiences (tenant-local groups) and their members. */
export interface AudienceStore {
  /** Audiences of a tenant by tag. */
  list(tenantId: string): Awaitable<AudienceRow[]>;
  get(tenantId: string, tag: string): Awaitable<Omit<AudienceRow, 'member_count'> | null>;
  /** Create, or update the description (null keeps it). */
  upsert(tenantId: string, tag: string, description: string | null, now: string): Awaitable<void>;
  /** Create the audiences that do not exist yet. */
  ensure(tenantId: string, tags: string[], now: string): Awaitable<void>;
  /** Replace the members of an audience. */
  setMembers(tenantId: string, tag: string, userIds: string[]): Awaitable<void>;
  /** Members, sorted. */
  membersOf(tenantId: string, tag: string): Awaitable<string[]>;
  /** Audiences a user is a member of. */
  ofUser(tenantId: string, userId: string): Awaitable<string[]>;
}

/** A wiki page. */
export interface WikiRow {
  tenant_id: string; topic: string; title: string; summary: string; tags: string[]; content: string;
  owner_user_id: string; visibility_mode: VisibilityMode; audience_tags: string[]; user_grants: string[];
  created_by: string; updated_by: string; created_at: string; updated_at: string;
}

/** Wiki pages by topic. */
export interface WikiStore {
  get(tenantId: string, topic: string): Awaitable<WikiRow | null>;
  /** Pages by topic. */
  list(tenantId: string): Awaitable<WikiRow[]>;
  /** Create, or replace the content and governance fields (owner and creation fields stay). */
  upsert(page: WikiRow): Awaitable<void>;
  /** @returns true when a page was removed. */
  delete(tenantId: string, topic: string): Awaitable<boolean>;
}

/** A long job (progress of batch ingests and re-embedding). */
export interface JobRow {
  id: string; tenant_id: string; kind: string; status: string; owner_user_id: string;
  total: number; done: number; error: string | null; created_at: string; updated_at: string;
}

/** Jobs. */
export interface JobStore {
  /** A running job. */
  create(id: string, tenantId: string, kind: string, owner: string, total: number, now: string): Awaitable<void>;
  progress(id: string, done: number, total: number, status: string, error: string | null, now: string): Awaitable<void>;
  get(tenantId: string, id: string): Awaitable<JobRow | null>;
  /** The newest `limit` jobs of the tenant, of one owner when `owner` is set. */
  list(tenantId: string, owner: string | null, limit: number): Awaitable<JobRow[]>;
  /** Mark jobs still running as failed (a restart interrupted them). */
  failInterrupted(now: string): Awaitable<void>;
  /**
   * Cancel running batch job `id` (issue 19 item 5): the job becomes `cancelled`, its documents
   * still waiting for vectors become `indexed` (keyword search; the vectors made so far stay), and
   * the pump skips the batch's remaining chunks. @returns what the batch kept, or null when no running job `id`.
   */
  cancelBatch(tenantId: string, id: string, now: string): Awaitable<{ documents: number; chunks: number; embedded: number } | null>;
}

/**
 * Original uploads, content-addressed: the local folder (services/shared/objects/object-store.ts)
 * or an S3-compatible bucket (`SVC_OBJECT_STORE_URL`, issue 21 item 4), hence `Awaitable`.
 */
export interface BlobStore {
  /** Store bytes. @returns their sha256 and size in bytes. */
  put(bytes: Uint8Array): Awaitable<{ sha256: string; size: number }>;
  /** The bytes, or null when absent. */
  get(sha256: string): Awaitable<Buffer | null>;
}

/** What to prepare for the index: a stored file of a format (read when its turn comes), or a text. */
export type PrepareJob =
  | { kind: 'file'; format: DocFormat; load: () => Awaitable<Buffer | null> }
  | { kind: 'text'; text: string };

/**
 * Runs `prepareDocument` / `prepareText` (domain/prepare.ts) off the service's event loop, a few
 * at a time, each bounded in time and memory (issue 11 item 5 "Document bombs"); implemented by
 * parsing/worker-preparer.ts with worker threads.
 */
export interface DocumentPreparer {
  /**
   * Prepare `job`. `text` is the extracted text (for a text job, the text itself).
   * @throws DocumentLimitError (a limit, the time or the memory budget refused it), ParseError
   *   (unreadable), PreparerClosedError (the service stopped first: the document waits for a restart).
   */
  prepare(job: PrepareJob): Promise<PreparedDocument>;
}

/** Turn-event sink (the TurnEventClient in production). */
export interface EventSink {
  emit(turnId: string, principalId: string, type: 'rag_chunks_retrieved', payload: unknown): void;
  /** Wait until emitted events are delivered, or `timeoutMs`. */
  deliver(timeoutMs?: number): Promise<boolean>;
}
