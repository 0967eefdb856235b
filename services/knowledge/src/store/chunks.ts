/**
 * `chunks` and the FTS5 keyword index `chunks_fts` (analysed title and body terms; BM25):
 * SQLite implementation of `ChunkStore`. Visibility joins the document through `VISIBLE`.
 */
import type { Db } from '../../../shared/db/open.js';
import type { ChunkHit, ChunkRow, ChunkStore, ChunkTerms, NewChunk, SparseMatch, Viewer } from '../domain/ports.js';
import { isFiltered, VISIBLE, viewerParams } from './visibility-sql.js';

/** SQLite implementation of `ChunkStore`. */
export class SqliteChunkStore implements ChunkStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare<[string, number, string | null, string]>('INSERT INTO chunks (document_id, chunk_index, heading, content) VALUES (?, ?, ?, ?)'),
      insertFts: db.prepare<[number, string, string]>('INSERT INTO chunks_fts (rowid, title, body) VALUES (?, ?, ?)'),
      deleteFts: db.prepare<[number]>('DELETE FROM chunks_fts WHERE rowid = ?'),
      idsOf: db.prepare<[string], { id: number }>('SELECT id FROM chunks WHERE document_id = ?'),
      deleteOf: db.prepare<[string]>('DELETE FROM chunks WHERE document_id = ?'),
      list: db.prepare<[string], ChunkRow>('SELECT id, chunk_index, heading, content FROM chunks WHERE document_id = ? ORDER BY chunk_index'),
      count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks'),
      ftsOnly: db.prepare<{ match: string; wt: number; limit: number }, { chunk_id: number; score: number }>(
        'SELECT rowid AS chunk_id, bm25(chunks_fts, @wt, 1.0) AS score FROM chunks_fts WHERE chunks_fts MATCH @match ORDER BY score LIMIT @limit'),
      sparse: db.prepare<Record<string, unknown>, SparseMatch>(`SELECT c.id AS chunk_id, c.document_id, bm25(chunks_fts, @wt, 1.0) AS score
        FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
        WHERE chunks_fts MATCH @match AND d.tenant_id = @tenant AND d.archived_at IS NULL AND ${VISIBLE}
        ORDER BY score LIMIT @limit`),
      sparseAdmin: db.prepare<Record<string, unknown>, SparseMatch>(`SELECT c.id AS chunk_id, c.document_id, bm25(chunks_fts, @wt, 1.0) AS score
        FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id
        WHERE chunks_fts MATCH @match AND d.tenant_id = @tenant AND d.archived_at IS NULL
        ORDER BY score LIMIT @limit`),
      visible: db.prepare<Record<string, unknown>, { chunk_id: number; document_id: string }>(`SELECT c.id AS chunk_id, c.document_id FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.id IN (SELECT value FROM json_each(@ids)) AND d.tenant_id = @tenant AND d.archived_at IS NULL AND ${VISIBLE}`),
      hits: db.prepare<[string], ChunkHit>(`SELECT c.id AS chunk_id, c.document_id, c.chunk_index, c.heading, c.content, d.title FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.id IN (SELECT value FROM json_each(?))`),
    };
  }

  idsOf(documentId: string): number[] { return this.q.idsOf.all(documentId).map((r) => r.id); }

  replace(documentId: string, chunks: NewChunk[]): number[] {
    this.removeAll(documentId);
    const ids: number[] = [];
    for (const c of chunks) {
      const id = Number(this.q.insert.run(documentId, c.chunk_index, c.heading, c.content).lastInsertRowid);
      this.q.insertFts.run(id, c.titleTerms, c.bodyTerms);
      ids.push(id);
    }
    return ids;
  }

  /** Append chunks without keyword rows and without touching existing ones (benchmarks building large indexes). */
  appendForBench(documentId: string, chunks: NewChunk[]): number[] {
    return chunks.map((c) => Number(this.q.insert.run(documentId, c.chunk_index, c.heading, c.content).lastInsertRowid));
  }

  removeAll(documentId: string): void {
    for (const { id } of this.q.idsOf.all(documentId)) this.q.deleteFts.run(id);
    this.q.deleteOf.run(documentId);
  }

  list(documentId: string): ChunkRow[] { return this.q.list.all(documentId); }

  count(): number { return this.q.count.get()!.n; }

  retitle(terms: ChunkTerms[]): void {
    for (const c of terms) {
      this.q.deleteFts.run(c.chunkId);
      this.q.insertFts.run(c.chunkId, c.titleTerms, c.bodyTerms);
    }
  }

  /**
   * `score` is FTS5's (lower is better). Fast path: rank in FTS5 alone (no joins per match), then
   * keep the visible rows of the top `4 * limit`; only when visibility removed too many does the
   * joined query run over every match.
   */
  sparse(viewer: Viewer, match: string, limit: number, titleWeight: number): SparseMatch[] {
    const wide = limit * 4;
    const top = this.q.ftsOnly.all({ match, wt: titleWeight, limit: wide });
    const allowed = this.visibleChunkIds(viewer, top.map((r) => r.chunk_id));
    const out: SparseMatch[] = [];
    for (const r of top) {
      const doc = allowed.get(r.chunk_id);
      if (doc !== undefined) { out.push({ chunk_id: r.chunk_id, document_id: doc, score: r.score }); if (out.length >= limit) return out; }
    }
    if (top.length < wide) return out;
    return viewer.admin && !isFiltered(viewer)
      ? this.q.sparseAdmin.all({ match, limit, wt: titleWeight, tenant: viewer.tenantId })
      : this.q.sparse.all({ match, limit, wt: titleWeight, ...viewerParams(viewer) });
  }

  visibleChunkIds(viewer: Viewer, ids: number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    for (const r of this.q.visible.all({ ids: JSON.stringify(ids), ...viewerParams(viewer) })) out.set(r.chunk_id, r.document_id);
    return out;
  }

  hits(ids: number[]): Map<number, ChunkHit> {
    const out = new Map<number, ChunkHit>();
    for (const r of this.q.hits.all(JSON.stringify(ids))) out.set(r.chunk_id, r);
    return out;
  }
}
