/**
 * `chunks` with their keyword index on PostgreSQL (issue 21 item 1): async implementation of the
 * chunk store. Keyword search is PostgreSQL full-text search over the same analysed terms as FTS5
 * (services/embedder/src/text/analyzer.ts): each chunk's `tsv` holds its title terms (weight A) and
 * body terms (weight B) with positions, written as a tsvector literal so PostgreSQL's parser does not
 * re-split what the analyzer produced, and `len` its term count. The GIN index finds the chunks
 * holding any query term; they are ranked by Okapi BM25 computed in SQL exactly as FTS5's bm25()
 * computes it (k1 = 1.2, b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, term
 * frequency = title hits x titleWeight + body hits, length = all terms of the row, N and the average
 * length over the whole table), so both engines rank alike. `score` is the negated BM25, lower is
 * better as with bm25(). Visibility joins the document through `pgVisible`.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncChunkStore } from '../../domain/async-ports.js';
import type { ChunkHit, ChunkRow, ChunkTerms, NewChunk, SparseMatch, Viewer } from '../../domain/ports.js';
import { Params, pgVisible } from './visibility-sql.js';

/** Highest tsvector position PostgreSQL stores; later positions share it. */
const MAX_POS = 16383;
/** Most positions kept per lexeme (PostgreSQL's limit is 256). */
const MAX_POSITIONS = 255;

const quote = (t: string): string => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * A tsvector literal of analysed terms: title terms at positions 1.. (weight A), body terms after
 * them (weight B). Empty terms and lexemes over 2,000 bytes are skipped.
 */
export function tsvectorLiteral(titleTerms: string, bodyTerms: string): string {
  const lex = new Map<string, string[]>();
  let pos = 0;
  const addAll = (terms: string, weight: 'A' | 'B'): void => {
    for (const t of terms.split(' ')) {
      if (!t || Buffer.byteLength(t) > 2000) continue;
      pos = Math.min(MAX_POS, pos + 1);
      let l = lex.get(t);
      if (!l) { l = []; lex.set(t, l); }
      if (l.length < MAX_POSITIONS) l.push(`${pos}${weight}`);
    }
  };
  addAll(titleTerms, 'A');
  addAll(bodyTerms, 'B');
  return [...lex].map(([t, ps]) => `${quote(t)}:${ps.join(',')}`).join(' ');
}

/** The terms of an FTS5 OR query as `ftsOrQuery` writes it (`"a" OR "b"`), distinct, in order. */
export function termsOfFtsMatch(match: string): string[] {
  const terms: string[] = [];
  for (const m of match.matchAll(/"((?:[^"]|"")*)"/g)) {
    const t = m[1]!.replace(/""/g, '"');
    if (t && Buffer.byteLength(t) <= 2000) terms.push(t);
  }
  return [...new Set(terms)];
}

/** The number of analysed terms of a chunk (BM25's document length): title and body. */
function termCount(titleTerms: string, bodyTerms: string): number {
  const n = (s: string): number => s.split(' ').filter(Boolean).length;
  return n(titleTerms) + n(bodyTerms);
}

/**
 * BM25 of every chunk holding one of `$2` (tsquery `$1`), FTS5's formula; `$3` the title weight.
 * Document frequencies come from the matches themselves (every row holding a term matches the OR).
 */
const BM25 = `WITH m AS (
    SELECT c.id, c.document_id, c.len, x.lexeme, x.weights FROM chunks c, unnest(c.tsv) x
    WHERE c.tsv @@ $1::tsquery AND x.lexeme = ANY($2::text[])),
  st AS (SELECT count(*)::float8 AS n, greatest(coalesce(avg(len), 0), 1e-9)::float8 AS avgdl FROM chunks),
  df AS (SELECT lexeme, count(*)::float8 AS n FROM m GROUP BY lexeme),
  tf AS (SELECT m.id, m.document_id, m.len, m.lexeme,
    (SELECT sum(CASE WHEN w = 'A' THEN $3::float8 ELSE 1 END) FROM unnest(m.weights) w)::float8 AS f FROM m)
  SELECT tf.id, tf.document_id, sum(greatest(ln((st.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
    * (tf.f * 2.2) / (tf.f + 1.2 * (0.25 + 0.75 * tf.len / st.avgdl))) AS bm25
  FROM tf JOIN df USING (lexeme), st GROUP BY tf.id, tf.document_id`;

/** PostgreSQL implementation of the chunk store. */
export class PgChunkStore implements AsyncChunkStore {
  constructor(private readonly db: PgDb) {}

  async idsOf(documentId: string): Promise<number[]> {
    return (await this.db.query<{ id: number }>('SELECT id FROM chunks WHERE document_id = $1', [documentId])).map((r) => r.id);
  }

  replace(documentId: string, chunks: NewChunk[]): Promise<number[]> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM chunks WHERE document_id = $1', [documentId]);
      return this.insertChunks(documentId, chunks, true);
    });
  }

  /** Append chunks (with keyword rows when `withTerms`) without touching existing ones (benchmarks building large indexes). */
  appendForBench(documentId: string, chunks: NewChunk[], withTerms = false): Promise<number[]> {
    return this.insertChunks(documentId, chunks, withTerms);
  }

  private async insertChunks(documentId: string, chunks: NewChunk[], withTerms: boolean): Promise<number[]> {
    if (chunks.length === 0) return [];
    const rows = await this.db.query<{ id: number; chunk_index: number }>(`INSERT INTO chunks (document_id, chunk_index, heading, content, tsv, len)
      SELECT $1, i, h, c, t::tsvector, n FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::int[]) AS x(i, h, c, t, n) RETURNING id, chunk_index`, [
      documentId, chunks.map((c) => c.chunk_index), chunks.map((c) => c.heading), chunks.map((c) => c.content),
      chunks.map((c) => (withTerms ? tsvectorLiteral(c.titleTerms, c.bodyTerms) : '')), chunks.map((c) => (withTerms ? termCount(c.titleTerms, c.bodyTerms) : 0)),
    ]);
    const byIndex = new Map(rows.map((r) => [r.chunk_index, r.id]));
    return chunks.map((c) => byIndex.get(c.chunk_index)!);
  }

  async removeAll(documentId: string): Promise<void> {
    await this.db.exec('DELETE FROM chunks WHERE document_id = $1', [documentId]);
  }

  list(documentId: string): Promise<ChunkRow[]> {
    return this.db.query<ChunkRow>('SELECT id, chunk_index, heading, content FROM chunks WHERE document_id = $1 ORDER BY chunk_index', [documentId]);
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>('SELECT count(*) AS n FROM chunks'))[0]!.n;
  }

  async retitle(terms: ChunkTerms[]): Promise<void> {
    if (terms.length === 0) return;
    await this.db.exec(`UPDATE chunks c SET tsv = x.t::tsvector, len = x.n FROM unnest($1::bigint[], $2::text[], $3::int[]) AS x(id, t, n) WHERE c.id = x.id`, [
      terms.map((t) => t.chunkId), terms.map((t) => tsvectorLiteral(t.titleTerms, t.bodyTerms)), terms.map((t) => termCount(t.titleTerms, t.bodyTerms)),
    ]);
  }

  async sparse(viewer: Viewer, match: string, limit: number, titleWeight: number): Promise<SparseMatch[]> {
    const terms = termsOfFtsMatch(match);
    if (terms.length === 0) return [];
    const ps = new Params([terms.map(quote).join(' | '), terms, titleWeight, viewer.tenantId, limit]);
    const visible = pgVisible(viewer, ps);
    return this.db.query<SparseMatch>(`WITH s AS (${BM25})
      SELECT s.id AS chunk_id, s.document_id, -s.bm25 AS score FROM s JOIN documents d ON d.id = s.document_id
      WHERE d.tenant_id = $4 AND d.archived_at IS NULL AND ${visible}
      ORDER BY score, s.id LIMIT $5`, ps.values);
  }

  async visibleChunkIds(viewer: Viewer, ids: number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    const ps = new Params([ids, viewer.tenantId]);
    const visible = pgVisible(viewer, ps);
    const rows = await this.db.query<{ chunk_id: number; document_id: string }>(`SELECT c.id AS chunk_id, c.document_id FROM chunks c
      JOIN documents d ON d.id = c.document_id WHERE c.id = ANY($1::bigint[]) AND d.tenant_id = $2 AND d.archived_at IS NULL AND ${visible}`, ps.values);
    for (const r of rows) out.set(r.chunk_id, r.document_id);
    return out;
  }

  async hits(ids: number[]): Promise<Map<number, ChunkHit>> {
    const out = new Map<number, ChunkHit>();
    if (ids.length === 0) return out;
    const rows = await this.db.query<ChunkHit>(`SELECT c.id AS chunk_id, c.document_id, c.chunk_index, c.heading, c.content, d.title
      FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY($1::bigint[])`, [ids]);
    for (const r of rows) out.set(r.chunk_id, r);
    return out;
  }
}
