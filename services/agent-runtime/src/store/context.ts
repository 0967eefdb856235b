/**
 * Context records over SQLite (table `context_records`, migration 0005; issue 13 item 5). One row per
 * turn id; each write prunes the user's oldest rows beyond the cap in the same transaction.
 * Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { ContextRecordRow, ContextRecordStore, ContextRecordSummary } from '../domain/context/ports.js';

const SUMMARY = 'turn_id, tenant_id, user_id, session_id, agent_id, status, total_tokens, created_at';

/** `ContextRecordStore` over one open database. */
export class SqliteContextRecordStore implements ContextRecordStore {
  private readonly s;
  private readonly putTx;

  constructor(db: Db) {
    this.s = {
      upsert: db.prepare(`INSERT INTO context_records (turn_id, tenant_id, user_id, session_id, agent_id, status, total_tokens, created_at, record)
        VALUES (@turn_id, @tenant_id, @user_id, @session_id, @agent_id, @status, @total_tokens, @created_at, @record)
        ON CONFLICT (turn_id) DO UPDATE SET tenant_id = excluded.tenant_id, user_id = excluded.user_id, session_id = excluded.session_id,
          agent_id = excluded.agent_id, status = excluded.status, total_tokens = excluded.total_tokens, created_at = excluded.created_at, record = excluded.record`),
      count: db.prepare<[string, string], { n: number }>('SELECT COUNT(*) AS n FROM context_records WHERE tenant_id = ? AND user_id = ?'),
      prune: db.prepare(`DELETE FROM context_records WHERE turn_id IN (SELECT turn_id FROM context_records WHERE tenant_id = ? AND user_id = ?
        ORDER BY created_at, turn_id LIMIT ?)`),
      get: db.prepare('SELECT * FROM context_records WHERE turn_id = ? AND tenant_id = ?'),
      recent: db.prepare(`SELECT ${SUMMARY} FROM context_records WHERE tenant_id = ? AND user_id = ? ORDER BY created_at DESC, turn_id DESC LIMIT ?`),
    };
    this.putTx = db.transaction((row: ContextRecordRow, keep: number): number => {
      this.s.upsert.run(row);
      const n = this.s.count.get(row.tenant_id, row.user_id)?.n ?? 0;
      return n > keep ? this.s.prune.run(row.tenant_id, row.user_id, n - keep).changes : 0;
    });
  }

  put(row: ContextRecordRow, keepPerUser: number): number {
    return this.putTx.immediate(row, Math.max(1, keepPerUser));
  }

  get(turnId: string, tenantId: string): ContextRecordRow | undefined {
    return this.s.get.get(turnId, tenantId) as ContextRecordRow | undefined;
  }

  recent(tenantId: string, userId: string, limit: number): ContextRecordSummary[] {
    return this.s.recent.all(tenantId, userId, limit) as ContextRecordSummary[];
  }
}
