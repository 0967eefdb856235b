/**
 * Plugin visibility on PostgreSQL (table `plugin_visibility`, migrations/agent-runtime/pg/0002_integrations.sql;
 * issue 21 item 1): the twin of store/mcp-plugins.ts.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { PluginRule, PluginRuleStore } from '../../domain/mcp/plugins.js';

/** `PluginRuleStore` over one service schema. */
export class PgPluginRuleStore implements PluginRuleStore {
  constructor(private readonly db: PgDb) {}

  async list(tenantId: string): Promise<PluginRule[]> {
    const rows = await this.db.query<{ plugin: string; roles_json: string; groups_json: string }>(
      'SELECT plugin, roles_json, groups_json FROM plugin_visibility WHERE tenant_id = $1 ORDER BY plugin COLLATE "C"', [tenantId]);
    return rows.map((r) => ({ plugin: r.plugin, roles: JSON.parse(r.roles_json) as string[], groups: JSON.parse(r.groups_json) as string[] }));
  }

  async put(tenantId: string, rule: PluginRule, at: string, by: string | null): Promise<void> {
    if (rule.roles.length === 0 && rule.groups.length === 0) {
      await this.db.exec('DELETE FROM plugin_visibility WHERE tenant_id = $1 AND plugin = $2', [tenantId, rule.plugin]);
      return;
    }
    await this.db.exec(`INSERT INTO plugin_visibility (tenant_id, plugin, roles_json, groups_json, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
      ON CONFLICT (tenant_id, plugin) DO UPDATE SET roles_json = excluded.roles_json, groups_json = excluded.groups_json, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    [tenantId, rule.plugin, JSON.stringify(rule.roles), JSON.stringify(rule.groups), at, by]);
  }
}
