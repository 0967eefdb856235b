/**
 * Plugin visibility over SQLite (table `plugin_visibility`, migration 0009; issue 17 item 4).
 */
import type { Db } from '../../../shared/db/open.js';
import type { PluginRule, PluginRuleStore } from '../domain/mcp/plugins.js';

/** `PluginRuleStore` over one open database. */
export class SqlitePluginRuleStore implements PluginRuleStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      list: db.prepare('SELECT plugin, roles_json, groups_json FROM plugin_visibility WHERE tenant_id = ?'),
      upsert: db.prepare(`INSERT INTO plugin_visibility (tenant_id, plugin, roles_json, groups_json, updated_at, updated_by) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (tenant_id, plugin) DO UPDATE SET roles_json = excluded.roles_json, groups_json = excluded.groups_json, updated_at = excluded.updated_at, updated_by = excluded.updated_by`),
      delete: db.prepare('DELETE FROM plugin_visibility WHERE tenant_id = ? AND plugin = ?'),
    };
  }

  list(tenantId: string): PluginRule[] {
    return (this.s.list.all(tenantId) as Array<{ plugin: string; roles_json: string; groups_json: string }>).map((r) => ({
      plugin: r.plugin, roles: JSON.parse(r.roles_json) as string[], groups: JSON.parse(r.groups_json) as string[],
    }));
  }

  put(tenantId: string, rule: PluginRule, at: string, by: string | null): void {
    if (rule.roles.length === 0 && rule.groups.length === 0) this.s.delete.run(tenantId, rule.plugin);
    else this.s.upsert.run(tenantId, rule.plugin, JSON.stringify(rule.roles), JSON.stringify(rule.groups), at, by);
  }
}
