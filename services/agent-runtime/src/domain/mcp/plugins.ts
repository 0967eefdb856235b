/**
 * Plugins (issue 17 item 4; spec "Agent runtime surfaces": `/v1/user/plugins`, `/v1/admin/plugins/*`):
 * the registry's tool groups (`builtin`, `sandbox`, `knowledge`, `memory`, `mcp:<server_id>`) and
 * who sees them. No rule = everyone; a rule = callers with one of its roles or one of its groups
 * (admins see every group). A group a caller may not see is never offered nor run (a `ToolGate`).
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { PluginView } from '../../contracts.js';
import type { ToolGate } from '../tool-policy.js';
import type { ToolRegistry } from '../tool-registry.js';
import { serverOfSource } from './naming.js';
import type { McpServerStore } from './ports.js';

/** Who sees a plugin. */
export interface PluginRule { plugin: string; roles: string[]; groups: string[] }

/** Storage of plugin rules. */
export interface PluginRuleStore {
  list(tenantId: string): Awaitable<PluginRule[]>;
  /** Both lists empty: the rule is removed (everyone sees it). */
  put(tenantId: string, rule: PluginRule, at: string, by: string | null): Awaitable<void>;
}

/** A caller as the plugin gate sees them. */
export interface PluginSubject { roles?: readonly string[]; groups?: readonly string[] }

/** The group a registry source belongs to (`extra` hook tools count as `builtin`). */
export function pluginOf(source: string): string {
  return source === 'extra' ? 'builtin' : source;
}

/** The plugins of the runtime. */
export class Plugins {
  constructor(private readonly d: { rules: PluginRuleStore; registry: ToolRegistry; servers: McpServerStore }) {}

  private sees(rule: PluginRule | undefined, who: PluginSubject): boolean {
    if (!rule || (rule.roles.length === 0 && rule.groups.length === 0)) return true;
    if (who.roles?.includes('admin')) return true;
    return rule.roles.some((r) => who.roles?.includes(r)) || rule.groups.some((g) => who.groups?.includes(g));
  }

  /** Every plugin with its tools and rule; `who` given: only those they see (personal MCP servers only for their owner). */
  async list(tenantId: string, who: (PluginSubject & { userId: string }) | null): Promise<PluginView[]> {
    const rules = new Map((await this.d.rules.list(tenantId)).map((r) => [r.plugin, r]));
    const groups = new Map<string, string[]>();
    for (const p of ['builtin', 'sandbox', 'knowledge', 'memory']) groups.set(p, []);
    for (const t of this.d.registry.list()) {
      const p = pluginOf(t.source);
      if (!groups.has(p)) groups.set(p, []);
      groups.get(p)!.push(t.definition.function.name);
    }
    for (const s of await this.d.servers.list(tenantId, who?.userId ?? null)) if (!groups.has(`mcp:${s.id}`)) groups.set(`mcp:${s.id}`, []);
    const out: PluginView[] = [];
    for (const [id, tools] of groups) {
      const serverId = serverOfSource(id);
      const server = serverId ? await this.d.servers.get(tenantId, serverId) : undefined;
      if (serverId && (!server || (server.owner_id !== '' && server.owner_id !== who?.userId))) continue;
      const rule = rules.get(id);
      if (who && !this.sees(rule, who)) continue;
      out.push({ id, name: server?.name ?? id, tools, roles: rule?.roles ?? [], groups: rule?.groups ?? [] });
    }
    return out;
  }

  /** Set who sees `plugin`. @returns its view. */
  async put(tenantId: string, plugin: string, roles: string[], groups: string[], by: string | null): Promise<PluginView> {
    await this.d.rules.put(tenantId, { plugin, roles, groups }, new Date().toISOString(), by);
    return (await this.list(tenantId, null)).find((p) => p.id === plugin) ?? { id: plugin, name: plugin, tools: [], roles, groups };
  }

  /**
   * The gate of a caller: tools of plugins they may not see are never offered nor run. The rules are
   * read once here (the store answers later on PostgreSQL); the gate itself is synchronous.
   */
  async gate(tenantId: string, who: PluginSubject): Promise<ToolGate | null> {
    const rules = new Map((await this.d.rules.list(tenantId)).map((r) => [r.plugin, r]));
    if (rules.size === 0) return null;
    return (tool) => {
      const source = this.d.registry.get(tool)?.source;
      return source === undefined || this.sees(rules.get(pluginOf(source)), who);
    };
  }
}
