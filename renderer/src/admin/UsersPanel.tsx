/** Local accounts (`/v1/admin/users`): list, create, disable/enable, admin role. */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { UserPage, UserView } from '../api/types';
import { useAction } from '../app/use-action';

function CreateUser() {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    try {
      const u = await api<UserView>('/v1/admin/users', { method: 'POST', json: { email: email.trim(), display_name: name.trim() || email.trim(), password, roles: admin ? ['user', 'admin'] : ['user'] } });
      setMsg({ ok: true, text: `Created ${u.email}.` });
      setEmail(''); setName(''); setPassword(''); setAdmin(false);
      invalidate('/v1/admin/users');
    } catch (err) { setMsg({ ok: false, text: err instanceof ApiError ? err.message : String(err) }); }
  };
  return (
    <form className="card form-grid" onSubmit={(e) => { void submit(e); }} aria-label="Create a user">
      <h3>Create a user</h3>
      <label htmlFor="u-email">Email</label><input id="u-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
      <label htmlFor="u-name">Display name</label><input id="u-name" value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="u-pass">Initial password</label><input id="u-pass" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} minLength={8} required />
      <label htmlFor="u-admin">Administrator</label><input id="u-admin" type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} />
      <div /><button type="submit" className="primary" disabled={!email || password.length < 8}>Create user</button>
      {msg && <p className={msg.ok ? 'ok' : 'error'} role="status">{msg.text}</p>}
    </form>
  );
}

export function UsersPanel() {
  const users = useQuery<UserPage>('/v1/admin/users?limit=500');
  const { error: err, run } = useAction();
  const patch = async (u: UserView, body: Record<string, unknown>): Promise<void> => {
    await run(async () => { await api(`/v1/admin/users/${encodeURIComponent(u.id)}`, { method: 'PATCH', json: body }); invalidate('/v1/admin/users'); });
  };
  return (
    <div className="panel">
      <CreateUser />
      {users.error && <p className="error">{users.error.message}</p>}
      {err && <p className="error" role="alert">{err}</p>}
      <table className="table">
        <thead><tr><th>Email</th><th>Name</th><th>Roles</th><th>State</th><th /></tr></thead>
        <tbody>
          {(users.data?.items ?? []).map((u) => (
            <tr key={u.id}>
              <td>{u.email}</td><td>{u.display_name}</td><td>{u.roles.join(', ')}</td><td>{u.disabled ? 'disabled' : 'active'}</td>
              <td className="row-buttons">
                <button type="button" className="link" onClick={() => { void patch(u, { disabled: !u.disabled }); }}>{u.disabled ? 'Enable' : 'Disable'}</button>
                <button type="button" className="link" onClick={() => { void patch(u, { roles: u.roles.includes('admin') ? u.roles.filter((r) => r !== 'admin') : [...u.roles, 'admin'] }); }}>{u.roles.includes('admin') ? 'Remove admin' : 'Make admin'}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
