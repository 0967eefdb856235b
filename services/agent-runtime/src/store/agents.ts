/**
 * Agents over SQLite (table `agents`, migration 0008; issue 17 item 1). The configuration is kept
 * as JSON (`config_json`); name and scope are columns.
 */
import type { Db } from '../../../shared/db/open.js';
import type { AgentConfig, AgentRow, AgentStore } from '../domain/agents/ports.js';

interface Raw { id: string; tenant_id: string; owner_id: string; scope: AgentRow['scope']; name: string; config_json: string; created_at: string; updated_at: string }

const fromRaw = (r: Raw): AgentRow => ({
  id: r.id, tenant_id: r.tenant_id, owner_id: r.owner_id, scope: r.scope, name: r.name, config: JSON.parse(r.config_json) as AgentConfig, created_at: r.created_at, updated_at: r.updated_at,
});

/** `AgentStore` over one open database. */
export class SqliteAgentStore implements AgentStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], Raw>('SELECT * FROM agents WHERE tenant_id = ? AND id = ?'),
      visible: db.prepare<[string, string], Raw>(`SELECT * FROM agents WHERE tenant_id = ? AND (scope = 'tenant' OR owner_id = ?)
        ORDER BY scope = 'personal', name COLLATE NOCASE, id`),
      put: db.prepare(`INSERT INTO agents (id, tenant_id, owner_id, scope, name, config_json, created_at, updated_at)
        VALUES (@id, @tenant_id, @owner_id, @scope, @name, @config_json, @created_at, @updated_at)
        ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, config_json = excluded.config_json, updated_at = excluded.updated_at`),
      delete: db.prepare('DELETE FROM agents WHERE tenant_id = ? AND id = ?'),
    };
  }

  get(tenantId: string, id: string): AgentRow | undefined {
    const r = this.s.get.get(tenantId, id);
    return r ? fromRaw(r) : undefined;
  }

  visible(tenantId: string, ownerId: string): AgentRow[] {
    return this.s.visible.all(tenantId, ownerId).map(fromRaw);
  }

  put(row: AgentRow): void {
    const { config, ...rest } = row;
    this.s.put.run({ ...rest, config_json: JSON.stringify(config) });
  }

  delete(tenantId: string, id: string): boolean {
    return this.s.delete.run(tenantId, id).changes > 0;
  }
}
