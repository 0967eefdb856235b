/**
 * "Pair a phone" (issue 14 items 1 and 8): `POST /v1/account/devices/pairing` gives the enrollment
 * URL, shown as a QR code (or copied, for a phone that cannot scan; never opened on this computer)
 * with its two-minute countdown; `GET /v1/account/devices/pairing/{id}` is polled until the phone
 * completes it ("Paired!"). The text says plainly what the phone shows the first time: a certificate
 * warning, and the fingerprint to compare before going on.
 */
import { useEffect, useState } from 'react';
import { api } from '../api/http';
import { invalidate } from '../api/cache';
import type { PairingCreated, PairingStatus } from '../api/types';
import { useAction } from '../app/use-action';
import { clock, fingerprintOfEnrollmentUrl, secondsUntil } from '../auth/second-factor';
import { QrCode } from './QrCode';
import './two-factor.css';

/** True when the enrollment URL is plain http on a loopback host: only this computer can open it. */
function loopbackOnly(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' && (u.hostname === 'localhost' || u.hostname === '[::1]' || u.hostname.startsWith('127.'));
  } catch { return false; }
}

function Pairing({ created, onAgain }: { created: PairingCreated; onAgain: () => void }) {
  const [now, setNow] = useState(() => Date.now());
  const [status, setStatus] = useState<PairingStatus['state']>('pending');
  const [copied, setCopied] = useState(false);
  const left = secondsUntil(created.expires_at, now) ?? 0;

  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);

  useEffect(() => {
    if (status !== 'pending') return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async (): Promise<void> => {
      try {
        const s = await api<PairingStatus>(`/v1/account/devices/pairing/${encodeURIComponent(created.enrollment_id)}`);
        if (!live) return;
        if (s.state !== 'pending') {
          setStatus(s.state);
          if (s.state === 'paired') invalidate('/v1/account/devices');
          return;
        }
      } catch { /* a missed poll is retried */ }
      if (live) timer = setTimeout(() => { void poll(); }, 1500);
    };
    timer = setTimeout(() => { void poll(); }, 1000);
    return () => { live = false; if (timer) clearTimeout(timer); };
  }, [created.enrollment_id, status]);

  const fp = fingerprintOfEnrollmentUrl(created.enrollment_url);
  if (status === 'paired') {
    return (
      <div className="pair-done" data-testid="pairing-state" data-state="paired">
        <p className="ok pair-big" role="status">Paired! Your phone now confirms your sign-ins.</p>
        <p className="muted small">From now on, signing in asks your phone: pick the number the sign-in screen shows. Without a connection, the phone shows an offline code you can type instead.</p>
        <button type="button" onClick={onAgain}>Pair another phone</button>
      </div>
    );
  }
  const expired = status === 'expired' || left === 0;
  return (
    <div className="pairing" data-testid="pairing-state" data-state={expired ? 'expired' : 'pending'}>
      {expired ? (
        <div>
          <p className="notice warn" role="status">This pairing code expired (codes last two minutes and work once).</p>
          <button type="button" className="primary" onClick={onAgain}>New code</button>
        </div>
      ) : (
        <div className="pairing-grid">
          <QrCode text={created.enrollment_url} label="QR code to pair a phone" />
          <div>
            <ol className="pairing-steps">
              <li>Open the camera on your phone and point it at the code. Open the link it finds.</li>
              {fp ? (
                <li>
                  The first time, the phone's browser warns that the connection is not private: this workstation made its own
                  certificate, which no public authority vouches for. Open the warning's details and check that the certificate's
                  SHA-256 fingerprint is <code className="fp" data-testid="pairing-fingerprint">{fp}</code>. If it matches, go on to the site;
                  if it does not, stop: something else is answering on your network.
                </li>
              ) : loopbackOnly(created.enrollment_url) ? (
                <li className="notice warn">This workstation answers only on this computer (plain HTTP on a loopback address), so a phone on your network cannot open the link. To pair a phone over Wi-Fi, set <code>SVC_BIND_HOST</code> to this computer's network address and restart: the workstation then serves HTTPS with its own certificate.</li>
              ) : (
                <li>The phone opens the workstation's page over a secure connection.</li>
              )}
              <li>On the phone, tap <strong>Pair</strong>. You can add the page to the home screen: it is your authenticator.</li>
            </ol>
            <p className="muted small" role="timer" aria-live="off">Code valid for {clock(left)}. Waiting for your phone…</p>
            <p className="small">
              Cannot scan? <button type="button" className="link" data-testid="copy-enrollment-url" onClick={() => { void navigator.clipboard?.writeText(created.enrollment_url).then(() => setCopied(true), () => {}); }}>Copy the link</button>
              {' '}and open it on the phone{copied ? ' (copied)' : ''}. It works once, for two minutes.
            </p>
          </div>
        </div>
      )}
    </div>
  );
}

export function PairPhone({ autoStart = false }: { autoStart?: boolean }) {
  const [created, setCreated] = useState<PairingCreated | null>(null);
  const act = useAction();
  const start = (): void => {
    void act.run(async () => { setCreated(await api<PairingCreated>('/v1/account/devices/pairing', { method: 'POST' })); });
  };
  return (
    <section className="card pair-phone" aria-labelledby="pair-title">
      <h2 id="pair-title">Pair a phone</h2>
      <p className="muted small">Your phone becomes your second factor: when you sign in, it asks you to confirm by picking the number on the screen. No app store needed: the phone opens a page of this workstation and keeps its own key.</p>
      {created ? <Pairing key={created.enrollment_id} created={created} onAgain={start} /> : (
        <button type="button" className="primary" disabled={act.busy} onClick={start} autoFocus={autoStart}>{act.busy ? 'Preparing…' : 'Pair a phone'}</button>
      )}
      {act.error && <p className="error" role="alert">{act.error}</p>}
    </section>
  );
}
