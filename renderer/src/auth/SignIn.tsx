/**
 * Sign-in: labelled Username and Password fields, a "Sign in" button, errors said plainly; when the
 * account has a second factor (202, issue 14) the card turns into the phone step (`SecondFactor`).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { authConfig, login, signInMessage } from '../api/auth';
import { useApp } from '../store';
import type { AuthConfigView, LoginChallengeAnswer } from '../api/types';
import { useAction } from '../app/use-action';
import { SecondFactor } from './SecondFactor';

export function SignIn() {
  const reason = useApp((s) => s.signOutReason);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run, fail } = useAction(signInMessage);
  const [cfg, setCfg] = useState<AuthConfigView | null | undefined>(undefined);
  const [challenge, setChallenge] = useState<LoginChallengeAnswer | null>(null);

  useEffect(() => { void authConfig().then(setCfg); }, []);

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (!username.trim() || !password) { fail('Enter a username and a password.'); return; }
    await run(async () => {
      const out = await login(username.trim(), password);
      if (out.kind === 'secondFactor') { setPassword(''); setChallenge(out.challenge); }
    });
  };

  if (challenge) {
    return (
      <div className="signin">
        <section className="card signin-card" aria-labelledby="signin-title">
          <SecondFactor key={challenge.challenge_id} challenge={challenge} onCancel={() => setChallenge(null)} />
        </section>
      </div>
    );
  }

  const disabled = cfg?.passwordLoginEnabled === false;
  return (
    <div className="signin">
      <form className="card signin-card" onSubmit={(e) => { void submit(e); }} noValidate aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to svc</h1>
        <p className="muted">Every answer comes with a receipt you can verify.</p>
        {reason && !error && <p className="notice info" role="status">{reason}</p>}
        {cfg === null && <p className="notice warn" role="status">The server cannot be reached yet.</p>}
        {disabled && <p className="notice warn" role="status">Password sign-in is switched off on this server.</p>}
        <label htmlFor="username">Username</label>
        <input id="username" name="username" autoComplete="username" autoFocus value={username} onChange={(e) => setUsername(e.target.value)} aria-invalid={!!error} />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-invalid={!!error} />
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" className="primary" disabled={busy || disabled}>{busy ? 'Signing in…' : 'Sign in'}</button>
        {cfg?.installerHandoffPending && <p className="muted small">First run: the desktop app signs in the installing administrator by itself.</p>}
      </form>
    </div>
  );
}
