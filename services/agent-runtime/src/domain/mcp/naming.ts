/**
 * How MCP tools are named and judged in the runtime's registry (issue 17 item 3). Pure.
 * Function names are `mcp_<8 chars of the server id>_<tool name>` cut to 64 characters (the last 8
 * characters of the ULID, lower case: its random part, so two servers made in the same second differ);
 * the registry source is `mcp:<server_id>`.
 */
import type { ToolPolicy } from '../../contracts.js';
import type { McpToolInfo } from './ports.js';

/** Registry source of a server's tools. */
export function mcpSource(serverId: string): string {
  return `mcp:${serverId}`;
}

/** The server id of a registry source, or null when the source is not an MCP server. */
export function serverOfSource(source: string): string | null {
  return source.startsWith('mcp:') ? source.slice(4) : null;
}

/** `mcp_<8 chars>_` of a server id. */
export function toolPrefix(serverId: string): string {
  return `mcp_${serverId.slice(-8).toLowerCase().replace(/[^a-z0-9]/g, '_')}_`;
}

/** The function name of `tool` of server `serverId` (invalid characters become `_`, cut to 64). */
export function mcpToolName(serverId: string, tool: string): string {
  return `${toolPrefix(serverId)}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);
}

/**
 * The default policy of an MCP tool: `ask`, unless the server is `trusted` and the tool's
 * annotations say it is read-only and not destructive (then `auto`). Annotations of untrusted
 * servers are ignored (the server could say anything).
 */
export function mcpToolPolicy(trusted: boolean, tool: McpToolInfo): ToolPolicy {
  const a = tool.annotations ?? {};
  if (trusted && a.readOnlyHint === true && a.destructiveHint !== true) return 'auto';
  return 'ask';
}
