/**
 * Admin tool policy rules over SQLite (table `tool_policies`). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { PolicyRow, PolicyStore } from '../domain/ports.js';

/** `PolicyStore` over one open database. */
export class SqlitePolicyStore implements PolicyStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      list: db.prepare('SELECT * FROM tool_policies WHERE tenant_id = ? ORDER BY tool, agent_id'),
      upsert: db.prepare(`INSERT INTO tool_policies (tenant_id, agent_id, tool, policy, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, agent_id, tool) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
      delete: db.prepare('DELETE FROM tool_policies WHERE tenant_id = ? AND agent_id = ? AND tool = ?'),
    };
  }

  list(tenantId: string): PolicyRow[] {
    return this.s.list.all(tenantId) as PolicyRow[];
  }

  upsert(tenantId: string, agentId: string, tool: string, policy: string, at: string, by: string | null): void {
    this.s.upsert.run(tenantId, agentId, tool, policy, at, by);
  }

  delete(tenantId: string, agentId: string, tool: string): boolean {
    return this.s.delete.run(tenantId, agentId, tool).changes > 0;
  }
}
