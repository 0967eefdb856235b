/**
 * An MCP server's tools with their approval policy (issue 17 item 6). The tools offered to the user
 * come from `GET /v1/tools` (source `mcp:<server_id>`, function names `mcp_<id8>_<tool>`, effective
 * policy); an admin also sees the server's own list (`GET /v1/admin/mcp-servers/{id}/tools`) and sets
 * a tool's policy through the tool policy route (`PUT /v1/admin/policies/tools/{name} {policy}`,
 * reset = DELETE). MCP tools default to `ask`.
 */
import { invalidate } from '../api/cache';
import { api } from '../api/http';
import type { McpToolList, ToolList } from '../api/types';
import { useAction } from '../app/use-action';
import { listOf, notAvailable, useFreshQuery } from '../agents/catalog';

interface Row { tool: string; fn: string | null; description: string; policy: string | null }

function PolicyCell({ fn, policy, admin }: { fn: string | null; policy: string | null; admin: boolean }) {
  const act = useAction();
  if (!fn) return <span className="muted small">not offered yet</span>;
  if (!admin) return <span className={`policy policy-${policy ?? 'ask'}`}>{policy ?? 'ask'}</span>;
  const set = (value: string): void => {
    void act.run(async () => {
      const path = `/v1/admin/policies/tools/${encodeURIComponent(fn)}`;
      if (value === '') await api(path, { method: 'DELETE' }); else await api(path, { method: 'PUT', json: { policy: value } });
      invalidate('/v1/tools');
      invalidate('/v1/admin/policies');
    });
  };
  return (
    <>
      <select aria-label={`Approval of ${fn}`} value={policy ?? 'ask'} disabled={act.busy} onChange={(e) => set(e.target.value)}>
        <option value="ask">ask: approval first</option><option value="auto">auto: run</option><option value="deny">deny: never</option>
      </select>
      {act.error && <span className="error small" role="alert"> {act.error}</span>}
    </>
  );
}

/** Tools of server `id` (name for labels); `adminBase` set = the admin's view with policy controls. */
export function ServerTools({ id, name, adminBase }: { id: string; name: string; adminBase: string | null }) {
  const offered = useFreshQuery<ToolList>('/v1/tools');
  const own = useFreshQuery<unknown>(adminBase ? `${adminBase}/tools` : null);
  const mine = (offered.data?.items ?? []).filter((t) => t.source === `mcp:${id}`);
  const rows: Row[] = [];
  const seen = new Set<string>();
  // The admin listing names the registry function (`name`) and the server's own tool (`tool`).
  for (const t of listOf<McpToolList['items'][number]>(own.data)) {
    seen.add(t.name);
    rows.push({ tool: t.tool, fn: t.name, description: t.description, policy: mine.find((m) => m.name === t.name)?.policy ?? t.policy });
  }
  for (const m of mine) if (!seen.has(m.name)) rows.push({ tool: m.name, fn: m.name, description: m.description, policy: m.policy });
  const loading = offered.loading || own.loading;
  return (
    <section aria-label={`Tools of ${name}`} className="mcp-tools">
      {own.error && !notAvailable(own.error) && <p className="error small">The server's tools could not be listed: {own.error.message}</p>}
      {!loading && rows.length === 0 && <p className="muted small">No tools listed{own.error || !adminBase ? ' (they appear once the runtime has connected to the server)' : ''}.</p>}
      {rows.length > 0 && (
        <table className="table">
          <thead><tr><th>Tool</th><th>What it does</th><th>Approval</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.fn ?? r.tool}><td><code title={r.fn ?? undefined}>{r.tool}</code></td><td className="small">{r.description}</td><td><PolicyCell fn={r.fn} policy={r.policy} admin={!!adminBase} /></td></tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
