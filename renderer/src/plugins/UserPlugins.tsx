/**
 * The caller's plugins, read-only (issue 17 item 4; `GET /v1/user/plugins`): the tool groups this
 * user sees, with their tools. Shown on the MCP page and, for non-admins, on the Plugins page.
 */
import { listOf, notAvailable, useFreshQuery } from '../agents/catalog';
import { pluginLabel, type PluginView } from './plugins';

/** The tool groups the signed-in user may use. */
export function UserPlugins() {
  const q = useFreshQuery<unknown>('/v1/user/plugins');
  const items = listOf<PluginView>(q.data);
  if (notAvailable(q.error)) return null;
  return (
    <section aria-label="Your tool groups" className="user-plugins">
      <h2>Tool groups you can use</h2>
      {q.error && <p className="error small" role="alert">Tool groups could not be loaded: {q.error.message}</p>}
      {!q.loading && !q.error && items.length === 0 && <p className="muted small">No tool groups are open to you.</p>}
      {items.length > 0 && (
        <table className="table plugin-table">
          <thead><tr><th>Group</th><th>Tools</th></tr></thead>
          <tbody>
            {items.map((p) => (
              <tr key={p.id}><td>{pluginLabel(p)}</td><td className="small" title={p.tools.join('\n')}>{p.tools.length ? p.tools.join(', ') : '—'}</td></tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
