/** `guard_policies` (migrations/guardrail/): policy overrides per tenant and agent ('' = tenant level), as JSON. */
import type { Db } from '../../../shared/db/open.js';
import type { PolicyOverride } from '../contracts.js';
import type { PolicyRecord, PolicyStore } from '../domain/ports.js';

interface Row { tenant_id: string; agent_id: string; policy_json: string; updated_at: string; updated_by: string }

/** SQLite implementation of `PolicyStore`. */
export class SqlitePolicies implements PolicyStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      get: db.prepare<[string, string], Row>('SELECT * FROM guard_policies WHERE tenant_id = ? AND agent_id = ?'),
      upsert: db.prepare<[string, string, string, string, string]>(`INSERT INTO guard_policies (tenant_id, agent_id, policy_json, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, agent_id) DO UPDATE SET policy_json = excluded.policy_json, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
      delete: db.prepare<[string, string]>('DELETE FROM guard_policies WHERE tenant_id = ? AND agent_id = ?'),
    };
  }

  getPolicy(tenantId: string, agentId: string): PolicyRecord | null {
    const r = this.q.get.get(tenantId, agentId);
    return r ? { tenant_id: r.tenant_id, agent_id: r.agent_id, policy: JSON.parse(r.policy_json) as PolicyOverride, updated_at: r.updated_at, updated_by: r.updated_by } : null;
  }

  putPolicy(tenantId: string, agentId: string, policy: PolicyOverride, by: string): void {
    this.q.upsert.run(tenantId, agentId, JSON.stringify(policy), new Date().toISOString(), by);
  }

  deletePolicy(tenantId: string, agentId: string): boolean {
    return this.q.delete.run(tenantId, agentId).changes > 0;
  }
}
