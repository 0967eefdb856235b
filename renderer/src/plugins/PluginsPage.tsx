/**
 * Plugins, admin page (issue 17 items 4 and 6; `GET /v1/admin/plugins`, `PUT /v1/admin/plugins/{id}
 * {roles, groups}`): every tool group (built-in, sandbox, knowledge, memory, each MCP server) with
 * its tools and who sees it, editable as role and group lists (both empty = everyone). A user who
 * does not see a group gets none of its tools, in any agent. Non-admins see their own view
 * (`UserPlugins`, also on the MCP page).
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { ProfileView } from '../api/types';
import { listOf, notAvailable, useFreshQuery } from '../agents/catalog';
import { TokenInput } from '../agents/TokenInput';
import { fieldErrors, type FieldErrors } from '../agents/field-errors';
import { Link } from '../app/Link';
import { audienceText, pluginLabel, type PluginPut, type PluginView } from './plugins';
import { UserPlugins } from './UserPlugins';
import '../agents/agents.css';

const ROLE_SUGGESTIONS = ['admin', 'user'] as const;

function PluginRow({ p }: { p: PluginView }) {
  const [roles, setRoles] = useState<string[]>(p.roles);
  const [groups, setGroups] = useState<string[]>(p.groups);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saved, setSaved] = useState(false);
  const changed = roles.join('\n') !== p.roles.join('\n') || groups.join('\n') !== p.groups.join('\n');
  const label = pluginLabel(p);
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setBusy(true); setErrors({}); setSaved(false);
    void (async () => {
      try {
        const body: PluginPut = { roles, groups };
        await api<PluginView>(`/v1/admin/plugins/${encodeURIComponent(p.id)}`, { method: 'PUT', json: body });
        invalidate('/v1/admin/plugins'); invalidate('/v1/user/plugins'); invalidate('/v1/tools');
        setSaved(true);
      } catch (err) { setErrors(fieldErrors(err)); } finally { setBusy(false); }
    })();
  };
  return (
    <li className="card catalog-item" aria-label={`Plugin ${p.id}`}>
      <form onSubmit={submit} className="catalog-form" aria-label={`Visibility of ${label}`}>
        <div className="catalog-head">
          <strong>{label}</strong><code className="small muted">{p.id}</code>
          <span className="small" data-testid="plugin-audience">Seen by {audienceText(p)}</span>
        </div>
        <p className="small muted" title={p.tools.join('\n')}>{p.tools.length ? `${p.tools.length} tool(s): ${p.tools.slice(0, 6).join(', ')}${p.tools.length > 6 ? '…' : ''}` : 'No tools registered now.'}</p>
        <div className="form-pair">
          <TokenInput label="Roles" values={roles} onChange={(v) => { setRoles(v); setSaved(false); }} suggestions={ROLE_SUGGESTIONS} placeholder="any role" error={errors.roles} />
          <TokenInput label="Groups" values={groups} onChange={(v) => { setGroups(v); setSaved(false); }} placeholder="any group" error={errors.groups} />
        </div>
        <div className="row-buttons">
          <button type="submit" className="primary" disabled={busy || !changed}>Save visibility</button>
          {(roles.length > 0 || groups.length > 0) && <button type="button" className="link" onClick={() => { setRoles([]); setGroups([]); setSaved(false); }}>Everyone</button>}
          {saved && !changed && <span className="ok small" role="status">Saved.</span>}
        </div>
        {errors[''] && <p className="error small" role="alert">{errors['']}</p>}
      </form>
    </li>
  );
}

export default function PluginsPage() {
  const me = useQuery<ProfileView>('/v1/user/me');
  const isAdmin = me.data?.roles.includes('admin') ?? false;
  const all = useFreshQuery<unknown>(isAdmin ? '/v1/admin/plugins' : null);
  const items = listOf<PluginView>(all.data);
  return (
    <div className="page catalog-page">
      <h1>Plugins</h1>
      <p className="muted">A plugin is a group of tools: the built-in ones, the code sandbox, knowledge search, memory, and each <Link to="/mcp">MCP server</Link>. Choose who sees each group by role or directory group; with none chosen everyone does. A user who does not see a group gets none of its tools, whatever the agent allows.</p>
      {!me.loading && !isAdmin && <UserPlugins />}
      {isAdmin && (
        <section aria-label="Plugin visibility">
          {notAvailable(all.error) && <p className="muted" role="status">Plugins are not available on this server yet.</p>}
          {all.error && !notAvailable(all.error) && <p className="error" role="alert">Plugins could not be loaded: {all.error.message}</p>}
          {!all.loading && !all.error && items.length === 0 && <div className="empty-box"><p className="muted">No tool groups.</p></div>}
          <ul className="catalog-list" aria-label="Plugins">
            {items.map((p) => <PluginRow key={p.id} p={p} />)}
          </ul>
        </section>
      )}
    </div>
  );
}
