/**
 * Recovery codes (issue 14 items 4 and 6): how many of the ten single-use codes are left, and
 * generate / regenerate (`POST /v1/account/devices/recovery-codes`, which replaces any earlier set).
 * The new codes are shown once: the server keeps only their hashes.
 */
import { useState } from 'react';
import { api } from '../api/http';
import { invalidate, useQuery } from '../api/cache';
import type { RecoveryCodes, RecoveryCodesStatus } from '../api/types';
import { useAction } from '../app/use-action';

const STATUS = '/v1/account/devices/recovery-codes';

export function RecoveryCodesPanel() {
  const q = useQuery<RecoveryCodesStatus>(STATUS);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [confirm, setConfirm] = useState(false);
  const act = useAction();
  const have = (q.data?.created_at ?? null) !== null;
  const generate = (): void => {
    void act.run(async () => {
      const r = await api<RecoveryCodes>(STATUS, { method: 'POST' });
      setCodes(r.codes);
      setConfirm(false);
      invalidate(STATUS);
      invalidate('/v1/account/devices');
    });
  };
  return (
    <section className="card" aria-labelledby="rc-title">
      <h2 id="rc-title">Recovery codes</h2>
      <p className="muted small">If your phone is lost, a recovery code signs you in once instead of the phone. Keep them somewhere safe, away from this computer.</p>
      {q.error && <p className="error" role="alert">{q.error.message}</p>}
      {q.data && (
        <p data-testid="recovery-remaining" data-remaining={q.data.remaining}>
          {have ? `${q.data.remaining} of 10 codes left (made ${new Date(q.data.created_at!).toLocaleDateString()}).` : 'You have no recovery codes yet.'}
        </p>
      )}
      {codes && (
        <div className="notice info" data-testid="recovery-codes-shown">
          <p><strong>Your new recovery codes.</strong> They are shown only now; each works once. Earlier codes no longer work.</p>
          <ol className="recovery-codes" data-testid="recovery-codes">{codes.map((c) => <li key={c}><code>{c}</code></li>)}</ol>
          <div className="row-buttons">
            <button type="button" onClick={() => { void navigator.clipboard?.writeText(codes.join('\n')); }}>Copy</button>
            <button type="button" className="primary" onClick={() => setCodes(null)}>I saved them</button>
          </div>
        </div>
      )}
      {!codes && (confirm ? (
        <div className="row-buttons">
          <span className="small">New codes replace the ones you have; the old ones stop working.</span>
          <button type="button" className="primary" disabled={act.busy} onClick={generate}>Replace my codes</button>
          <button type="button" className="link" onClick={() => setConfirm(false)}>Keep them</button>
        </div>
      ) : (
        <button type="button" className={have ? '' : 'primary'} disabled={act.busy || !q.data} onClick={() => (have ? setConfirm(true) : generate())}>
          {have ? 'Regenerate recovery codes' : 'Generate recovery codes'}
        </button>
      ))}
      {act.error && <p className="error" role="alert">{act.error}</p>}
    </section>
  );
}
