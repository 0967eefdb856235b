/**
 * Pairing on the phone (issue 14 items 1 and 7): opened from the QR code's URL, it shows which
 * workstation asks and the certificate fingerprint to compare (the browser warned about the
 * self-signed certificate first), then generates the device key (WebCrypto, non-extractable),
 * proves possession to `POST /dirauth/pair/enroll`, keeps the pairing in IndexedDB, and drops the
 * enrollment token from the address bar.
 */
import { useState, type FormEvent } from 'react';
import { enroll, deviceMessage, DeviceApiError } from './device-api';
import { enrollmentProof, importTotpKey, newDeviceKeys } from './device-crypto';
import { savePairing, type Pairing } from './keystore';
import { defaultDeviceName, enrollmentClaims, fingerprintLines, type PairLink } from './pair-link';

export function PairScreen({ link, base, existing, onPaired, onCancel }: {
  link: PairLink; base: string; existing: Pairing | null; onPaired: (p: Pairing) => void; onCancel: (() => void) | null;
}) {
  const [name, setName] = useState(() => defaultDeviceName(navigator.userAgent));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const claims = enrollmentClaims(link.token);
  const host = new URL(base).host;

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (!claims) { setError(deviceMessage(new DeviceApiError(401, 'enrollment_token_invalid', 'invalid'))); return; }
    if (claims.exp && claims.exp * 1000 < Date.now() - 30_000) { setError(deviceMessage(new DeviceApiError(410, 'enrollment_expired', 'expired'))); return; }
    setBusy(true);
    setError(null);
    try {
      const keys = await newDeviceKeys();
      const proof = await enrollmentProof(keys, { enrollment_id: claims.enrollment_id, nonce: claims.nonce, name: name.trim().slice(0, 64) || defaultDeviceName(navigator.userAgent) });
      const a = await enroll(base, link.token, proof);
      const pairing: Pairing = {
        device_id: a.device_id, public_url: (a.api_base || base).replace(/\/+$/, ''),
        privateKey: keys.privateKey, publicKey: keys.publicKey,
        totpKey: await importTotpKey(a.totp.secret, a.totp.algorithm),
        totp: { algorithm: a.totp.algorithm, digits: a.totp.digits, period: a.totp.period },
        user: a.user, access_token: a.access_token, refresh_token: a.refresh_token,
        fingerprint: link.fingerprint, paired_at: new Date().toISOString(),
      };
      await savePairing(pairing);
      // The token is spent; keep it out of the history and of a home-screen bookmark.
      history.replaceState(null, '', location.pathname);
      onPaired(pairing);
    } catch (err) {
      setError(err instanceof DeviceApiError ? deviceMessage(err) : `This browser cannot keep a device key (${(err as Error)?.message ?? 'unknown error'}).`);
      setBusy(false);
    }
  };

  return (
    <form className="card m-pair" onSubmit={(e) => { void submit(e); }} aria-labelledby="m-pair-title">
      <h1 id="m-pair-title">Pair this phone</h1>
      <p>The workstation at <strong>{host}</strong> asks to use this phone as your second factor: you will approve sign-ins here.</p>
      {existing && <p className="notice warn">This phone is already paired{existing.user.email ? ` for ${existing.user.email}` : ''}. Pairing again replaces that pairing here.</p>}
      {link.fingerprint ? (
        <div className="notice info" data-testid="pair-fingerprint">
          <p>Your browser showed a certificate warning first: the workstation uses its own certificate. It is the right one if its SHA-256 fingerprint reads:</p>
          <pre className="m-fp">{fingerprintLines(link.fingerprint).join('\n')}</pre>
          <p className="small">The same fingerprint is shown on your computer next to the QR code.</p>
        </div>
      ) : (
        <p className="muted small">This connection does not use a workstation certificate (local address).</p>
      )}
      <label htmlFor="m-name">Name of this phone</label>
      <input id="m-name" value={name} maxLength={64} onChange={(e) => setName(e.target.value)} autoComplete="off" />
      {error && <p className="error" role="alert">{error}</p>}
      <button type="submit" className="primary wide" disabled={busy || !name.trim()}>{busy ? 'Pairing…' : 'Pair'}</button>
      {onCancel && <button type="button" className="link" onClick={onCancel}>Keep the current pairing</button>}
    </form>
  );
}
