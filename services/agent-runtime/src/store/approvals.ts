/**
 * Approval requests over SQLite (table `approvals`). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { ApprovalRow, ApprovalStore } from '../domain/ports.js';

/** `ApprovalStore` over one open database. */
export class SqliteApprovalStore implements ApprovalStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insert: db.prepare(`INSERT INTO approvals (id, tenant_id, user_id, session_id, agent_id, turn_id, tool, call_id, arguments, status, reason,
        created_at, expires_at, decided_at, decided_by) VALUES (@id, @tenant_id, @user_id, @session_id, @agent_id, @turn_id, @tool, @call_id, @arguments,
        @status, @reason, @created_at, @expires_at, @decided_at, @decided_by)`),
      get: db.prepare('SELECT * FROM approvals WHERE id = ? AND tenant_id = ?'),
      decide: db.prepare(`UPDATE approvals SET status = ?, reason = ?, decided_at = ?, decided_by = ? WHERE id = ? AND tenant_id = ? AND status = 'pending'`),
      cancelPending: db.prepare(`UPDATE approvals SET status = 'cancelled', reason = 'runtime restarted', decided_at = ? WHERE status = 'pending'`),
    };
  }

  insert(row: ApprovalRow): void {
    this.s.insert.run(row);
  }

  get(id: string, tenantId: string): ApprovalRow | undefined {
    return this.s.get.get(id, tenantId) as ApprovalRow | undefined;
  }

  decide(id: string, tenantId: string, status: string, reason: string | null, at: string, by: string | null): boolean {
    return this.s.decide.run(status, reason, at, by, id, tenantId).changes > 0;
  }

  list(tenantId: string, userId: string | null, status: string | null, limit: number): ApprovalRow[] {
    const where = ['tenant_id = ?'];
    const args: unknown[] = [tenantId];
    if (userId !== null) { where.push('user_id = ?'); args.push(userId); }
    if (status !== null) { where.push('status = ?'); args.push(status); }
    args.push(limit);
    return this.db.prepare(`SELECT * FROM approvals WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`).all(...args) as ApprovalRow[];
  }

  cancelPending(at: string): number {
    return this.s.cancelPending.run(at).changes;
  }
}
