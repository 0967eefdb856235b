/** `guard_policies` on PostgreSQL (issue 21 item 1): the twin of store/policies.ts (policy JSON kept as text). */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { PolicyOverride } from '../../contracts.js';
import type { PolicyRecord, PolicyStore } from '../../domain/ports.js';

interface Row { tenant_id: string; agent_id: string; policy_json: string; updated_at: string; updated_by: string }

/** PostgreSQL implementation of `PolicyStore`. */
export class PgPolicies implements PolicyStore {
  constructor(private readonly db: PgDb) {}

  async getPolicy(tenantId: string, agentId: string): Promise<PolicyRecord | null> {
    const [r] = await this.db.query<Row>('SELECT * FROM guard_policies WHERE tenant_id = $1 AND agent_id = $2', [tenantId, agentId]);
    return r ? { tenant_id: r.tenant_id, agent_id: r.agent_id, policy: JSON.parse(r.policy_json) as PolicyOverride, updated_at: r.updated_at, updated_by: r.updated_by } : null;
  }

  async putPolicy(tenantId: string, agentId: string, policy: PolicyOverride, by: string): Promise<void> {
    await this.db.exec(`INSERT INTO guard_policies (tenant_id, agent_id, policy_json, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (tenant_id, agent_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [tenantId, agentId, JSON.stringify(policy), new Date().toISOString(), by]);
  }

  async deletePolicy(tenantId: string, agentId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM guard_policies WHERE tenant_id = $1 AND agent_id = $2', [tenantId, agentId])) > 0;
  }
}
