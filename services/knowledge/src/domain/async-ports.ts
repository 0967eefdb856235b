/**
 * Asynchronous ports of knowledge retrieval (issue 21 item 1), beside the synchronous ones of
 * ports.ts, for stores that answer over the network (PostgreSQL with pgvector and full-text search,
 * services/knowledge/src/store/pg/). Search (search.ts) reads through `SearchChunkReads` and
 * `SearchVectorReads`, which the SQLite stores satisfy as they are (a sync return is a valid
 * `Awaitable`), so one search, one fusion and one rescoring serve both engines.
 *
 * The other ports of ports.ts answer `Awaitable<T>` too, so the whole domain runs on either store
 * and `start(cfg)` picks PostgreSQL when `cfg.database` is set (issue 21 item 1).
 */
import type { ChunkHit, ChunkRow, ChunkTerms, ChunkVector, NewChunk, NewDocument, DocumentRow, PendingChunk, SparseMatch, Viewer } from './ports.js';

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/** What search reads of the chunks (see `ChunkStore`). */
export interface SearchChunkReads {
  /** Best keyword matches among visible, unarchived chunks, best first; `score` lower is better. */
  sparse(viewer: Viewer, match: string, limit: number, titleWeight: number): Awaitable<SparseMatch[]>;
  /** The subset of `ids` the viewer may read (unarchived), with their document ids. */
  visibleChunkIds(viewer: Viewer, ids: number[]): Awaitable<Map<number, string>>;
  /** Chunks with their document titles, by id. */
  hits(ids: number[]): Awaitable<Map<number, ChunkHit>>;
}

/** What search reads of the vectors (see `VectorIndex`). */
export interface SearchVectorReads {
  /** Approximate nearest chunks (candidates for exact rescoring); `distance` lower is nearer. */
  knn(query: Float32Array, k: number): Awaitable<Array<{ chunk_id: number; distance: number }>>;
  /** Float vectors of chunks (exact rescoring). */
  vectorsOf(ids: number[]): Awaitable<Map<number, Float32Array>>;
}

/** Chunks and their keyword index, asynchronous (same meaning as `ChunkStore`). */
export interface AsyncChunkStore extends SearchChunkReads {
  idsOf(documentId: string): Promise<number[]>;
  replace(documentId: string, chunks: NewChunk[]): Promise<number[]>;
  removeAll(documentId: string): Promise<void>;
  list(documentId: string): Promise<ChunkRow[]>;
  count(): Promise<number>;
  retitle(terms: ChunkTerms[]): Promise<void>;
  sparse(viewer: Viewer, match: string, limit: number, titleWeight: number): Promise<SparseMatch[]>;
  visibleChunkIds(viewer: Viewer, ids: number[]): Promise<Map<number, string>>;
  hits(ids: number[]): Promise<Map<number, ChunkHit>>;
}

/** Chunk vectors and embedding bookkeeping, asynchronous (same meaning as `VectorIndex`). */
export interface AsyncVectorIndex extends SearchVectorReads {
  ensure(dims: number): Promise<boolean>;
  put(items: ChunkVector[], now: string): Promise<void>;
  remove(chunkIds: number[]): Promise<void>;
  knn(query: Float32Array, k: number): Promise<Array<{ chunk_id: number; distance: number }>>;
  vectorsOf(ids: number[]): Promise<Map<number, Float32Array>>;
  pending(limit: number): Promise<PendingChunk[]>;
  countPending(): Promise<number>;
  finishWithoutVectors(): Promise<void>;
  markForReembedding(documentId: string, dense: boolean): Promise<void>;
}

/** The part of `DocumentStore` implemented on PostgreSQL so far (documents with their governance rows). */
export interface AsyncDocumentWrites {
  insert(d: NewDocument): Promise<void>;
  get(tenantId: string, id: string): Promise<DocumentRow | null>;
  setArchived(id: string, at: string | null, now: string): Promise<void>;
  delete(id: string): Promise<void>;
}
