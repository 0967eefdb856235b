/**
 * Audiences (tenant-local groups that shared and restricted documents name), for administrators:
 * create or describe one, and set its members from the user list.
 */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { Audience, AudienceMembers, Page, UserPage } from '../api/types';
import { useAction } from '../app/use-action';

function Members({ tag, onDone }: { tag: string; onDone: () => void }) {
  const users = useQuery<UserPage>('/v1/admin/users?limit=500');
  const current = useQuery<AudienceMembers>(`/v1/knowledge/admin/audiences/${encodeURIComponent(tag)}/members`);
  // Edits start from the server's list and stay local until saved.
  const [picked, setPicked] = useState<Set<string> | null>(null);
  const { error: err, run } = useAction();
  const chosen = picked ?? new Set(current.data?.user_ids ?? []);
  const toggle = (id: string): void => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id); else next.add(id);
    setPicked(next);
  };
  const save = async (): Promise<void> => {
    await run(async () => {
      await api(`/v1/knowledge/admin/audiences/${encodeURIComponent(tag)}/members`, { method: 'PUT', json: { user_ids: [...chosen] } });
      invalidate('/v1/knowledge/admin/audiences');
      onDone();
    });
  };
  return (
    <div className="members" role="group" aria-label={`Members of ${tag}`}>
      {(users.data?.items ?? []).map((u) => (
        <label key={u.id} className="check"><input type="checkbox" checked={chosen.has(u.id)} onChange={() => toggle(u.id)} />{u.display_name || u.email} <span className="muted small">{u.email}</span></label>
      ))}
      {users.error && <p className="error small">Users could not be loaded: {users.error.message}</p>}
      {err && <p className="error small" role="alert">{err}</p>}
      <div className="row-buttons">
        <button type="button" className="primary" onClick={() => { void save(); }} disabled={current.loading}>Save members</button>
        <button type="button" className="link" onClick={onDone}>Cancel</button>
      </div>
    </div>
  );
}

export function AudiencesPanel() {
  const list = useQuery<Page<Audience>>('/v1/knowledge/admin/audiences');
  const [tag, setTag] = useState('');
  const [description, setDescription] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    try {
      const a = await api<Audience>(`/v1/knowledge/admin/audiences/${encodeURIComponent(tag.trim())}`, { method: 'PUT', json: { description: description.trim() || null } });
      setMsg({ ok: true, text: `Saved audience ${a.tag}.` });
      setTag(''); setDescription('');
      invalidate('/v1/knowledge/admin/audiences');
    } catch (err) { setMsg({ ok: false, text: err instanceof Error ? err.message : String(err) }); }
  };
  const items = list.data?.items ?? [];
  return (
    <section aria-labelledby="k-aud-h">
      <h2 id="k-aud-h">Audiences</h2>
      <p className="muted small">Groups of users that shared and restricted documents can name.</p>
      <form className="form-grid" onSubmit={(e) => { void submit(e); }} aria-label="Add an audience">
        <label htmlFor="a-tag">Audience tag</label><input id="a-tag" value={tag} pattern="[A-Za-z0-9._:\-]{1,64}" placeholder="e.g. finance" onChange={(e) => setTag(e.target.value)} required />
        <label htmlFor="a-desc">Description</label><input id="a-desc" value={description} onChange={(e) => setDescription(e.target.value)} />
        <div /><button type="submit" disabled={!tag.trim()}>Save audience</button>
        {msg && <p className={msg.ok ? 'ok' : 'error'} role="status">{msg.text}</p>}
      </form>
      {list.error && <p className="error">Audiences could not be loaded: {list.error.message}</p>}
      {!list.loading && items.length === 0 && !list.error && <p className="muted">No audiences yet.</p>}
      {items.length > 0 && (
        <table className="table" aria-label="Audiences">
          <thead><tr><th>Tag</th><th>Description</th><th className="num">Members</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {items.map((a) => (
              <tr key={a.tag}>
                <td><code>{a.tag}</code></td>
                <td>{a.description ?? <span className="muted">—</span>}</td>
                <td className="num">{a.member_count}</td>
                <td>{editing === a.tag ? <Members tag={a.tag} onDone={() => setEditing(null)} /> : <button type="button" className="link" onClick={() => setEditing(a.tag)} aria-label={`Edit members of ${a.tag}`}>Members…</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
