/**
 * The memory service's SQLite store: the only code of the service that touches SQLite.
 * Prepared statements are built once.
 */
import type Database from 'better-sqlite3';
import { openDb, type Db } from '../../../shared/db/open.js';

/** A stored memory. */
export interface MemoryRow {
  rid: number; id: string; tenant_id: string; user_id: string; scope_key: string; agent_id: string | null; session_id: string | null;
  memory_type: 'user' | 'feedback' | 'project' | 'reference'; content: string; content_key: string; pinned: number; expires_at: string | null;
  source: string | null; why_stored: string | null; last_recalled_at: string | null; created_at: string; updated_at: string; embedded: number;
}

/** Scope filter: scope_key always; agent, session and type narrow when set. */
export interface ScopeFilter { scopeKey: string; agentId?: string | null; sessionId?: string | null; memoryType?: string | null; now: string; includeExpired?: boolean }

function filterSql(f: ScopeFilter): { where: string; params: Record<string, unknown> } {
  const where = ['m.scope_key = @scope'];
  const params: Record<string, unknown> = { scope: f.scopeKey, now: f.now };
  if (f.agentId) { where.push('m.agent_id = @agent'); params.agent = f.agentId; }
  if (f.sessionId) { where.push('m.session_id = @session'); params.session = f.sessionId; }
  if (f.memoryType) { where.push('m.memory_type = @type'); params.type = f.memoryType; }
  if (!f.includeExpired) where.push('(m.expires_at IS NULL OR m.expires_at > @now)');
  return { where: where.join(' AND '), params };
}

/** The store. */
export class MemoryStore {
  private readonly s: Record<string, Database.Statement>;

  private constructor(readonly db: Db) {
    const p = (sql: string): Database.Statement => db.prepare(sql);
    this.s = {
      insert: p(`INSERT INTO memories (id, tenant_id, user_id, scope_key, agent_id, session_id, memory_type, content, content_key, pinned, expires_at, source, why_stored, created_at, updated_at)
        VALUES (@id, @tenant_id, @user_id, @scope_key, @agent_id, @session_id, @memory_type, @content, @content_key, @pinned, @expires_at, @source, @why_stored, @now, @now)`),
      insertFts: p('INSERT INTO memories_fts (rowid, body) VALUES (?, ?)'),
      deleteFts: p('DELETE FROM memories_fts WHERE rowid = ?'),
      deleteVec: p('DELETE FROM memory_vectors WHERE rid = ?'),
      putVec: p('INSERT OR REPLACE INTO memory_vectors (rid, vec) VALUES (?, ?)'),
      markEmbedded: p('UPDATE memories SET embedded = 1 WHERE rid = ? AND content = ?'),
      byId: p('SELECT * FROM memories WHERE id = ?'),
      byRids: p('SELECT * FROM memories WHERE rid IN (SELECT value FROM json_each(?))'),
      byKey: p('SELECT * FROM memories m WHERE scope_key = ? AND content_key = ? AND memory_type = ? AND coalesce(agent_id, \'\') = coalesce(?, \'\') AND coalesce(session_id, \'\') = coalesce(?, \'\')'),
      update: p(`UPDATE memories SET content = @content, content_key = @content_key, memory_type = @memory_type, pinned = @pinned, expires_at = @expires_at,
        why_stored = @why_stored, updated_at = @now, embedded = CASE WHEN content = @content THEN embedded ELSE 0 END WHERE rid = @rid`),
      del: p('DELETE FROM memories WHERE rid = ?'),
      touch: p('UPDATE memories SET last_recalled_at = ? WHERE rid IN (SELECT value FROM json_each(?))'),
      history: p(`INSERT INTO memory_history (memory_id, tenant_id, user_id, event, actor_id, user_initiated, old_content, new_content, reason, at)
        VALUES (@memory_id, @tenant_id, @user_id, @event, @actor_id, @user_initiated, @old_content, @new_content, @reason, @at)`),
      historyOf: p('SELECT event, actor_id, user_initiated, old_content, new_content, reason, at FROM memory_history WHERE memory_id = ? ORDER BY id'),
      vecsOf: p('SELECT rid, vec FROM memory_vectors WHERE rid IN (SELECT value FROM json_each(?))'),
      unembedded: p('SELECT rid, content FROM memories WHERE embedded = 0 ORDER BY rid LIMIT ?'),
      expired: p('SELECT * FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      scopes: p('SELECT DISTINCT scope_key, tenant_id, user_id FROM memories'),
      clearVecs: p('DELETE FROM memory_vectors'),
      resetEmbedded: p('UPDATE memories SET embedded = 0'),
      getMeta: p('SELECT value FROM meta WHERE key = ?'),
      setMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
  }

  static open(dbDir: string, migrationsDir: string): MemoryStore {
    return new MemoryStore(openDb({ dbDir, store: 'memory', migrationsDir, vec: false }));
  }

  tx<T>(fn: () => T): T { return this.db.transaction(fn)(); }

  /** Drop vectors when the width changed (EMBEDDING_DIMS); @returns true when they were dropped. */
  ensureDims(dims: number): boolean {
    const prev = Number((this.s.getMeta!.get('embedding_dims') as { value: string } | undefined)?.value ?? '0');
    if (prev === dims) return false;
    this.tx(() => { this.s.clearVecs!.run(); this.s.resetEmbedded!.run(); this.s.setMeta!.run('embedding_dims', String(dims)); });
    return prev !== 0;
  }

  insert(m: Omit<MemoryRow, 'rid' | 'created_at' | 'updated_at' | 'embedded' | 'last_recalled_at'>, terms: string, now: string): MemoryRow {
    const rid = Number(this.s.insert!.run({ ...m, now }).lastInsertRowid);
    this.s.insertFts!.run(rid, terms);
    return this.s.byId!.get(m.id) as MemoryRow;
  }

  update(rid: number, f: { content: string; content_key: string; memory_type: string; pinned: number; expires_at: string | null; why_stored: string | null }, terms: string | null, now: string): void {
    this.s.update!.run({ rid, ...f, now });
    if (terms !== null) { this.s.deleteFts!.run(rid); this.s.insertFts!.run(rid, terms); }
  }

  delete(rid: number): void {
    this.s.deleteFts!.run(rid);
    this.s.deleteVec!.run(rid);
    this.s.del!.run(rid);
  }

  byId(id: string): MemoryRow | null { return (this.s.byId!.get(id) as MemoryRow | undefined) ?? null; }
  byRids(rids: number[]): MemoryRow[] { return this.s.byRids!.all(JSON.stringify(rids)) as MemoryRow[]; }
  byKey(scopeKey: string, key: string, type: string, agent: string | null, session: string | null): MemoryRow | null {
    return (this.s.byKey!.get(scopeKey, key, type, agent, session) as MemoryRow | undefined) ?? null;
  }

  /** Memories of a scope, newest first, keyset-paginated on rid. */
  list(f: ScopeFilter, limit: number, beforeRid: number | null): MemoryRow[] {
    const q = filterSql(f);
    const cursor = beforeRid ? ' AND m.rid < @before' : '';
    return this.db.prepare(`SELECT m.* FROM memories m WHERE ${q.where}${cursor} ORDER BY m.rid DESC LIMIT @limit`).all({ ...q.params, limit, before: beforeRid }) as MemoryRow[];
  }

  /** All memories of a scope (for dense scoring and consolidation). */
  all(f: ScopeFilter): MemoryRow[] {
    const q = filterSql(f);
    return this.db.prepare(`SELECT m.* FROM memories m WHERE ${q.where}`).all(q.params) as MemoryRow[];
  }

  /** BM25 over a scope; `score` is FTS5's (lower is better). */
  sparse(f: ScopeFilter, match: string, limit: number): Array<{ rid: number; score: number }> {
    const q = filterSql(f);
    return this.db.prepare(`SELECT m.rid, bm25(memories_fts) AS score FROM memories_fts JOIN memories m ON m.rid = memories_fts.rowid
      WHERE memories_fts MATCH @match AND ${q.where} ORDER BY score LIMIT @limit`).all({ ...q.params, match, limit }) as Array<{ rid: number; score: number }>;
  }

  vectors(rids: number[]): Map<number, Buffer> {
    const out = new Map<number, Buffer>();
    for (const r of this.s.vecsOf!.all(JSON.stringify(rids)) as Array<{ rid: number; vec: Buffer }>) out.set(r.rid, r.vec);
    return out;
  }

  /** Store a vector if the memory still holds `content` (an update meanwhile invalidates it). */
  putVector(rid: number, content: string, vec: Buffer): void {
    this.tx(() => { if (this.s.markEmbedded!.run(rid, content).changes) this.s.putVec!.run(rid, vec); });
  }

  unembedded(limit: number): Array<{ rid: number; content: string }> { return this.s.unembedded!.all(limit) as Array<{ rid: number; content: string }>; }
  touch(rids: number[], now: string): void { if (rids.length) this.s.touch!.run(now, JSON.stringify(rids)); }
  expired(now: string): MemoryRow[] { return this.s.expired!.all(now) as MemoryRow[]; }
  scopes(): Array<{ scope_key: string; tenant_id: string; user_id: string }> { return this.s.scopes!.all() as Array<{ scope_key: string; tenant_id: string; user_id: string }>; }

  history(e: { memory_id: string; tenant_id: string; user_id: string; event: string; actor_id: string; user_initiated: boolean; old_content: string | null; new_content: string | null; reason: string | null; at: string }): void {
    this.s.history!.run({ ...e, user_initiated: e.user_initiated ? 1 : 0 });
  }
  historyOf(id: string): Array<{ event: string; actor_id: string; user_initiated: number; old_content: string | null; new_content: string | null; reason: string | null; at: string }> {
    return this.s.historyOf!.all(id) as Array<{ event: string; actor_id: string; user_initiated: number; old_content: string | null; new_content: string | null; reason: string | null; at: string }>;
  }

  close(): void { if (this.db.open) this.db.close(); }
}
