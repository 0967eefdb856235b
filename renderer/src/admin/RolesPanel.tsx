/**
 * Admin → Roles (issue 13 item 8; `GET /v1/admin/roles`, `/v1/admin/roles/profiles`): the fixed
 * roles, the group -> role map, and the permission profiles that decide which agents, tools and
 * knowledge a role or group may use. A profile applies when the caller's roles or groups intersect;
 * effective access is the union. Tools gate the tool list and chat, agents the chat, knowledge every
 * knowledge read (search, lists, documents, the chat's grounding).
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { PermissionProfile, ProfileInput, RolesView } from '../api/types';
import { useAction } from '../app/use-action';
import { splitList } from './admin-live';

const ROLES_URL = '/v1/admin/roles';
const PROFILES_URL = '/v1/admin/roles/profiles';
const ACCOUNT_ROLES = ['user', 'admin', 'tenant_admin', 'platform_admin'] as const;

const listText = (l: readonly string[] | undefined): string => (l ?? []).join(', ');

/** The create / edit form of a profile. */
function ProfileForm({ current, tools, onDone }: { current: PermissionProfile | null; tools: string[]; onDone: () => void }) {
  const [name, setName] = useState(current?.name ?? '');
  const [roles, setRoles] = useState<string[]>(current?.roles ?? []);
  const [groups, setGroups] = useState(listText(current?.groups));
  const [toolText, setToolText] = useState(listText(current?.tools));
  const [agents, setAgents] = useState(listText(current?.agents));
  const [audiences, setAudiences] = useState(listText(current?.knowledge.audiences));
  const [tags, setTags] = useState(listText(current?.knowledge.tags));
  const act = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const body: ProfileInput = {
      name, roles, groups: splitList(groups), tools: splitList(toolText), agents: splitList(agents),
      knowledge: { ...(audiences.trim() ? { audiences: splitList(audiences) } : {}), ...(tags.trim() ? { tags: splitList(tags) } : {}) },
    };
    const ok = await act.run(async () => {
      await api(current ? `${PROFILES_URL}/${encodeURIComponent(current.id)}` : PROFILES_URL, { method: current ? 'PUT' : 'POST', json: body });
      invalidate(ROLES_URL);
    });
    if (ok) onDone();
  };
  const toggle = (r: string): void => setRoles((rs) => (rs.includes(r) ? rs.filter((x) => x !== r) : [...rs, r]));
  return (
    <form className="card form-grid roles-form" onSubmit={(e) => { void submit(e); }} aria-label={current ? `Edit profile ${current.name}` : 'New permission profile'}>
      <h3>{current ? `Edit “${current.name}”` : 'New permission profile'}</h3>
      <label htmlFor="pp-name">Name</label>
      <input id="pp-name" required maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
      <span className="label-like">Roles</span>
      <div className="chips" role="group" aria-label="Roles">
        {ACCOUNT_ROLES.map((r) => (
          <label key={r} className="small"><input type="checkbox" checked={roles.includes(r)} onChange={() => toggle(r)} /> {r}</label>
        ))}
      </div>
      <label htmlFor="pp-groups">Groups</label>
      <input id="pp-groups" value={groups} onChange={(e) => setGroups(e.target.value)} placeholder="Finance, Night shift (from the identity provider)" />
      <label htmlFor="pp-tools">Tools</label>
      <input id="pp-tools" value={toolText} onChange={(e) => setToolText(e.target.value)} placeholder="empty = not restricted; * = every tool; knowledge_* = a prefix" list="pp-tool-names" />
      <datalist id="pp-tool-names">{tools.map((t) => <option key={t} value={t} />)}</datalist>
      <label htmlFor="pp-agents">Agents</label>
      <input id="pp-agents" value={agents} onChange={(e) => setAgents(e.target.value)} placeholder="default" />
      <label htmlFor="pp-aud">Knowledge audiences</label>
      <input id="pp-aud" value={audiences} onChange={(e) => setAudiences(e.target.value)} placeholder="legal, staff" />
      <label htmlFor="pp-tags">Knowledge tags</label>
      <input id="pp-tags" value={tags} onChange={(e) => setTags(e.target.value)} placeholder="policy, hr" />
      <div className="cell-actions">
        <button type="submit" className="primary" disabled={act.busy}>{current ? 'Save' : 'Create profile'}</button>
        <button type="button" className="link" onClick={onDone}>Cancel</button>
      </div>
      {act.error && <p className="error" role="alert">{act.error}</p>}
    </form>
  );
}

function ProfileRow({ p, onEdit }: { p: PermissionProfile; onEdit: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const act = useAction();
  const remove = async (): Promise<void> => {
    await act.run(async () => { await api(`${PROFILES_URL}/${encodeURIComponent(p.id)}`, { method: 'DELETE' }); invalidate(ROLES_URL); });
    setConfirming(false);
  };
  const know = [...(p.knowledge.audiences ?? []).map((a) => `audience ${a}`), ...(p.knowledge.tags ?? []).map((t) => `tag ${t}`)];
  return (
    <tr data-testid="roles-profile-row" data-profile={p.id}>
      <td><strong>{p.name}</strong></td>
      <td>{[...p.roles, ...p.groups.map((g) => `group ${g}`)].join(', ') || <span className="muted">nobody</span>}</td>
      <td>{p.tools.length ? p.tools.map((t) => <code key={t} className="pp-tag">{t}</code>) : <span className="muted">not restricted</span>}</td>
      <td>{p.agents.length ? p.agents.join(', ') : <span className="muted">—</span>}</td>
      <td className="small">{know.join(', ') || <span className="muted">—</span>}</td>
      <td><div className="cell-actions">
        <button type="button" className="link" onClick={onEdit} aria-label={`Edit ${p.name}`}>Edit</button>
        {confirming ? (
          <>
            <button type="button" className="link danger" disabled={act.busy} onClick={() => { void remove(); }} aria-label={`Confirm delete ${p.name}`}>Delete</button>
            <button type="button" className="link" onClick={() => setConfirming(false)}>Cancel</button>
          </>
        ) : <button type="button" className="link danger" onClick={() => setConfirming(true)} aria-label={`Delete ${p.name}`}>Delete</button>}
      </div>{act.error && <div className="error small" role="alert">{act.error}</div>}</td>
    </tr>
  );
}

export function RolesPanel() {
  const q = useQuery<RolesView>(ROLES_URL);
  const tools = useQuery<{ items: Array<{ name: string }> }>('/v1/tools');
  const [editing, setEditing] = useState<PermissionProfile | 'new' | null>(null);
  const v = q.data;
  const toolNames = (tools.data?.items ?? []).map((t) => t.name);
  return (
    <div className="panel roles-panel" data-testid="roles">
      {q.error && <p className="notice error" role="alert">{q.error.message}</p>}
      {v && (
        <>
          <h2>Roles</h2>
          <table className="table">
            <thead><tr><th>Role</th><th>What it grants</th></tr></thead>
            <tbody>{v.items.map((r) => <tr key={r.role}><td><code>{r.role}</code></td><td className="small">{r.description}</td></tr>)}</tbody>
          </table>
          <p className="small muted">Groups come from {v.groups_source}.{' '}
            {v.group_role_map
              ? <>Group → role map (SVC_GROUP_ROLE_MAP): {Object.entries(v.group_role_map).map(([g, rs]) => `${g} → ${rs.join(', ')}`).join('; ')}.</>
              : 'No group → role map is set (SVC_GROUP_ROLE_MAP).'}
          </p>
          <h2>Permission profiles</h2>
          <p className="small muted">A profile applies to whoever holds one of its roles or groups; access is the union of the profiles that apply. When a profile names tools, only those tools are offered (in the tool list and in chat); with no such profile every tool is. Agents work the same way for chats. Knowledge (tags or audiences) narrows what a user can search, open and have answers grounded on to those items, besides their own; admins are never narrowed.</p>
          {v.profiles.length === 0 ? <div className="empty-box"><p>No permission profiles: everyone may use every tool.</p></div> : (
            <table className="table">
              <thead><tr><th>Profile</th><th>Applies to</th><th>Tools</th><th>Agents</th><th>Knowledge</th><th><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>{v.profiles.map((p) => <ProfileRow key={p.id} p={p} onEdit={() => setEditing(p)} />)}</tbody>
            </table>
          )}
          {editing === null
            ? <button type="button" className="primary" onClick={() => setEditing('new')}>New profile</button>
            : <ProfileForm key={editing === 'new' ? 'new' : editing.id} current={editing === 'new' ? null : editing} tools={toolNames} onDone={() => setEditing(null)} />}
        </>
      )}
    </div>
  );
}
