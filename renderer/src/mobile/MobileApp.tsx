/**
 * The phone authenticator (issue 14 item 7), served at `/m/`: pairs from the QR code's URL
 * (`#pair?token&fp`), then shows pending sign-ins as they arrive (number matching from three;
 * approve, deny, "this wasn't me") and the offline code. Everything it needs is in IndexedDB; it
 * installs to the home screen through its web app manifest.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ChallengeCard } from './ChallengeCard';
import { OfflineCode } from './OfflineCode';
import { PairScreen } from './PairScreen';
import { deviceMessage, type DeviceApiError, type DeviceIdentity } from './device-api';
import { forgetPairing, loadPairing, type Pairing } from './keystore';
import { apiBaseOf, pairLinkOf, type PairLink } from './pair-link';
import { useChallenges, type Delivery } from './use-challenges';

const DELIVERY: Record<Delivery, string> = {
  connecting: 'Connecting to your workstation…',
  live: 'Connected: sign-in requests appear here at once.',
  polling: 'Connected (checking for sign-in requests).',
  offline: 'Your workstation cannot be reached. Use the offline code below.',
};

/** One-second clock for countdowns. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

function Home({ pairing, base, onForget }: { pairing: Pairing; base: string; onForget: () => void }) {
  const now = useNow();
  const [revoked, setRevoked] = useState<string | null>(null);
  const [result, setResult] = useState<{ kind: string; message: string } | null>(null);
  const id = useMemo<DeviceIdentity>(() => ({ device_id: pairing.device_id, public_url: pairing.public_url, privateKey: pairing.privateKey }), [pairing]);
  const onFatal = useCallback((err: DeviceApiError) => setRevoked(deviceMessage(err)), []);
  const { items, delivery, dismiss } = useChallenges(base, revoked ? null : id, onFatal);
  const open = items.filter((i) => Date.parse(i.expires_at) > now);

  return (
    <div className="m-home">
      <header className="m-head">
        <h1>svc authenticator</h1>
        <p className="muted small" data-testid="paired-as">Paired{pairing.user.email ? ` for ${pairing.user.email}` : ''}</p>
      </header>
      {revoked ? (
        <div className="notice error" role="alert" data-testid="device-revoked">
          <p>{revoked}</p>
          <button type="button" onClick={onForget}>Forget this pairing</button>
        </div>
      ) : (
        <p className={`m-delivery m-${delivery}`} role="status" data-testid="delivery" data-delivery={delivery}>{DELIVERY[delivery]}</p>
      )}
      {result && (
        <p className={`notice ${result.kind === 'approved' ? 'info' : 'warn'}`} role="status" data-testid="answer-result" data-outcome={result.kind}>{result.message}</p>
      )}
      {!revoked && open.length === 0 && <p className="muted m-empty">No sign-in is waiting for you.</p>}
      {!revoked && open.map((it) => (
        <ChallengeCard key={it.challenge_id} item={it} base={base} id={id} now={now}
          onDone={(cid, kind, message) => { dismiss(cid); setResult({ kind, message }); }} />
      ))}
      {!revoked && <OfflineCode totpKey={pairing.totpKey} digits={pairing.totp.digits} period={pairing.totp.period} now={now} />}
      <details className="m-about">
        <summary>About this phone</summary>
        <p className="small">Paired {new Date(pairing.paired_at).toLocaleString()} with {new URL(base).host}. The key that signs your answers was made on this phone and cannot leave it.</p>
        <button type="button" className="link" onClick={onForget}>Forget this pairing on this phone</button>
      </details>
    </div>
  );
}

export function MobileApp() {
  const base = useMemo(() => apiBaseOf(location.origin, location.pathname), []);
  const [pairing, setPairing] = useState<Pairing | null | undefined>(undefined);
  const [link, setLink] = useState<PairLink | null>(() => pairLinkOf(location.hash));
  const [storageError, setStorageError] = useState<string | null>(null);

  useEffect(() => {
    loadPairing().then(setPairing, (err: unknown) => { setPairing(null); setStorageError(`This browser cannot keep the pairing (${(err as Error)?.message ?? 'storage unavailable'}).`); });
    const onHash = (): void => setLink(pairLinkOf(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const forget = async (): Promise<void> => { await forgetPairing(); setPairing(null); };

  if (!window.isSecureContext || !crypto.subtle) {
    return <main className="m-app"><p className="notice error" role="alert">This page needs a secure connection (https). Open it from the QR code on your computer.</p></main>;
  }
  if (pairing === undefined) return <main className="m-app" aria-busy="true"><p className="muted">Loading…</p></main>;
  return (
    <main className="m-app">
      {storageError && <p className="notice error" role="alert">{storageError}</p>}
      {link ? (
        <PairScreen link={link} base={base} existing={pairing}
          onPaired={(p) => { setLink(null); setPairing(p); }}
          onCancel={pairing ? () => { history.replaceState(null, '', location.pathname); setLink(null); } : null} />
      ) : pairing ? (
        <Home key={pairing.device_id} pairing={pairing} base={base} onForget={() => { void forget(); }} />
      ) : (
        <section className="card m-pair">
          <h1>svc authenticator</h1>
          <p>This phone is not paired yet. On your computer, open <strong>Account → Pair a phone</strong> and scan the QR code with this phone's camera.</p>
        </section>
      )}
    </main>
  );
}
