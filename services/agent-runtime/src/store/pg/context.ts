/**
 * Context records on PostgreSQL (issue 21 item 1; table `context_records` of
 * migrations/agent-runtime/pg/0001_core.sql): the twin of store/context.ts. A write and the pruning
 * of the user's oldest records beyond the cap run in one transaction under a per-user advisory lock.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { ContextRecordRow, ContextRecordStore, ContextRecordSummary } from '../../domain/context/ports.js';

const SUMMARY = 'turn_id, tenant_id, user_id, session_id, agent_id, status, total_tokens, created_at';
/** First key of the advisory locks of this table group. */
const LOCK_CONTEXT = 21_102;

/** `ContextRecordStore` on one schema. */
export class PgContextRecordStore implements ContextRecordStore {
  constructor(private readonly db: PgDb) {}

  put(r: ContextRecordRow, keepPerUser: number): Promise<number> {
    const keep = Math.max(1, keepPerUser);
    return this.db.tx(async () => {
      await this.db.query("SELECT pg_advisory_xact_lock($1, hashtext($2 || ' ' || $3))", [LOCK_CONTEXT, r.tenant_id, r.user_id]);
      await this.db.exec(`INSERT INTO context_records (${SUMMARY}, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
        ON CONFLICT (turn_id) DO UPDATE SET tenant_id = excluded.tenant_id, user_id = excluded.user_id, session_id = excluded.session_id,
          agent_id = excluded.agent_id, status = excluded.status, total_tokens = excluded.total_tokens, created_at = excluded.created_at, record = excluded.record`,
      [r.turn_id, r.tenant_id, r.user_id, r.session_id, r.agent_id, r.status, r.total_tokens, r.created_at, r.record]);
      const [c] = await this.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM context_records WHERE tenant_id = $1 AND user_id = $2', [r.tenant_id, r.user_id]);
      const n = c?.n ?? 0;
      return n > keep ? this.db.exec(`DELETE FROM context_records WHERE turn_id IN (SELECT turn_id FROM context_records WHERE tenant_id = $1 AND user_id = $2
        ORDER BY created_at, turn_id LIMIT $3)`, [r.tenant_id, r.user_id, n - keep]) : 0;
    });
  }

  async get(turnId: string, tenantId: string): Promise<ContextRecordRow | undefined> {
    const [r] = await this.db.query<ContextRecordRow>(`SELECT ${SUMMARY}, record FROM context_records WHERE turn_id = $1 AND tenant_id = $2`, [turnId, tenantId]);
    return r;
  }

  async recent(tenantId: string, userId: string, limit: number): Promise<ContextRecordSummary[]> {
    return this.db.query<ContextRecordSummary>(`SELECT ${SUMMARY} FROM context_records WHERE tenant_id = $1 AND user_id = $2
      ORDER BY created_at DESC, turn_id DESC LIMIT $3`, [tenantId, userId, limit]);
  }
}
