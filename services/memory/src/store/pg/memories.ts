/**
 * `memories` with its keyword index on PostgreSQL (issue 21 item 1): the `MemoryRepository` of
 * ../memories.ts with the same answers. Keyword search is full-text search over the same analysed
 * terms FTS5 indexes: each row's `tsv` holds its terms with positions (a tsvector literal, so
 * PostgreSQL's parser does not split them again) and `len` their count; matches are ranked by Okapi
 * BM25 computed as FTS5's bm25() computes it (k1 1.2, b 0.75, idf ln((N-n+0.5)/(n+0.5)) floored at
 * 1e-6, N and the average length over the whole table), best first, ties by rid; `score` is the
 * negated BM25 (lower is better), as SQLite's store answers it. Orders that SQLite
 * gives through its indexes are explicit here (`COLLATE "C"` = SQLite's BINARY).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { MemoryChange, MemoryRepository, MemoryRow, NewMemory, ScopeFilter, ScopeRef } from '../../domain/ports.js';

/** Highest tsvector position PostgreSQL stores; later positions share it. */
const MAX_POS = 16383;
/** Most positions kept per lexeme (PostgreSQL's limit is 256). */
const MAX_POSITIONS = 255;

const COLUMNS = `rid, id, tenant_id, user_id, scope_key, agent_id, session_id, memory_type, content, content_key, pinned, expires_at, source, why_stored,
  last_recalled_at, created_at, updated_at`;

const quote = (t: string): string => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Terms PostgreSQL can hold as lexemes (non-empty, at most 2,000 bytes). */
const lexemes = (terms: readonly string[]): string[] => terms.filter((t) => t && Buffer.byteLength(t) <= 2000);

/** A tsvector literal of space-separated analysed terms, positions from 1, and the term count. */
export function termsVector(terms: string): { tsv: string; len: number } {
  const lex = new Map<string, number[]>();
  let pos = 0;
  let len = 0;
  for (const t of terms.split(' ')) {
    if (!t) continue;
    len++;
    if (Buffer.byteLength(t) > 2000) continue;
    pos = Math.min(MAX_POS, pos + 1);
    let l = lex.get(t);
    if (!l) { l = []; lex.set(t, l); }
    if (l.length < MAX_POSITIONS) l.push(pos);
  }
  return { tsv: [...lex].map(([t, ps]) => `${quote(t)}:${ps.join(',')}`).join(' '), len };
}

/** The scope condition on `memories m`, with its parameters appended to `params`. */
function filterSql(f: ScopeFilter, params: unknown[]): string {
  const add = (v: unknown): string => { params.push(v); return `$${params.length}`; };
  const where = [`m.scope_key = ${add(f.scopeKey)}`];
  if (f.agentId) where.push(`m.agent_id = ${add(f.agentId)}`);
  if (f.sessionId) where.push(`m.session_id = ${add(f.sessionId)}`);
  if (f.memoryType) where.push(`m.memory_type = ${add(f.memoryType)}`);
  if (!f.includeExpired) where.push(`(m.expires_at IS NULL OR m.expires_at COLLATE "C" > ${add(f.now)})`);
  return where.join(' AND ');
}

/** PostgreSQL implementation of `MemoryRepository`. */
export class PgMemories implements MemoryRepository {
  constructor(private readonly db: PgDb) {}

  async insert(m: NewMemory, terms: string, now: string): Promise<MemoryRow> {
    const v = termsVector(terms);
    const [r] = await this.db.query<MemoryRow>(`INSERT INTO memories (id, tenant_id, user_id, scope_key, agent_id, session_id, memory_type, content, content_key,
      pinned, expires_at, source, why_stored, created_at, updated_at, tsv, len)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15::tsvector, $16) RETURNING ${COLUMNS}`, [
      m.id, m.tenant_id, m.user_id, m.scope_key, m.agent_id, m.session_id, m.memory_type, m.content, m.content_key,
      m.pinned, m.expires_at, m.source, m.why_stored, now, v.tsv, v.len,
    ]);
    return r!;
  }

  async update(rid: number, f: MemoryChange, terms: string | null, now: string): Promise<void> {
    const v = terms === null ? null : termsVector(terms);
    await this.db.exec(`UPDATE memories SET content = $2, content_key = $3, memory_type = $4, pinned = $5, expires_at = $6, why_stored = $7, updated_at = $8,
      embedded = CASE WHEN content = $2 THEN embedded ELSE 0 END,
      tsv = CASE WHEN $9::text IS NULL THEN tsv ELSE $9::tsvector END, len = coalesce($10, len) WHERE rid = $1`, [
      rid, f.content, f.content_key, f.memory_type, f.pinned, f.expires_at, f.why_stored, now, v?.tsv ?? null, v?.len ?? null,
    ]);
  }

  delete(rid: number): Promise<void> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM memory_vectors WHERE rid = $1', [rid]);
      await this.db.exec('DELETE FROM memories WHERE rid = $1', [rid]);
    });
  }

  async byId(id: string): Promise<MemoryRow | null> {
    const [r] = await this.db.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE id = $1`, [id]);
    return r ?? null;
  }

  async byRids(rids: readonly number[]): Promise<MemoryRow[]> {
    if (!rids.length) return [];
    return this.db.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE rid = ANY($1::bigint[]) ORDER BY rid`, [rids]);
  }

  async byKey(scopeKey: string, key: string, type: string, agent: string | null, session: string | null): Promise<MemoryRow | null> {
    const [r] = await this.db.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE scope_key = $1 AND content_key = $2 AND memory_type = $3
      AND coalesce(agent_id, '') = coalesce($4, '') AND coalesce(session_id, '') = coalesce($5, '') ORDER BY rid LIMIT 1`, [scopeKey, key, type, agent, session]);
    return r ?? null;
  }

  list(f: ScopeFilter, limit: number, beforeRid: number | null): Promise<MemoryRow[]> {
    const params: unknown[] = [];
    const where = filterSql(f, params);
    params.push(limit);
    const lim = `$${params.length}`;
    let cursor = '';
    if (beforeRid) { params.push(beforeRid); cursor = ` AND m.rid < $${params.length}`; }
    return this.db.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories m WHERE ${where}${cursor} ORDER BY m.rid DESC LIMIT ${lim}`, params);
  }

  /** In SQLite's order (its scope index on (scope_key, content_key), then rid). */
  all(f: ScopeFilter): Promise<MemoryRow[]> {
    const params: unknown[] = [];
    const where = filterSql(f, params);
    return this.db.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories m WHERE ${where} ORDER BY m.content_key COLLATE "C", m.rid`, params);
  }

  async keywordSearch(f: ScopeFilter, terms: readonly string[], limit: number): Promise<Array<{ rid: number }>> {
    const t = [...new Set(lexemes(terms))];
    if (!t.length) return [];
    const params: unknown[] = [t.map(quote).join(' | '), t];
    const where = filterSql(f, params);
    params.push(limit);
    return this.db.query<{ rid: number }>(`WITH hit AS (
        SELECT x.rid, x.len, l.lexeme, cardinality(l.positions)::float8 AS f FROM memories x, unnest(x.tsv) l
        WHERE x.tsv @@ $1::tsquery AND l.lexeme = ANY($2::text[])),
      st AS (SELECT count(*)::float8 AS n, greatest(coalesce(avg(len), 0), 1e-9)::float8 AS avgdl FROM memories),
      df AS (SELECT lexeme, count(*)::float8 AS n FROM hit GROUP BY lexeme),
      s AS (SELECT hit.rid, sum(greatest(ln((st.n - df.n + 0.5) / (df.n + 0.5)), 1e-6)
        * (hit.f * 2.2) / (hit.f + 1.2 * (0.25 + 0.75 * hit.len / st.avgdl))) AS bm25
        FROM hit JOIN df USING (lexeme), st GROUP BY hit.rid)
      SELECT m.rid, -s.bm25 AS score FROM s JOIN memories m ON m.rid = s.rid WHERE ${where} ORDER BY score, m.rid LIMIT $${params.length}`, params);
  }

  async touch(rids: readonly number[], now: string): Promise<void> {
    if (rids.length) await this.db.exec('UPDATE memories SET last_recalled_at = $1 WHERE rid = ANY($2::bigint[])', [now, rids]);
  }

  /** In SQLite's order (its expiry index), then rid. */
  expired(now: string): Promise<MemoryRow[]> {
    return this.db.query<MemoryRow>(`SELECT ${COLUMNS} FROM memories WHERE expires_at IS NOT NULL AND expires_at COLLATE "C" <= $1
      ORDER BY expires_at COLLATE "C", rid`, [now]);
  }

  scopes(): Promise<ScopeRef[]> {
    return this.db.query<ScopeRef>(`SELECT scope_key, tenant_id, user_id FROM (SELECT DISTINCT scope_key, tenant_id, user_id FROM memories) s
      ORDER BY scope_key COLLATE "C", tenant_id COLLATE "C", user_id COLLATE "C"`);
  }
}
