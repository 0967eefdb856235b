/**
 * MCP OAuth records over SQLite (table `mcp_oauth`, migration 0014; issue 17 item 3). Rows hold the
 * sealed record (domain/mcp/oauth-vault.ts seals it) and the pending `state` in clear.
 */
import type { Db } from '../../../shared/db/open.js';
import type { McpOAuthRow, McpOAuthRowStore } from '../domain/mcp/oauth-vault.js';

/** `McpOAuthRowStore` over one open database. */
export class SqliteMcpOAuthStore implements McpOAuthRowStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string, string], McpOAuthRow>('SELECT * FROM mcp_oauth WHERE tenant_id = ? AND user_id = ? AND server_id = ?'),
      byState: db.prepare<[string], McpOAuthRow>('SELECT * FROM mcp_oauth WHERE state = ?'),
      put: db.prepare(`INSERT INTO mcp_oauth (tenant_id, user_id, server_id, state, state_expires_at, authorized, key_id, iv, tag, ciphertext, updated_at)
        VALUES (@tenant_id, @user_id, @server_id, @state, @state_expires_at, @authorized, @key_id, @iv, @tag, @ciphertext, @updated_at)
        ON CONFLICT (tenant_id, user_id, server_id) DO UPDATE SET state = excluded.state, state_expires_at = excluded.state_expires_at,
          authorized = excluded.authorized, key_id = excluded.key_id, iv = excluded.iv, tag = excluded.tag, ciphertext = excluded.ciphertext,
          updated_at = excluded.updated_at`),
      delete: db.prepare('DELETE FROM mcp_oauth WHERE tenant_id = ? AND user_id = ? AND server_id = ?'),
    };
  }

  get(tenantId: string, userId: string, serverId: string): McpOAuthRow | undefined {
    return this.s.get.get(tenantId, userId, serverId);
  }

  byState(state: string): McpOAuthRow | undefined {
    return this.s.byState.get(state);
  }

  put(row: McpOAuthRow): void {
    this.s.put.run(row);
  }

  delete(tenantId: string, userId: string, serverId: string): void {
    this.s.delete.run(tenantId, userId, serverId);
  }
}
