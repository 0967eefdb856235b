/**
 * `memories` and its keyword index `memories_fts` (migrations/memory/0001_init.sql): rows keyed by
 * `rid`, the FTS5 body holding the analysed terms of the content.
 */
import type Database from 'better-sqlite3';
import type { Db } from '../../../shared/db/open.js';
import { ftsOrQuery } from '../../../embedder/src/index.js';
import type { MemoryChange, MemoryRepository, MemoryRow, NewMemory, ScopeFilter, ScopeRef } from '../domain/ports.js';

/** A `memories` row as SQLite holds it. */
interface Row extends Omit<MemoryRow, 'pinned'> { pinned: number; embedded: number }

function toMemory(r: Row): MemoryRow {
  return {
    rid: r.rid, id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, scope_key: r.scope_key, agent_id: r.agent_id, session_id: r.session_id,
    memory_type: r.memory_type, content: r.content, content_key: r.content_key, pinned: r.pinned === 1, expires_at: r.expires_at,
    source: r.source, why_stored: r.why_stored, last_recalled_at: r.last_recalled_at, created_at: r.created_at, updated_at: r.updated_at,
  };
}

function filterSql(f: ScopeFilter): { where: string; params: Record<string, unknown> } {
  const where = ['m.scope_key = @scope'];
  const params: Record<string, unknown> = { scope: f.scopeKey, now: f.now };
  if (f.agentId) { where.push('m.agent_id = @agent'); params.agent = f.agentId; }
  if (f.sessionId) { where.push('m.session_id = @session'); params.session = f.sessionId; }
  if (f.memoryType) { where.push('m.memory_type = @type'); params.type = f.memoryType; }
  if (!f.includeExpired) where.push('(m.expires_at IS NULL OR m.expires_at > @now)');
  return { where: where.join(' AND '), params };
}

/** SQLite implementation of `MemoryRepository`. */
export class SqliteMemories implements MemoryRepository {
  private readonly q;
  /** Statements of the scope-filtered queries, by SQL (a few dozen filter shapes at most). */
  private readonly filtered = new Map<string, Database.Statement>();

  constructor(private readonly db: Db) {
    this.q = {
      insert: db.prepare(`INSERT INTO memories (id, tenant_id, user_id, scope_key, agent_id, session_id, memory_type, content, content_key, pinned, expires_at, source, why_stored, created_at, updated_at)
        VALUES (@id, @tenant_id, @user_id, @scope_key, @agent_id, @session_id, @memory_type, @content, @content_key, @pinned, @expires_at, @source, @why_stored, @now, @now)`),
      insertFts: db.prepare<[number, string]>('INSERT INTO memories_fts (rowid, body) VALUES (?, ?)'),
      deleteFts: db.prepare<[number]>('DELETE FROM memories_fts WHERE rowid = ?'),
      deleteVec: db.prepare<[number]>('DELETE FROM memory_vectors WHERE rid = ?'),
      byId: db.prepare<[string], Row>('SELECT * FROM memories WHERE id = ?'),
      byRids: db.prepare<[string], Row>('SELECT * FROM memories WHERE rid IN (SELECT value FROM json_each(?))'),
      byKey: db.prepare<[string, string, string, string | null, string | null], Row>('SELECT * FROM memories m WHERE scope_key = ? AND content_key = ? AND memory_type = ? AND coalesce(agent_id, \'\') = coalesce(?, \'\') AND coalesce(session_id, \'\') = coalesce(?, \'\')'),
      update: db.prepare(`UPDATE memories SET content = @content, content_key = @content_key, memory_type = @memory_type, pinned = @pinned, expires_at = @expires_at,
        why_stored = @why_stored, updated_at = @now, embedded = CASE WHEN content = @content THEN embedded ELSE 0 END WHERE rid = @rid`),
      del: db.prepare<[number]>('DELETE FROM memories WHERE rid = ?'),
      touch: db.prepare<[string, string]>('UPDATE memories SET last_recalled_at = ? WHERE rid IN (SELECT value FROM json_each(?))'),
      expired: db.prepare<[string], Row>('SELECT * FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      scopes: db.prepare<[], ScopeRef>('SELECT DISTINCT scope_key, tenant_id, user_id FROM memories'),
    };
  }

  insert(m: NewMemory, terms: string, now: string): MemoryRow {
    const rid = Number(this.q.insert.run({ ...m, pinned: m.pinned ? 1 : 0, now }).lastInsertRowid);
    this.q.insertFts.run(rid, terms);
    return toMemory(this.q.byId.get(m.id)!);
  }

  update(rid: number, f: MemoryChange, terms: string | null, now: string): void {
    this.q.update.run({ rid, ...f, pinned: f.pinned ? 1 : 0, now });
    if (terms !== null) { this.q.deleteFts.run(rid); this.q.insertFts.run(rid, terms); }
  }

  delete(rid: number): void {
    this.q.deleteFts.run(rid);
    this.q.deleteVec.run(rid);
    this.q.del.run(rid);
  }

  byId(id: string): MemoryRow | null { const r = this.q.byId.get(id); return r ? toMemory(r) : null; }
  byRids(rids: readonly number[]): MemoryRow[] { return this.q.byRids.all(JSON.stringify(rids)).map(toMemory); }
  byKey(scopeKey: string, key: string, type: string, agent: string | null, session: string | null): MemoryRow | null {
    const r = this.q.byKey.get(scopeKey, key, type, agent, session);
    return r ? toMemory(r) : null;
  }

  list(f: ScopeFilter, limit: number, beforeRid: number | null): MemoryRow[] {
    const q = filterSql(f);
    const cursor = beforeRid ? ' AND m.rid < @before' : '';
    return (this.prepared(`SELECT m.* FROM memories m WHERE ${q.where}${cursor} ORDER BY m.rid DESC LIMIT @limit`).all({ ...q.params, limit, before: beforeRid }) as Row[]).map(toMemory);
  }

  all(f: ScopeFilter): MemoryRow[] {
    const q = filterSql(f);
    return (this.prepared(`SELECT m.* FROM memories m WHERE ${q.where}`).all(q.params) as Row[]).map(toMemory);
  }

  keywordSearch(f: ScopeFilter, terms: readonly string[], limit: number): Array<{ rid: number }> {
    if (!terms.length) return [];
    const q = filterSql(f);
    return this.prepared(`SELECT m.rid, bm25(memories_fts) AS score FROM memories_fts JOIN memories m ON m.rid = memories_fts.rowid
      WHERE memories_fts MATCH @match AND ${q.where} ORDER BY score LIMIT @limit`).all({ ...q.params, match: ftsOrQuery(terms), limit }) as Array<{ rid: number }>;
  }

  /** The statement of `sql`, prepared on first use. */
  private prepared(sql: string): Database.Statement {
    let st = this.filtered.get(sql);
    if (!st) { st = this.db.prepare(sql); this.filtered.set(sql, st); }
    return st;
  }

  touch(rids: readonly number[], now: string): void { if (rids.length) this.q.touch.run(now, JSON.stringify(rids)); }
  expired(now: string): MemoryRow[] { return this.q.expired.all(now).map(toMemory); }
  scopes(): ScopeRef[] { return this.q.scopes.all(); }
}
