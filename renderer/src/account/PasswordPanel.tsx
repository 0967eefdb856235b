/**
 * A password for the installer's administrator (issue 14 item 8, first run): the desktop app signs
 * the installing administrator in by the installer handoff, and that account has no password, so it
 * could never sign in again from a browser or after signing out. An administrator without a password
 * sets one here (`PATCH /v1/admin/users/{id}`; the auth service then ends the account's sessions, so
 * the next sign-in uses the password and, once a phone is paired, the phone).
 */
import { useState, type FormEvent } from 'react';
import { api } from '../api/http';
import { useQuery } from '../api/cache';
import type { ProfileView, UserView } from '../api/types';
import { useAction } from '../app/use-action';

export function PasswordPanel({ me }: { me: ProfileView }) {
  const admin = me.roles.includes('admin') && me.local;
  const user = useQuery<UserView>(admin ? `/v1/admin/users/${encodeURIComponent(me.id)}` : null);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [done, setDone] = useState(false);
  const act = useAction();
  if (!admin || !user.data || user.data.has_password) return null;
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (password.length < 8) { act.fail('Use at least 8 characters.'); return; }
    if (password !== again) { act.fail('The two passwords differ.'); return; }
    void act.run(async () => {
      await api(`/v1/admin/users/${encodeURIComponent(me.id)}`, { method: 'PATCH', json: { password } });
      setDone(true);
    });
  };
  return (
    <section className="card" aria-labelledby="pw-title">
      <h2 id="pw-title">Sign-in password</h2>
      {done ? <p className="ok" role="status">Password set. You will be asked to sign in again with it.</p> : (
        <form className="form-grid compact" onSubmit={submit} aria-label="Set a password">
          <p className="muted small">This administrator account was made by the installer and has no password yet: set one to sign in from a browser, or after signing out.</p>
          <label htmlFor="pw-new">New password</label>
          <input id="pw-new" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} minLength={8} />
          <label htmlFor="pw-again">Repeat password</label>
          <input id="pw-again" type="password" autoComplete="new-password" value={again} onChange={(e) => setAgain(e.target.value)} />
          <div /><button type="submit" className="primary" disabled={act.busy || !password}>Set password</button>
          {act.error && <p className="error" role="alert">{act.error}</p>}
        </form>
      )}
    </section>
  );
}
