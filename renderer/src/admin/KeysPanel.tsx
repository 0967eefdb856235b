/**
 * Keys (issue 19 item 3; `/v1/admin/secrets`): each key kind (X-Svc-Principal stamps, capability
 * tokens, audit HMAC signing, receipt Ed25519 signing) with its versions, their fingerprints and
 * dates, when it was last rotated, and a Rotate button behind a confirmation. The receipt key's
 * fingerprint is the SHA-256 of its public key, for an organisation to distribute out of band.
 * Never shows a key value (the server sends none).
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import { useAction } from '../app/use-action';
import type { KeyKindEntry, SecretsListing, SecretsRotated } from '../../../services/gateway/src/contracts';

const URL_SECRETS = '/v1/admin/secrets';

const LABELS: Record<KeyKindEntry['kind'], { title: string; about: string }> = {
  principal: { title: 'Principal stamps', about: 'HMAC keys of the gateway’s X-Svc-Principal stamp, verified by every service.' },
  captoken: { title: 'Capability tokens', about: 'HMAC keys of the capability tokens bound to a turn.' },
  audit: { title: 'Audit signing', about: 'HMAC keys of the audit chain and receipts; rows keep their key version, so old receipts keep verifying.' },
  receipt: { title: 'Receipt signing (Ed25519)', about: 'Public-key signatures of receipts; the fingerprint is the SHA-256 of the public key. Published at /v1/receipts/keys.' },
};

const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : '—');

function groupHex(fp: string): string {
  return /^[0-9a-f]{64}$/.test(fp) ? (fp.match(/.{4}/g) ?? []).join(' ') : fp;
}

function KindCard({ entry }: { entry: KeyKindEntry }) {
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const act = useAction((e) => (e instanceof ApiError ? `${e.message}${e.code ? ` (${e.code})` : ''}` : String(e)));
  const label = LABELS[entry.kind];
  const rotate = (): void => {
    void act.run(async () => {
      const r = await api<SecretsRotated>(`${URL_SECRETS}/${entry.kind}/rotate`, { method: 'POST' });
      setConfirming(false);
      setDone(`Rotated: ${r.version} signs from now on; older keys keep verifying.`);
      invalidate(URL_SECRETS);
    });
  };
  return (
    <section className="panel" aria-label={label.title}>
      <h3>{label.title}</h3>
      <p className="muted">{label.about} Last rotated: {entry.last_rotated_at ? when(entry.last_rotated_at) : 'never'}.</p>
      <table className="table" aria-label={`${label.title} versions`}>
        <thead><tr><th>Version</th><th>Fingerprint</th><th>Created</th><th>Retired</th><th>State</th></tr></thead>
        <tbody>
          {entry.versions.map((v) => (
            <tr key={v.version}>
              <td><code>{v.version}</code></td>
              <td><code className="small">{groupHex(v.fingerprint)}</code></td>
              <td>{v.created_at ? when(v.created_at) : <span className="muted">{v.source === 'environment' ? 'from the environment' : '—'}</span>}</td>
              <td>{when(v.retired_at)}</td>
              <td>{v.active ? <strong>signing</strong> : <span className="muted">verifies only</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="cell-actions">
        {confirming ? (
          <>
            <span>Rotate the {label.title.toLowerCase()} key now? The new key signs at once; every older key keeps verifying.</span>{' '}
            <button type="button" className="danger" disabled={act.busy} onClick={rotate} aria-label={`Confirm rotate ${entry.kind}`}>{act.busy ? 'Rotating…' : 'Rotate'}</button>{' '}
            <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
          </>
        ) : <button type="button" onClick={() => { setDone(null); setConfirming(true); }} aria-label={`Rotate ${entry.kind}`}>Rotate…</button>}
      </div>
      {done && <p className="small" role="status">{done}</p>}
      {act.error && <p className="error" role="alert">{act.error}</p>}
    </section>
  );
}

/** The Keys tab of the Admin page. */
export function KeysPanel() {
  const q = useQuery<SecretsListing>(URL_SECRETS);
  return (
    <div className="panel">
      <p className="muted">Rotating a key takes effect without a restart. Rotated keys are kept in the data directory and win over the environment after a restart.</p>
      {q.error && <p className="error" role="alert">{String(q.error)}</p>}
      {(q.data?.kinds ?? []).map((k) => <KindCard key={k.kind} entry={k} />)}
    </div>
  );
}
