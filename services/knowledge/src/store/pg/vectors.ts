/**
 * Chunk vectors on PostgreSQL with pgvector (issue 21 item 1): async implementation of the vector
 * index. `chunk_vectors.embedding` keeps the float32 vector (exact rescoring reads it back, as
 * `chunk_vectors` does on SQLite); candidate search is an HNSW index over its `halfvec(dims)` cast
 * with inner-product ops (vectors are L2-normalised, so inner product orders as cosine), created for
 * the configured width at start like the vec0 sign-bit table on SQLite. Search asks for k candidates
 * with `hnsw.ef_search` >= k and rescores them exactly (domain/search.ts).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncVectorIndex } from '../../domain/async-ports.js';
import type { ChunkVector, PendingChunk } from '../../domain/ports.js';

/** HNSW build parameters (pgvector's defaults). */
export const HNSW = { m: 16, efConstruction: 64 } as const;
/** Advisory-lock key of `ensure` ('kvec' in ASCII): processes starting at once create the index once. */
const ENSURE_LOCK = 0x6b766563;

/** pgvector's text form of a vector (float32 values print exactly). */
export function vectorText(v: Float32Array): string {
  return `[${Array.prototype.join.call(v, ',')}]`;
}

/** Decode `vector_send()` output: int16 dims, int16 unused, then big-endian float32s. */
export function vectorFromSend(b: Buffer): Float32Array {
  const dims = b.readUInt16BE(0);
  if (b.length < 4 + 4 * dims) throw new Error(`vector_send output of ${b.length} bytes is short for ${dims} dimensions`);
  const out = new Float32Array(dims);
  const bytes = new Uint8Array(out.buffer);
  bytes.set(b.subarray(4, 4 + 4 * dims));
  // Network order to this machine's (little-endian on every platform Node ships for).
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) Buffer.from(out.buffer).swap32();
  return out;
}

/** PostgreSQL implementation of the vector index. */
export class PgVectorIndex implements AsyncVectorIndex {
  private vecDims = 0;

  constructor(private readonly db: PgDb) {}

  /** The vector width in use (0 before `ensure`). */
  get dims(): number { return this.vecDims; }

  async ensure(dims: number): Promise<boolean> {
    if (!Number.isInteger(dims) || dims < 1 || dims > 4000) throw new Error(`embedding width ${dims} is outside 1..4000 (halfvec HNSW limit)`);
    const recreated = await this.db.tx(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1)', [ENSURE_LOCK]);
      const prev = Number((await this.db.query<{ value: string }>("SELECT value FROM meta WHERE key = 'embedding_dims'"))[0]?.value ?? '0');
      if (prev === dims) return false;
      await this.db.exec('DROP INDEX IF EXISTS chunk_vectors_hnsw');
      await this.db.exec('DELETE FROM chunk_vectors');
      await this.db.exec('UPDATE chunks SET embedded = 0 WHERE embedded <> 0');
      await this.db.exec('UPDATE documents SET chunks_embedded = 0 WHERE chunks_embedded <> 0');
      await this.db.exec("INSERT INTO meta (key, value) VALUES ('embedding_dims', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(dims)]);
      return prev !== 0;
    });
    this.vecDims = dims;
    await this.buildIndex();
    return recreated;
  }

  /** Create the HNSW index when absent (after `ensure`; a bulk load drops it first and builds it after, which is faster). */
  async buildIndex(): Promise<void> {
    const d = this.vecDims;
    if (!d) throw new Error('vector index not initialised');
    await this.db.tx(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1)', [ENSURE_LOCK]);
      await this.db.exec(`CREATE INDEX IF NOT EXISTS chunk_vectors_hnsw ON chunk_vectors USING hnsw ((embedding::halfvec(${d})) halfvec_ip_ops)
        WITH (m = ${HNSW.m}, ef_construction = ${HNSW.efConstruction})`);
    });
  }

  /** Drop the HNSW index (bulk loads; `buildIndex` brings it back). */
  async dropIndex(): Promise<void> {
    await this.db.exec('DROP INDEX IF EXISTS chunk_vectors_hnsw');
  }

  async put(items: ChunkVector[], now: string): Promise<void> {
    if (!this.vecDims) throw new Error('vector index not initialised');
    if (items.length === 0) return;
    await this.db.tx(async () => {
      // Only chunks that still exist and lack a vector: a chunk deleted or embedded meanwhile is skipped.
      const marked = await this.db.query<{ id: number }>('UPDATE chunks SET embedded = 1 WHERE id = ANY($1::bigint[]) AND embedded = 0 RETURNING id', [items.map((i) => i.chunkId)]);
      const keep = new Set(marked.map((r) => r.id));
      const rows = items.filter((i) => keep.has(i.chunkId));
      if (rows.length === 0) return;
      await this.db.exec(`INSERT INTO chunk_vectors (chunk_id, embedding) SELECT id, v::vector FROM unnest($1::bigint[], $2::text[]) AS x(id, v)
        ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding`, [rows.map((r) => r.chunkId), rows.map((r) => vectorText(r.vector))]);
      const perDoc = new Map<string, number>();
      for (const r of rows) perDoc.set(r.documentId, (perDoc.get(r.documentId) ?? 0) + 1);
      await this.db.exec(`UPDATE documents d SET chunks_embedded = d.chunks_embedded + x.n,
          status = CASE WHEN d.status = 'indexing' AND d.chunks_embedded + x.n >= d.chunks_indexed THEN 'indexed' ELSE d.status END, updated_at = $3
        FROM unnest($1::text[], $2::int[]) AS x(id, n) WHERE d.id = x.id`, [[...perDoc.keys()], [...perDoc.values()], now]);
    });
  }

  async remove(chunkIds: number[]): Promise<void> {
    if (chunkIds.length) await this.db.exec('DELETE FROM chunk_vectors WHERE chunk_id = ANY($1::bigint[])', [chunkIds]);
  }

  async knn(query: Float32Array, k: number): Promise<Array<{ chunk_id: number; distance: number }>> {
    const d = this.vecDims;
    if (!d) return [];
    const limit = Math.min(1000, Math.max(1, Math.floor(k)));
    // distance = 1 - inner product = cosine distance for unit vectors (on the halfvec values).
    // The query vector is inlined: it is numbers this code printed, never caller text.
    const lit = `'${vectorText(query)}'::halfvec(${d})`;
    const select = `SELECT chunk_id, 1 + (embedding::halfvec(${d}) <#> ${lit}) AS distance FROM chunk_vectors ORDER BY embedding::halfvec(${d}) <#> ${lit} LIMIT ${limit}`;
    const ef = `SET LOCAL hnsw.ef_search = ${Math.max(40, limit)}`;
    if (this.db.inTransaction) {
      await this.db.exec(ef);
      return this.db.query<{ chunk_id: number; distance: number }>(select);
    }
    // One round trip: ef_search applies to this transaction only; a failure rolls it back before the
    // connection goes back to the pool.
    const client = await this.db.pool.connect();
    let broken = false;
    try {
      const res = await client.query(`BEGIN; ${ef}; ${select}; COMMIT`) as unknown as Array<{ rows: Array<{ chunk_id: number; distance: number }> }>;
      return res[2]!.rows;
    } catch (err) {
      try { await client.query('ROLLBACK'); } catch { broken = true; }
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async vectorsOf(ids: number[]): Promise<Map<number, Float32Array>> {
    const out = new Map<number, Float32Array>();
    if (ids.length === 0) return out;
    const rows = await this.db.query<{ chunk_id: number; b: Buffer }>('SELECT chunk_id, vector_send(embedding) AS b FROM chunk_vectors WHERE chunk_id = ANY($1::bigint[])', [ids]);
    for (const r of rows) out.set(r.chunk_id, vectorFromSend(r.b));
    return out;
  }

  /** Exact top-`k` by cosine over every stored float vector (benchmarks' and tests' recall baseline). */
  async exactNearestForBench(query: Float32Array, k: number): Promise<number[]> {
    const rows = await this.db.query<{ chunk_id: number }>('SELECT chunk_id FROM chunk_vectors ORDER BY embedding <=> $1::vector LIMIT $2', [vectorText(query), k]);
    return rows.map((r) => r.chunk_id);
  }

  pending(limit: number): Promise<PendingChunk[]> {
    return this.db.query<PendingChunk>(`SELECT c.id AS chunk_id, c.document_id, c.heading, c.content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.embedded = 0 ORDER BY c.id LIMIT $1`, [limit]);
  }

  async countPending(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM chunks WHERE embedded = 0'))[0]!.n;
  }

  async finishWithoutVectors(): Promise<void> {
    await this.db.exec(`UPDATE documents SET status = 'indexed' WHERE status = 'indexing' AND chunks_indexed > 0 AND chunks_embedded >= chunks_indexed`);
  }

  async markForReembedding(documentId: string, dense: boolean): Promise<void> {
    await this.db.tx(async () => {
      await this.db.exec('UPDATE chunks SET embedded = 0 WHERE document_id = $1', [documentId]);
      await this.db.exec(`UPDATE documents SET chunks_embedded = 0, status = CASE WHEN $2 AND status = 'indexed' AND chunks_indexed > 0 THEN 'indexing' ELSE status END
        WHERE id = $1`, [documentId, dense]);
    });
  }
}
