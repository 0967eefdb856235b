/**
 * The MCP server behind an approval (issue 17 item 6): MCP tools are offered as
 * `mcp_<8 chars of the server id>_<tool>`; the approval card names the server and the tool. The
 * server comes from the approval itself when it carries it (`server: {id, name, tool}`), else from
 * the user's server list (`GET /v1/user/mcp-servers`) matched on the id fragment.
 */
import { useQuery } from '../api/cache';
import type { ApprovalView, McpServerView } from '../api/types';
import { listOf } from '../agents/catalog';

const MCP_NAME = /^mcp_([A-Za-z0-9]{8})_(.+)$/;

/** `{fragment, tool}` of an MCP function name, or null for other tools. */
export function mcpToolName(fn: string): { fragment: string; tool: string } | null {
  const m = MCP_NAME.exec(fn);
  return m ? { fragment: m[1]!, tool: m[2]! } : null;
}

/** The server whose id `fragment` comes from (its `tool_prefix`, else the id's last or first 8 characters, case-insensitive). */
export function serverOfFragment(servers: McpServerView[], fragment: string): McpServerView | null {
  const f = fragment.toLowerCase();
  return servers.find((s) => s.tool_prefix === `mcp_${f}_`) ?? servers.find((s) => s.id.toLowerCase().endsWith(f) || s.id.toLowerCase().startsWith(f)) ?? null;
}

/** "MCP server <name> · tool <tool>" line of an approval card; nothing for non-MCP tools. */
export function ApprovalServer({ approval }: { approval: ApprovalView }) {
  // issue 17 item 3: `approval_required` carries `server: {id, name, tool}` for MCP tools.
  const loose = approval as ApprovalView & { server?: { id?: string; name?: string; tool?: string } };
  const parsed = mcpToolName(approval.tool);
  const given = loose.server?.name ?? null;
  const servers = useQuery<unknown>(parsed && !given ? '/v1/user/mcp-servers' : null);
  if (!parsed && !given) return null;
  const found = parsed ? serverOfFragment(listOf<McpServerView>(servers.data), parsed.fragment) : null;
  const name = given ?? found?.name ?? `server ${parsed?.fragment ?? '?'}`;
  return (
    <div className="approval-server muted" data-testid="approval-server">
      MCP server <strong>{name}</strong>{(loose.server?.tool ?? parsed?.tool) && <> · tool <code>{loose.server?.tool ?? parsed?.tool}</code></>}
    </div>
  );
}
