/**
 * MCP OAuth records on PostgreSQL (table `mcp_oauth`, migrations/agent-runtime/pg/0002_integrations.sql;
 * issue 21 item 1): the twin of store/mcp-oauth.ts (sealed record as bytea, pending `state` in clear).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { McpOAuthRow, McpOAuthRowStore } from '../../domain/mcp/oauth-vault.js';

const COLS = ['tenant_id', 'user_id', 'server_id', 'state', 'state_expires_at', 'authorized', 'key_id', 'iv', 'tag', 'ciphertext', 'updated_at'] as const;
const SELECT = `SELECT ${COLS.join(', ')} FROM mcp_oauth`;

/** `McpOAuthRowStore` over one service schema. */
export class PgMcpOAuthStore implements McpOAuthRowStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, userId: string, serverId: string): Promise<McpOAuthRow | undefined> {
    const [r] = await this.db.query<McpOAuthRow>(`${SELECT} WHERE tenant_id = $1 AND user_id = $2 AND server_id = $3`, [tenantId, userId, serverId]);
    return r;
  }

  async byState(state: string): Promise<McpOAuthRow | undefined> {
    const [r] = await this.db.query<McpOAuthRow>(`${SELECT} WHERE state = $1`, [state]);
    return r;
  }

  async put(row: McpOAuthRow): Promise<void> {
    await this.db.exec(`INSERT INTO mcp_oauth (${COLS.join(', ')}) VALUES (${COLS.map((_, i) => `$${i + 1}`).join(', ')})
      ON CONFLICT (tenant_id, user_id, server_id) DO UPDATE SET state = excluded.state, state_expires_at = excluded.state_expires_at,
        authorized = excluded.authorized, key_id = excluded.key_id, iv = excluded.iv, tag = excluded.tag, ciphertext = excluded.ciphertext,
        updated_at = excluded.updated_at`, COLS.map((c) => row[c]));
  }

  async delete(tenantId: string, userId: string, serverId: string): Promise<void> {
    await this.db.exec('DELETE FROM mcp_oauth WHERE tenant_id = $1 AND user_id = $2 AND server_id = $3', [tenantId, userId, serverId]);
  }
}
