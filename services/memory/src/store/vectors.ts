/**
 * `memory_vectors` (one float32 blob per memory), the `embedded` flag of `memories` that says a
 * memory's current content has its vector, and the `meta` row holding the vector width
 * (migrations/memory/0001_init.sql).
 */
import type { Db } from '../../../shared/db/open.js';
import { fromBlob, toBlob } from '../../../embedder/src/index.js';
import type { VectorRepository } from '../domain/ports.js';

/** SQLite implementation of `VectorRepository`. */
export class SqliteVectors implements VectorRepository {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      putVec: db.prepare<[number, Buffer]>('INSERT OR REPLACE INTO memory_vectors (rid, vec) VALUES (?, ?)'),
      markEmbedded: db.prepare<[number, string]>('UPDATE memories SET embedded = 1 WHERE rid = ? AND content = ?'),
      vecsOf: db.prepare<[string], { rid: number; vec: Buffer }>('SELECT rid, vec FROM memory_vectors WHERE rid IN (SELECT value FROM json_each(?))'),
      unembedded: db.prepare<[number], { rid: number; content: string }>('SELECT rid, content FROM memories WHERE embedded = 0 ORDER BY rid LIMIT ?'),
      clearVecs: db.prepare('DELETE FROM memory_vectors'),
      resetEmbedded: db.prepare('UPDATE memories SET embedded = 0'),
      getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
  }

  ensureDims(dims: number): boolean {
    const prev = Number(this.q.getMeta.get('embedding_dims')?.value ?? '0');
    if (prev === dims) return false;
    this.db.transaction(() => { this.q.clearVecs.run(); this.q.resetEmbedded.run(); this.q.setMeta.run('embedding_dims', String(dims)); })();
    return prev !== 0;
  }

  vectors(rids: readonly number[]): Map<number, Float32Array> {
    const out = new Map<number, Float32Array>();
    for (const r of this.q.vecsOf.all(JSON.stringify(rids))) out.set(r.rid, fromBlob(r.vec));
    return out;
  }

  putVector(rid: number, content: string, vec: Float32Array): void {
    this.db.transaction(() => { if (this.q.markEmbedded.run(rid, content).changes) this.q.putVec.run(rid, toBlob(vec)); })();
  }

  unembedded(limit: number): Array<{ rid: number; content: string }> { return this.q.unembedded.all(limit); }
}
