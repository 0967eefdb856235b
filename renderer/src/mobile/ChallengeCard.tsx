/**
 * One pending sign-in on the phone (issue 14 item 3): who, from where, with what browser, when, and
 * the three numbers; picking the one shown on the computer approves (a wrong pick denies), "Deny"
 * denies, "This wasn't me" denies and tells the workstation (the user is notified, the event audited).
 */
import { useState } from 'react';
import { answerChallenge, deviceMessage, type ChallengeItem, type DeviceIdentity } from './device-api';

/** A short description of a browser from its user agent ("Chrome on Linux"). */
export function browserOf(ua: string | null): string {
  if (!ua) return 'an unknown browser';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : /Electron\//.test(ua) ? 'the desktop app' : 'a browser';
  const os = /Windows/.test(ua) ? 'Windows' : /Mac OS X|Macintosh/.test(ua) ? 'macOS' : /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Linux/.test(ua) ? 'Linux' : null;
  return os ? `${browser} on ${os}` : browser;
}

export function ChallengeCard({ item, base, id, now, onDone }: {
  item: ChallengeItem; base: string; id: DeviceIdentity; now: number;
  onDone: (challengeId: string, outcome: 'approved' | 'denied' | 'reported' | 'gone', message: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const left = Math.max(0, Math.round((Date.parse(item.expires_at) - now) / 1000));
  const who = item.user.name && item.user.email ? `${item.user.name} (${item.user.email})` : item.user.email ?? item.user.name ?? 'your account';

  const decide = async (decision: 'approve' | 'deny' | 'report', number?: number): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const status = await answerChallenge(base, id, item.challenge_id, decision, number);
      if (decision === 'report') onDone(item.challenge_id, 'reported', 'Reported. The sign-in was stopped and your account was told.');
      else if (status === 'approved') onDone(item.challenge_id, 'approved', 'Approved. The sign-in continues on your computer.');
      else if (decision === 'approve') onDone(item.challenge_id, 'denied', 'That was not the number on your computer, so the sign-in was denied. Sign in again to retry.');
      else onDone(item.challenge_id, 'denied', 'Denied. Nobody is signed in.');
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'challenge_expired' || code === 'challenge_answered' || code === 'challenge_not_found') onDone(item.challenge_id, 'gone', deviceMessage(err));
      else setError(deviceMessage(err));
      setBusy(false);
    }
  };

  return (
    <section className="card m-challenge" data-testid="challenge" data-challenge-id={item.challenge_id} aria-labelledby={`ch-${item.challenge_id}`}>
      <h2 id={`ch-${item.challenge_id}`}>Are you signing in?</h2>
      <dl className="m-facts">
        <dt>Account</dt><dd>{who}</dd>
        <dt>From</dt><dd>{item.client_ip ?? 'an unknown address'}, {browserOf(item.user_agent)}</dd>
        <dt>When</dt><dd>{new Date(item.created_at).toLocaleTimeString()}</dd>
      </dl>
      <p className="m-ask">Tap the number shown on your computer.</p>
      <div className="m-numbers" role="group" aria-label="Numbers">
        {item.numbers.map((n) => (
          <button key={n} type="button" className="m-number" disabled={busy || left === 0} onClick={() => { void decide('approve', n); }}>{n}</button>
        ))}
      </div>
      <p className="muted small" aria-live="polite">{left > 0 ? `Expires in ${left} s` : 'Expired'}</p>
      <div className="m-row">
        <button type="button" disabled={busy} onClick={() => { void decide('deny'); }}>Deny</button>
        <button type="button" className="m-report" disabled={busy} onClick={() => { void decide('report'); }}>This wasn't me</button>
      </div>
      {error && <p className="error small" role="alert">{error}</p>}
    </section>
  );
}
