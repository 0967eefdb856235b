/**
 * The offline code (issue 14 item 4): the current RFC 6238 code from the non-extractable HMAC key,
 * with a countdown to the next one. For when the phone cannot reach the workstation: the user types it
 * on the computer under "Use a code instead".
 */
import { useEffect, useState } from 'react';
import { offlineCode } from './device-crypto';
import { secondsLeft } from './totp';

export function OfflineCode({ totpKey, digits, period, now }: { totpKey: CryptoKey; digits: number; period: number; now: number }) {
  const [code, setCode] = useState<string | null>(null);
  const step = Math.floor(now / 1000 / period);
  useEffect(() => {
    let live = true;
    void offlineCode(totpKey, { digits, period }, step * period * 1000).then((c) => { if (live) setCode(c); }, () => { if (live) setCode(null); });
    return () => { live = false; };
  }, [totpKey, digits, period, step]);
  const left = secondsLeft(now, period);
  const shown = code ? `${code.slice(0, Math.ceil(code.length / 2))} ${code.slice(Math.ceil(code.length / 2))}` : '··· ···';
  return (
    <section className="card m-code" aria-labelledby="m-code-title">
      <h2 id="m-code-title">Offline code</h2>
      <p className="muted small">No connection to your computer? Type this code there, under "Use a code instead".</p>
      <p className="m-code-digits" data-testid="offline-code" data-code={code ?? ''} aria-live="off">{shown}</p>
      <progress max={period} value={left} aria-label={`New code in ${left} seconds`} />
      <p className="muted small">New code in {left} s</p>
    </section>
  );
}
