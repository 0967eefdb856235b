/**
 * MCP servers and users' opt-outs on PostgreSQL (tables `mcp_servers`, `mcp_opt_outs`,
 * migrations/agent-runtime/pg/0002_integrations.sql; issue 21 item 1): the twin of store/mcp.ts.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { McpServerRow, McpServerStore } from '../../domain/mcp/ports.js';

const COLS = ['id', 'tenant_id', 'owner_id', 'name', 'transport', 'command', 'args_json', 'env_json', 'url', 'headers_json', 'trusted', 'oauth_client_json', 'created_by', 'created_at', 'updated_at'] as const;
const SELECT = `SELECT ${COLS.join(', ')} FROM mcp_servers`;
const C = 'COLLATE "C"';

/** `McpServerStore` over one service schema. */
export class PgMcpServerStore implements McpServerStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, id: string): Promise<McpServerRow | undefined> {
    const [r] = await this.db.query<McpServerRow>(`${SELECT} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r;
  }

  async list(tenantId: string, userId: string | null): Promise<McpServerRow[]> {
    return userId === null
      ? this.db.query<McpServerRow>(`${SELECT} WHERE tenant_id = $1 AND owner_id = '' ORDER BY name ${C}, id ${C}`, [tenantId])
      : this.db.query<McpServerRow>(`${SELECT} WHERE tenant_id = $1 AND (owner_id = '' OR owner_id = $2) ORDER BY owner_id <> '', name ${C}, id ${C}`, [tenantId, userId]);
  }

  async listAll(): Promise<McpServerRow[]> {
    return this.db.query<McpServerRow>(`${SELECT} ORDER BY tenant_id ${C}, id ${C}`);
  }

  async insert(row: McpServerRow): Promise<void> {
    await this.db.exec(`INSERT INTO mcp_servers (${COLS.join(', ')}) VALUES (${COLS.map((_, i) => `$${i + 1}`).join(', ')})`, COLS.map((c) => row[c]));
  }

  async update(row: McpServerRow): Promise<void> {
    await this.db.exec(`UPDATE mcp_servers SET name = $3, transport = $4, command = $5, args_json = $6, env_json = $7, url = $8, headers_json = $9,
      trusted = $10, oauth_client_json = $11, updated_at = $12 WHERE tenant_id = $1 AND id = $2`,
    [row.tenant_id, row.id, row.name, row.transport, row.command, row.args_json, row.env_json, row.url, row.headers_json, row.trusted, row.oauth_client_json, row.updated_at]);
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM mcp_opt_outs WHERE tenant_id = $1 AND server_id = $2', [tenantId, id]);
      return (await this.db.exec('DELETE FROM mcp_servers WHERE tenant_id = $1 AND id = $2', [tenantId, id])) > 0;
    });
  }

  async setOptOut(tenantId: string, userId: string, serverId: string, optedOut: boolean, at: string): Promise<void> {
    if (optedOut) {
      await this.db.exec('INSERT INTO mcp_opt_outs (tenant_id, user_id, server_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [tenantId, userId, serverId, at]);
    } else {
      await this.db.exec('DELETE FROM mcp_opt_outs WHERE tenant_id = $1 AND user_id = $2 AND server_id = $3', [tenantId, userId, serverId]);
    }
  }

  async optOuts(tenantId: string, userId: string): Promise<Set<string>> {
    const rows = await this.db.query<{ server_id: string }>('SELECT server_id FROM mcp_opt_outs WHERE tenant_id = $1 AND user_id = $2', [tenantId, userId]);
    return new Set(rows.map((r) => r.server_id));
  }
}
