/**
 * "Verify a bundle file in this browser" (issue 22 item 5): open an exported receipt bundle, pin a
 * public key (paste a JWK, or pick one of the server's published keys and pin it; pins stay in this
 * browser), and run the audit verifier here, with WebCrypto Ed25519 (else @noble/ed25519). Shows
 * each check as passed, failed or not checkable without the secret, and says that it ran locally.
 * Rules and crypto: `local-verify.ts`.
 */
import { useState } from 'react';
import { api } from '../api/http';
import {
  fingerprintOf, loadPins, pinFromText, savePins, verifyLocally, type LocalVerification, type StoredPin,
} from './local-verify';

interface PublishedKey { kty: string; crv: string; x: string; kid: string; created_at: string; retired_at?: string }

const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function PinnedKeys({ pins, onUnpin }: { pins: StoredPin[]; onUnpin: (kid: string) => void }) {
  if (pins.length === 0) return <p className="muted" data-testid="local-no-pins">No key pinned yet.</p>;
  return (
    <ul className="plain-list" data-testid="local-pins">
      {pins.map((p) => (
        <li key={p.kid} data-testid="local-pin" data-kid={p.kid}>
          <code title={`kid ${p.kid}`}>{fingerprintOf(p.x).slice(0, 32)}…</code>
          {' '}<span className="meta">{p.source === 'published' ? 'from the server' : 'pasted'}{p.retired_at ? ' · retired' : ''}</span>
          {' '}<button type="button" className="link" onClick={() => onUnpin(p.kid)}>Unpin</button>
        </li>
      ))}
    </ul>
  );
}

function Result({ v }: { v: LocalVerification }) {
  const r = v.report;
  return (
    <div data-testid="local-result" data-ok={String(r.ok)}>
      <p className={r.ok ? 'ok' : 'error'} data-testid="local-verdict">
        {r.ok ? 'Verified locally' : 'Not verified'}{r.turn_id ? ` · turn ${r.turn_id}` : ''}
      </p>
      <p className="muted" data-testid="local-ran">
        Ran in this browser with {v.engine} Ed25519 against your pinned keys, in {v.ms.toFixed(1)} ms; no server was asked.
      </p>
      <table className="checks">
        <tbody>
          {r.checks.map((c) => (
            <tr key={c.id} data-testid="local-check" data-check={c.id} data-state={c.skipped ? 'skipped' : c.ok ? 'pass' : 'fail'}>
              <td>{c.skipped ? 'not checked' : c.ok ? 'pass' : 'FAIL'}</td><td>{c.title}</td><td className="meta">{c.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {r.not_checked.length > 0 && <p className="muted">Not checkable here: {r.not_checked.join(', ')} (the HMACs need the operator&apos;s secret).</p>}
    </div>
  );
}

/** The local verification panel. */
export function LocalVerifyPanel() {
  const [pins, setPins] = useState<StoredPin[]>(() => loadPins());
  const [jwk, setJwk] = useState('');
  const [published, setPublished] = useState<PublishedKey[] | null>(null);
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [result, setResult] = useState<LocalVerification | null>(null);
  const [error, setError] = useState<string | null>(null);
  const update = (next: StoredPin[]): void => { savePins(next); setPins(next); setResult(null); };
  const pin = (text: string, source: StoredPin['source']): void => {
    try { update(pinFromText(text, pins, source)); setError(null); setJwk(''); } catch (e) { setError(errText(e)); }
  };
  const loadPublished = async (): Promise<void> => {
    try { setPublished((await api<{ keys: PublishedKey[] }>('/v1/receipts/keys', { anonymous: true })).keys); } catch (e) { setError(errText(e)); }
  };
  const run = async (): Promise<void> => {
    if (!file) return;
    try { setResult(await verifyLocally(file.text, pins)); setError(null); } catch (e) { setResult(null); setError(errText(e)); }
  };
  return (
    <section className="local-verify" aria-label="Verify a bundle in this browser" data-testid="local-verify">
      <h2>Verify a bundle in this browser</h2>
      <p className="muted">Checks an exported receipt bundle here, with public keys you pin. Nothing is sent to a server.</p>
      <h3>Pinned public keys</h3>
      <PinnedKeys pins={pins} onUnpin={(kid) => update(pins.filter((p) => p.kid !== kid))} />
      <label>
        Paste a public key (JWK)
        <textarea data-testid="local-jwk" rows={3} value={jwk} onChange={(e) => setJwk(e.target.value)} placeholder='{"kty":"OKP","crv":"Ed25519","x":"..."}' />
      </label>
      <button type="button" data-testid="local-pin-pasted" disabled={!jwk.trim()} onClick={() => pin(jwk, 'pasted')}>Pin this key</button>
      {' '}<button type="button" className="link" data-testid="local-load-published" onClick={() => { void loadPublished(); }}>Show the server&apos;s published keys</button>
      {published && (
        <ul className="plain-list" data-testid="local-published">
          {published.map((k) => (
            <li key={k.kid}>
              <code>{fingerprintOf(k.x).slice(0, 32)}…</code>{k.retired_at ? ' · retired' : ' · active'}
              {' '}<button type="button" className="link" data-testid="local-pin-published" data-kid={k.kid} disabled={pins.some((p) => p.kid === k.kid)}
                onClick={() => pin(JSON.stringify(k), 'published')}>Pin</button>
            </li>
          ))}
        </ul>
      )}
      <h3>Bundle file</h3>
      <input
        type="file" accept="application/json,.json" data-testid="local-file" aria-label="Receipt bundle file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          setResult(null);
          if (!f) { setFile(null); return; }
          void f.text().then((text) => setFile({ name: f.name, text }), (err: unknown) => setError(errText(err)));
        }}
      />
      {' '}<button type="button" data-testid="local-run" disabled={!file || pins.length === 0} onClick={() => { void run(); }}>Verify locally</button>
      {error && <p className="error" data-testid="local-error">{error}</p>}
      {result && <Result v={result} />}
    </section>
  );
}
