/**
 * Plugins (issue 17 item 4; spec "Agent runtime surfaces" `/v1/user/plugins`, `/v1/admin/plugins/*`):
 * a tool group (`builtin`, `sandbox`, `knowledge`, `memory` or `mcp:<server_id>`) and who sees it.
 * Shapes of services/agent-runtime/src/contracts/mcp.ts (`PluginView`, `PluginPutSchema`).
 */

/** A tool group as `GET /v1/user/plugins` and `GET /v1/admin/plugins` list it (`{items}`). */
export interface PluginView {
  /** `builtin`, `sandbox`, `knowledge`, `memory` or `mcp:<server_id>`. */
  id: string;
  /** The MCP server's name for `mcp:*`, else the id. */
  name: string;
  /** Function names of its tools as registered now. */
  tools: string[];
  /** Roles that see it; empty roles and groups = everyone. */
  roles: string[];
  /** Directory groups that see it. */
  groups: string[];
}

/** Body of `PUT /v1/admin/plugins/{id}` (both empty = everyone). */
export interface PluginPut { roles: string[]; groups: string[] }

const GROUP_LABELS: Record<string, string> = {
  builtin: 'Built-in tools', sandbox: 'Code sandbox', knowledge: 'Knowledge search', memory: 'Memory',
};

/** Readable name of a plugin: the group's label, or "MCP: <server name>". */
export function pluginLabel(p: Pick<PluginView, 'id' | 'name'>): string {
  if (p.id.startsWith('mcp:')) return `MCP: ${p.name && p.name !== p.id ? p.name : p.id.slice(4)}`;
  return GROUP_LABELS[p.id] ?? p.name ?? p.id;
}

/** "Everyone", or "roles admin · groups legal" for a restricted plugin. */
export function audienceText(p: Pick<PluginView, 'roles' | 'groups'>): string {
  if (!p.roles.length && !p.groups.length) return 'everyone';
  return [p.roles.length ? `roles ${p.roles.join(', ')}` : '', p.groups.length ? `groups ${p.groups.join(', ')}` : ''].filter(Boolean).join(' · ');
}
