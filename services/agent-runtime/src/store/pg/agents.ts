/**
 * Agents on PostgreSQL (table `agents`, migrations/agent-runtime/pg/0002_integrations.sql; issue 21
 * item 1): the twin of store/agents.ts. Ordering as SQLite's: tenant rows first, then by name
 * folded ASCII-case-insensitively (SQLite's NOCASE) and compared bytewise (`COLLATE "C"`), then id.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AgentConfig, AgentRow, AgentStore } from '../../domain/agents/ports.js';

interface Raw { id: string; tenant_id: string; owner_id: string; scope: AgentRow['scope']; name: string; config_json: string; created_at: string; updated_at: string }

const fromRaw = (r: Raw): AgentRow => ({
  id: r.id, tenant_id: r.tenant_id, owner_id: r.owner_id, scope: r.scope, name: r.name, config: JSON.parse(r.config_json) as AgentConfig, created_at: r.created_at, updated_at: r.updated_at,
});

/** SQLite's `COLLATE NOCASE` as a PostgreSQL sort key of `col` (ASCII letters folded, then bytewise). */
export const nocase = (col: string): string => `translate(${col}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') COLLATE "C"`;

/** `AgentStore` over one service schema. */
export class PgAgentStore implements AgentStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, id: string): Promise<AgentRow | undefined> {
    const [r] = await this.db.query<Raw>('SELECT * FROM agents WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
    return r ? fromRaw(r) : undefined;
  }

  async visible(tenantId: string, ownerId: string): Promise<AgentRow[]> {
    const rows = await this.db.query<Raw>(`SELECT * FROM agents WHERE tenant_id = $1 AND (scope = 'tenant' OR owner_id = $2)
      ORDER BY scope = 'personal', ${nocase('name')}, id COLLATE "C"`, [tenantId, ownerId]);
    return rows.map(fromRaw);
  }

  async put(row: AgentRow): Promise<void> {
    await this.db.exec(`INSERT INTO agents (id, tenant_id, owner_id, scope, name, config_json, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
      ON CONFLICT (tenant_id, id) DO UPDATE SET name = excluded.name, config_json = excluded.config_json, updated_at = excluded.updated_at`,
    [row.id, row.tenant_id, row.owner_id, row.scope, row.name, JSON.stringify(row.config), row.created_at, row.updated_at]);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM agents WHERE tenant_id = $1 AND id = $2', [tenantId, id])) > 0;
  }
}
