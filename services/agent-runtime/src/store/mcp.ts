/**
 * MCP servers and users' opt-outs over SQLite (tables `mcp_servers`, `mcp_opt_outs`; migration
 * 0009; issue 17 item 3). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { McpServerRow, McpServerStore } from '../domain/mcp/ports.js';

/** `McpServerStore` over one open database. */
export class SqliteMcpServerStore implements McpServerStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare('SELECT * FROM mcp_servers WHERE tenant_id = ? AND id = ?'),
      listTenant: db.prepare("SELECT * FROM mcp_servers WHERE tenant_id = ? AND owner_id = '' ORDER BY name, id"),
      listVisible: db.prepare("SELECT * FROM mcp_servers WHERE tenant_id = ? AND (owner_id = '' OR owner_id = ?) ORDER BY owner_id <> '', name, id"),
      listAll: db.prepare('SELECT * FROM mcp_servers ORDER BY tenant_id, id'),
      insert: db.prepare(`INSERT INTO mcp_servers (id, tenant_id, owner_id, name, transport, command, args_json, env_json, url, headers_json, trusted, oauth_client_json, created_by, created_at, updated_at)
        VALUES (@id, @tenant_id, @owner_id, @name, @transport, @command, @args_json, @env_json, @url, @headers_json, @trusted, @oauth_client_json, @created_by, @created_at, @updated_at)`),
      update: db.prepare(`UPDATE mcp_servers SET name = @name, transport = @transport, command = @command, args_json = @args_json, env_json = @env_json,
        url = @url, headers_json = @headers_json, trusted = @trusted, oauth_client_json = @oauth_client_json, updated_at = @updated_at WHERE tenant_id = @tenant_id AND id = @id`),
      delete: db.prepare('DELETE FROM mcp_servers WHERE tenant_id = ? AND id = ?'),
      deleteOptOuts: db.prepare('DELETE FROM mcp_opt_outs WHERE tenant_id = ? AND server_id = ?'),
      optOut: db.prepare('INSERT OR IGNORE INTO mcp_opt_outs (tenant_id, user_id, server_id, created_at) VALUES (?, ?, ?, ?)'),
      optIn: db.prepare('DELETE FROM mcp_opt_outs WHERE tenant_id = ? AND user_id = ? AND server_id = ?'),
      optOuts: db.prepare('SELECT server_id FROM mcp_opt_outs WHERE tenant_id = ? AND user_id = ?'),
    };
  }

  get(tenantId: string, id: string): McpServerRow | undefined {
    return this.s.get.get(tenantId, id) as McpServerRow | undefined;
  }

  list(tenantId: string, userId: string | null): McpServerRow[] {
    return (userId === null ? this.s.listTenant.all(tenantId) : this.s.listVisible.all(tenantId, userId)) as McpServerRow[];
  }

  listAll(): McpServerRow[] {
    return this.s.listAll.all() as McpServerRow[];
  }

  insert(row: McpServerRow): void {
    this.s.insert.run(row);
  }

  update(row: McpServerRow): void {
    this.s.update.run(row);
  }

  delete(tenantId: string, id: string): boolean {
    this.s.deleteOptOuts.run(tenantId, id);
    return this.s.delete.run(tenantId, id).changes > 0;
  }

  setOptOut(tenantId: string, userId: string, serverId: string, optedOut: boolean, at: string): void {
    if (optedOut) this.s.optOut.run(tenantId, userId, serverId, at);
    else this.s.optIn.run(tenantId, userId, serverId);
  }

  optOuts(tenantId: string, userId: string): Set<string> {
    return new Set((this.s.optOuts.all(tenantId, userId) as Array<{ server_id: string }>).map((r) => r.server_id));
  }
}
