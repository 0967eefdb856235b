/**
 * The second step of sign-in (issue 14 items 3, 4 and 8): after the password, the number to pick on
 * the phone, shown large, and a live "waiting for your phone" state that polls
 * `POST /v1/auth/login/2fa` every second until the phone approves (tokens arrive only then); "Use a
 * code instead" takes the phone's offline code or a recovery code. An enforced account without a
 * phone gets the pairing QR code first (`methods: ["enroll", ...]`). Each refusal is said plainly.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { completeSecondFactor } from '../api/two-factor';
import type { LoginChallengeAnswer } from '../api/types';
import { QrCode } from '../account/QrCode';
import '../account/two-factor.css';
import { clock, fingerprintOfEnrollmentUrl, normaliseCode, pollOutcome, secondFactorMessage, secondsUntil } from './second-factor';

/** One-second clock for the countdown. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

export function SecondFactor({ challenge, onCancel }: { challenge: LoginChallengeAnswer; onCancel: () => void }) {
  const now = useNow();
  const push = challenge.methods.includes('push');
  const enroll = challenge.methods.includes('enroll') && !!challenge.enrollment_url;
  const codes = challenge.methods.includes('totp') || challenge.methods.includes('recovery_code');
  const [final, setFinal] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [codeMode, setCodeMode] = useState(!push && !enroll && codes);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submitting = useRef(false);
  const left = secondsUntil(challenge.expires_at, now);

  // Poll once a second while the phone decides (also while a code is being typed: the phone may still approve).
  useEffect(() => {
    if (final) return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async (): Promise<void> => {
      if (!submitting.current) {
        const a = await completeSecondFactor(challenge.challenge_id, undefined, stop.signal);
        if (stop.signal.aborted || a.status === 200) return;
        const o = pollOutcome(a.status, a.code, false);
        if (o.kind === 'final') { setFinal(o.message); return; }
        setNotice(o.kind === 'retry' ? o.message : null);
      }
      timer = setTimeout(() => { void tick(); }, 1000);
    };
    timer = setTimeout(() => { void tick(); }, 1000);
    return () => { stop.abort(); if (timer) clearTimeout(timer); };
  }, [challenge.challenge_id, final]);

  const submitCode = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const c = normaliseCode(code);
    if (!c) { setCodeError(secondFactorMessage('invalid_request')); return; }
    setBusy(true);
    setCodeError(null);
    submitting.current = true;
    try {
      const a = await completeSecondFactor(challenge.challenge_id, c);
      if (a.status === 200) return;
      const o = pollOutcome(a.status, a.code, true);
      if (o.kind === 'final') setFinal(o.message);
      else if (o.kind === 'code_rejected' || o.kind === 'retry') setCodeError(o.message);
    } finally {
      submitting.current = false;
      setBusy(false);
    }
  };

  if (final) {
    return (
      <div className="second-factor" data-testid="second-factor" data-state="final">
        <h1 id="signin-title">Sign-in stopped</h1>
        <p className="error" role="alert">{final}</p>
        <button type="button" className="primary" onClick={onCancel}>Sign in again</button>
      </div>
    );
  }
  const fp = enroll ? fingerprintOfEnrollmentUrl(challenge.enrollment_url!) : '';
  return (
    <div className="second-factor" data-testid="second-factor" data-state="waiting">
      <h1 id="signin-title">Confirm on your phone</h1>
      {enroll && (
        <div className="sf-enroll">
          <p>Your administrator requires a phone as a second factor. Scan this code with your phone's camera to pair it; then the phone asks you to confirm this sign-in.</p>
          <QrCode text={challenge.enrollment_url!} size={240} label="QR code to pair your phone" />
          {fp && <p className="muted small">The phone's browser first warns about the workstation's own certificate; it is the right one if its fingerprint is <code className="fp">{fp}</code>.</p>}
        </div>
      )}
      {(push || enroll) && (
        <>
          <p>Open the svc authenticator on your phone and tap this number:</p>
          <p className="sf-number" data-testid="number-match" aria-label={`Number ${challenge.number_match}`}>{challenge.number_match}</p>
          <p className="sf-wait" role="status" aria-live="polite"><span className="spinner" aria-hidden="true" /> Waiting for your phone…{left !== null && ` (${clock(left)} left)`}</p>
        </>
      )}
      {notice && <p className="notice warn small" role="status">{notice}</p>}
      {codes && !codeMode && <button type="button" className="link" onClick={() => setCodeMode(true)}>Use a code instead</button>}
      {codes && codeMode && (
        <form className="sf-code" onSubmit={(e) => { void submitCode(e); }} noValidate>
          <label htmlFor="sf-code">Code</label>
          <p className="muted small" id="sf-code-help">The 6-digit offline code your phone shows, or one of your recovery codes.</p>
          <input id="sf-code" name="code" autoComplete="one-time-code" inputMode="text" autoFocus value={code} aria-describedby="sf-code-help" aria-invalid={!!codeError} onChange={(e) => setCode(e.target.value)} />
          {codeError && <p className="error" role="alert">{codeError}</p>}
          <button type="submit" className="primary" disabled={busy || !code.trim()}>{busy ? 'Checking…' : 'Verify code'}</button>
        </form>
      )}
      <button type="button" className="link" onClick={onCancel}>Cancel</button>
    </div>
  );
}
