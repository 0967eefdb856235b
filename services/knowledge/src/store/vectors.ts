/**
 * `chunk_vectors` (float32, for exact rescoring), the sqlite-vec sign-bit index `chunk_vec_bits`
 * (created at start for EMBEDDING_DIMS, width kept in `meta.embedding_dims`) and the embedding
 * bookkeeping (`chunks.embedded`, `documents.chunks_embedded`): SQLite implementation of `VectorIndex`.
 */
import type Database from 'better-sqlite3';
import type { Db } from '../../../shared/db/open.js';
import { fromBlob, toBlob } from '../../../embedder/src/index.js';
import type { ChunkVector, PendingChunk, VectorIndex } from '../domain/ports.js';

/** SQLite implementation of `VectorIndex`. */
export class SqliteVectorIndex implements VectorIndex {
  private readonly q;
  private vecDims = 0;
  private exact: Database.Statement<[Buffer, number], { chunk_id: number }> | null = null;
  private bits: { insert: Database.Statement; del: Database.Statement; knn: Database.Statement } | null = null;

  constructor(private readonly db: Db) {
    this.q = {
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      clearVectors: db.prepare('DELETE FROM chunk_vectors'),
      resetEmbedded: db.prepare('UPDATE chunks SET embedded = 0'),
      resetDocEmbedded: db.prepare('UPDATE documents SET chunks_embedded = 0'),
      insertVector: db.prepare<[number, Buffer]>('INSERT OR REPLACE INTO chunk_vectors (chunk_id, vec) VALUES (?, ?)'),
      deleteVector: db.prepare<[number]>('DELETE FROM chunk_vectors WHERE chunk_id = ?'),
      markEmbedded: db.prepare<[number]>('UPDATE chunks SET embedded = 1 WHERE id = ? AND embedded = 0'),
      bumpEmbedded: db.prepare<[number, number, string, string]>('UPDATE documents SET chunks_embedded = chunks_embedded + ?, status = CASE WHEN status = \'indexing\' AND chunks_embedded + ? >= chunks_indexed THEN \'indexed\' ELSE status END, updated_at = ? WHERE id = ?'),
      vectorsOf: db.prepare<[string], { chunk_id: number; vec: Buffer }>('SELECT chunk_id, vec FROM chunk_vectors WHERE chunk_id IN (SELECT value FROM json_each(?))'),
      pending: db.prepare<[number], PendingChunk>(`SELECT c.id AS chunk_id, c.document_id, c.heading, c.content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.embedded = 0 AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = d.batch_id AND j.status = 'cancelled') ORDER BY c.id LIMIT ?`),
      countPending: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks WHERE embedded = 0'),
      finishWithoutVectors: db.prepare(`UPDATE documents SET status = 'indexed' WHERE status = 'indexing' AND chunks_indexed > 0 AND chunks_embedded >= chunks_indexed`),
      resetDocChunks: db.prepare<[string]>('UPDATE chunks SET embedded = 0 WHERE document_id = ?'),
      reembedDoc: db.prepare<{ id: string; dense: number }>(`UPDATE documents SET chunks_embedded = 0, status = CASE WHEN @dense = 1 AND status = 'indexed' AND chunks_indexed > 0 THEN 'indexing' ELSE status END WHERE id = @id`),
    };
  }

  ensure(dims: number): boolean {
    const prev = Number(this.q.getMeta.get('embedding_dims')?.value ?? '0');
    let recreated = false;
    this.db.transaction(() => {
      if (prev !== dims) {
        this.db.exec('DROP TABLE IF EXISTS chunk_vec_bits');
        this.q.clearVectors.run();
        this.q.resetEmbedded.run();
        this.q.resetDocEmbedded.run();
        recreated = prev !== 0;
        this.q.setMeta.run('embedding_dims', String(dims));
      }
      this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vec_bits USING vec0 (embedding bit[${dims}])`);
    })();
    this.vecDims = dims;
    this.bits = {
      insert: this.db.prepare('INSERT OR REPLACE INTO chunk_vec_bits (rowid, embedding) VALUES (?, vec_quantize_binary(?))'),
      del: this.db.prepare('DELETE FROM chunk_vec_bits WHERE rowid = ?'),
      knn: this.db.prepare('SELECT rowid AS chunk_id, distance FROM chunk_vec_bits WHERE embedding MATCH vec_quantize_binary(?) AND k = ?'),
    };
    return recreated;
  }

  /** The vector width of the index in use (0 before `ensure`). */
  get dims(): number { return this.vecDims; }

  put(items: ChunkVector[], now: string): void {
    const bits = this.bits;
    if (!bits) throw new Error('vector index not initialised');
    const perDoc = new Map<string, number>();
    this.db.transaction(() => {
      for (const it of items) {
        // Only chunks that still exist and lack a vector: a chunk deleted or embedded meanwhile is skipped.
        if (this.q.markEmbedded.run(it.chunkId).changes === 0) continue;
        const blob = toBlob(it.vector);
        this.q.insertVector.run(it.chunkId, blob);
        // vec0 refuses INSERT OR REPLACE over an existing rowid (a retitled chunk keeps its old bits until now).
        bits.del.run(BigInt(it.chunkId));
        bits.insert.run(BigInt(it.chunkId), blob);
        perDoc.set(it.documentId, (perDoc.get(it.documentId) ?? 0) + 1);
      }
      for (const [doc, n] of perDoc) this.q.bumpEmbedded.run(n, n, now, doc);
    })();
  }

  remove(chunkIds: number[]): void {
    for (const id of chunkIds) {
      this.q.deleteVector.run(id);
      this.bits?.del.run(BigInt(id));
    }
  }

  knn(query: Float32Array, k: number): Array<{ chunk_id: number; distance: number }> {
    if (!this.bits) return [];
    return this.bits.knn.all(toBlob(query), Math.min(4096, Math.max(1, k))) as Array<{ chunk_id: number; distance: number }>;
  }

  vectorsOf(ids: number[]): Map<number, Float32Array> {
    const out = new Map<number, Float32Array>();
    for (const r of this.q.vectorsOf.all(JSON.stringify(ids))) out.set(r.chunk_id, fromBlob(r.vec));
    return out;
  }

  /** Exact top-`k` by cosine over every stored vector (benchmarks' recall baseline). */
  exactNearestForBench(query: Float32Array, k: number): number[] {
    this.exact ??= this.db.prepare<[Buffer, number], { chunk_id: number }>('SELECT chunk_id FROM chunk_vectors ORDER BY vec_distance_cosine(vec, ?) LIMIT ?');
    return this.exact.all(toBlob(query), k).map((r) => r.chunk_id);
  }

  pending(limit: number): PendingChunk[] { return this.q.pending.all(limit); }

  countPending(): number { return this.q.countPending.get()!.n; }

  finishWithoutVectors(): void { this.q.finishWithoutVectors.run(); }

  markForReembedding(documentId: string, dense: boolean): void {
    this.q.resetDocChunks.run(documentId);
    this.q.reembedDoc.run({ id: documentId, dense: dense ? 1 : 0 });
  }
}
