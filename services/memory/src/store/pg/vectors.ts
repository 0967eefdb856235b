/**
 * `memory_vectors` (pgvector `vector`, float32), the `embedded` flag of `memories` and the width in
 * `meta` on PostgreSQL (issue 21 item 1): the `VectorRepository` of ../vectors.ts. Vectors come back
 * through `vector_send` as the exact float32 values stored, so recall's exact cosine over a scope
 * scores as on SQLite.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { VectorRepository } from '../../domain/ports.js';

/** Advisory-lock key of `ensureDims` ('mvec' in ASCII): processes starting at once agree on one width. */
const DIMS_LOCK = 0x6d766563;

/** pgvector's text form of a vector (float32 values print exactly). */
export function vectorText(v: Float32Array): string {
  return `[${Array.prototype.join.call(v, ',')}]`;
}

/** Decode `vector_send()` output: int16 dims, int16 unused, then big-endian float32s. */
export function vectorFromSend(b: Buffer): Float32Array {
  const dims = b.readUInt16BE(0);
  if (b.length < 4 + 4 * dims) throw new Error(`vector_send output of ${b.length} bytes is short for ${dims} dimensions`);
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = b.readFloatBE(4 + 4 * i);
  return out;
}

/** PostgreSQL implementation of `VectorRepository`. */
export class PgVectors implements VectorRepository {
  constructor(private readonly db: PgDb) {}

  ensureDims(dims: number): Promise<boolean> {
    return this.db.tx(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1)', [DIMS_LOCK]);
      const prev = Number((await this.db.query<{ value: string }>("SELECT value FROM meta WHERE key = 'embedding_dims'"))[0]?.value ?? '0');
      if (prev === dims) return false;
      await this.db.exec('DELETE FROM memory_vectors');
      await this.db.exec('UPDATE memories SET embedded = 0');
      await this.db.exec("INSERT INTO meta (key, value) VALUES ('embedding_dims', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [String(dims)]);
      return prev !== 0;
    });
  }

  async vectors(rids: readonly number[]): Promise<Map<number, Float32Array>> {
    const out = new Map<number, Float32Array>();
    if (!rids.length) return out;
    const rows = await this.db.query<{ rid: number; b: Buffer }>('SELECT rid, vector_send(embedding) AS b FROM memory_vectors WHERE rid = ANY($1::bigint[]) ORDER BY rid', [rids]);
    for (const r of rows) out.set(r.rid, vectorFromSend(r.b));
    return out;
  }

  putVector(rid: number, content: string, vec: Float32Array): Promise<void> {
    return this.db.tx(async () => {
      if (await this.db.exec('UPDATE memories SET embedded = 1 WHERE rid = $1 AND content = $2', [rid, content])) {
        await this.db.exec(`INSERT INTO memory_vectors (rid, embedding) VALUES ($1, $2::vector)
          ON CONFLICT (rid) DO UPDATE SET embedding = excluded.embedding`, [rid, vectorText(vec)]);
      }
    });
  }

  unembedded(limit: number): Promise<Array<{ rid: number; content: string }>> {
    return this.db.query<{ rid: number; content: string }>('SELECT rid, content FROM memories WHERE embedded = 0 ORDER BY rid LIMIT $1', [limit]);
  }
}
