/**
 * Approvals and tool policies on PostgreSQL (issue 21 item 1; tables `approvals`, `tool_policies`
 * of migrations/agent-runtime/pg/0001_core.sql): the twins of store/approvals.ts and
 * store/policies.ts, answering the same rows in the same order.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { ApprovalRow, ApprovalStore, PolicyRow, PolicyStore } from '../../domain/ports.js';

const APPROVAL_COLS = 'id, tenant_id, user_id, session_id, agent_id, turn_id, tool, call_id, arguments, status, reason, created_at, expires_at, decided_at, decided_by';

/** `ApprovalStore` on one schema. */
export class PgApprovalStore implements ApprovalStore {
  constructor(private readonly db: PgDb) {}

  async insert(r: ApprovalRow): Promise<void> {
    await this.db.exec(`INSERT INTO approvals (${APPROVAL_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
      r.id, r.tenant_id, r.user_id, r.session_id, r.agent_id, r.turn_id, r.tool, r.call_id, r.arguments, r.status, r.reason, r.created_at, r.expires_at,
      r.decided_at, r.decided_by,
    ]);
  }

  async get(id: string, tenantId: string): Promise<ApprovalRow | undefined> {
    const [r] = await this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLS} FROM approvals WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    return r;
  }

  async decide(id: string, tenantId: string, status: string, reason: string | null, at: string, by: string | null): Promise<boolean> {
    return (await this.db.exec(`UPDATE approvals SET status = $1, reason = $2, decided_at = $3, decided_by = $4 WHERE id = $5 AND tenant_id = $6 AND status = 'pending'`,
      [status, reason, at, by, id, tenantId])) > 0;
  }

  async list(tenantId: string, userId: string | null, status: string | null, limit: number): Promise<ApprovalRow[]> {
    const args: unknown[] = [tenantId];
    const where = ['tenant_id = $1'];
    if (userId !== null) { args.push(userId); where.push(`user_id = $${args.length}`); }
    if (status !== null) { args.push(status); where.push(`status = $${args.length}`); }
    args.push(limit);
    return this.db.query<ApprovalRow>(`SELECT ${APPROVAL_COLS} FROM approvals WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${args.length}`, args);
  }

  async cancelPending(at: string): Promise<number> {
    return this.db.exec(`UPDATE approvals SET status = 'cancelled', reason = 'runtime restarted', decided_at = $1 WHERE status = 'pending'`, [at]);
  }
}

/** `PolicyStore` on one schema. */
export class PgPolicyStore implements PolicyStore {
  constructor(private readonly db: PgDb) {}

  async list(tenantId: string): Promise<PolicyRow[]> {
    return this.db.query<PolicyRow>('SELECT tenant_id, agent_id, tool, policy, updated_at, updated_by FROM tool_policies WHERE tenant_id = $1 ORDER BY tool, agent_id', [tenantId]);
  }

  async upsert(tenantId: string, agentId: string, tool: string, policy: string, at: string, by: string | null): Promise<void> {
    await this.db.exec(`INSERT INTO tool_policies (tenant_id, agent_id, tool, policy, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (tenant_id, agent_id, tool) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [tenantId, agentId, tool, policy, at, by]);
  }

  async delete(tenantId: string, agentId: string, tool: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM tool_policies WHERE tenant_id = $1 AND agent_id = $2 AND tool = $3', [tenantId, agentId, tool])) > 0;
  }
}
