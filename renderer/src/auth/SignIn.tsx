/**
 * Sign-in. With the embedded IdP served (issue 15 item 1) the start screen sends the browser to the
 * IdP's sign-in page (authorization code + PKCE, `oidc.ts`), where the labelled fields and the
 * phone step now live; it stays on screen only to say why a sign-in failed, with a "Sign in"
 * button. Without an IdP (an older server) the password form below is used: labelled Username and
 * Password fields, a "Sign in" button, errors said plainly; when the account has a second factor
 * (202, issue 14) the card turns into the phone step (`SecondFactor`).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { authorizationServer, beginSignIn, desktopSignIn, isLeaving, systemBrowserShell, takeCallbackError } from './oidc';
import { tokens } from '../api/tokens';
import { authConfig, login, signInMessage } from '../api/auth';
import { useApp } from '../store';
import type { AuthConfigView, LoginChallengeAnswer } from '../api/types';
import { useAction } from '../app/use-action';
import { SecondFactor } from './SecondFactor';

/** The start screen: IdP sign-in when served, else the password form. */
export function SignIn() {
  const [idp, setIdp] = useState<'checking' | 'yes' | 'no'>('checking');
  const [problem, setProblem] = useState<string | null>(() => takeCallbackError());
  const leaving = isLeaving();
  useEffect(() => { void authorizationServer().then((as) => setIdp(as ? 'yes' : 'no')); }, []);
  useEffect(() => {
    if (idp !== 'yes' || leaving || problem) return;
    // The desktop shell signs in in the system browser (RFC 8252 loopback); a browser tab goes to the IdP's page.
    if (systemBrowserShell()) {
      desktopSignIn()
        .then(async (t) => { if (t) { await tokens.accept(t, 'idp'); tokens.signedIn(); } })
        .catch(() => setProblem('Sign-in in the browser did not finish. Try again.'));
      return;
    }
    beginSignIn().catch(() => setProblem('The sign-in service cannot be reached. Try again shortly.'));
  }, [idp, leaving, problem]);
  if (idp === 'no') return <PasswordSignIn />;
  const go = (): void => { setProblem(null); };
  return (
    <div className="signin">
      <section className="card signin-card" aria-labelledby="signin-title" aria-busy={!problem}>
        <h1 id="signin-title">Sign in to svc</h1>
        <p className="muted">Every answer comes with a receipt you can verify.</p>
        {problem ? <p className="error" role="alert">{problem}</p> : <p className="muted" role="status">{leaving ? 'Signing out…' : systemBrowserShell() ? 'Finish signing in in your browser…' : 'Opening the sign-in page…'}</p>}
        {problem && <button type="button" className="primary" onClick={go}>Sign in</button>}
      </section>
    </div>
  );
}

/** The password form of servers without the embedded IdP (`POST /v1/auth/login`). */
function PasswordSignIn() {
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
