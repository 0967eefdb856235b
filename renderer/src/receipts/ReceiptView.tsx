/**
 * A turn's receipt: status, Merkle root, envelope, the event timeline, the audit chain suffix,
 * "Verify" (server-side check, `POST /v1/receipts/{turn}/verify`) and "Export bundle" (the JSON
 * `scripts/svc-verify --receipt` checks offline). Receipt format v1.1 (docs/receipts.md): other
 * users' suffix rows come redacted for non-admins; the suffix table marks them and the verification
 * says how many rows were checked in full and how many by link only.
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { ProofExport, ReceiptBundle, ReceiptVerifyResponse } from '../api/types';
import { useAction } from '../app/use-action';
import { receiptVerified, useReceipt } from './status';
import { receiptKey } from './receipt-status';
import { ReceiptBadge } from './ReceiptBadge';
import { saveText } from './save';

const apiErrorText = (e: unknown): string => (e instanceof ApiError ? e.message : String(e));

function short(h: string | null | undefined, n = 16): string {
  return h ? (h.length > n ? `${h.slice(0, n)}…` : h) : '—';
}

function payloadOf(json: string): string {
  try { return JSON.stringify(JSON.parse(json), null, 2); } catch { return json; }
}

type ProofRow = ProofExport['audit_chain']['suffix'][number];

/** What a suffix row shows of its content: the action of a full row, or that it is redacted. */
function rowContent(r: ProofRow): { text: string; title: string; redacted: boolean } {
  if (!('signed_payload' in r)) {
    return { text: 'redacted', title: `Another user's row: only its link is shown (payload SHA-256 ${r.signed_payload_sha256})`, redacted: true };
  }
  let action = 'in full';
  try {
    const p = JSON.parse(r.signed_payload) as { action?: unknown };
    if (typeof p.action === 'string') action = p.action;
  } catch { /* shown as "in full" */ }
  return { text: action, title: 'In full: signature and links checked', redacted: false };
}

/** One sentence on what the verification checked of the suffix (v1.1: full vs link only). */
function coverageText(s: ReceiptVerifyResponse['suffix']): string {
  if (s.redacted === 0) return `All ${s.rows} audit chain rows were checked in full (signature and links).`;
  const tail = s.redacted_tail > 0 ? ` The last ${s.redacted_tail} come after your last row, so nothing in this receipt pins them yet.` : '';
  return `${s.full} of ${s.rows} audit chain rows were checked in full (signature and links); ${s.redacted} rows of other users were checked by their links only and their content is not shown.${tail}`;
}

/** "N rows" or "N rows, M redacted" for the suffix heading. */
function suffixSummary(rows: readonly ProofRow[]): string {
  const redacted = rows.filter((r) => !('signed_payload' in r)).length;
  return redacted > 0 ? `${rows.length} rows, ${redacted} of other users redacted` : `${rows.length} rows`;
}

export function ReceiptView({ turnId }: { turnId: string }) {
  const base = receiptKey(turnId);
  // One cache entry per turn: the badges of the chat read the same status and detail.
  const { status, detail } = useReceipt(turnId, 'pending');
  const sealed = status === 'sealed' || status === 'verified' || status === 'failed';
  const proof = useQuery<ProofExport>(sealed ? `${base}/proof` : null);
  const [verify, setVerify] = useState<ReceiptVerifyResponse | null>(null);
  const action = useAction<'verify' | 'export'>(apiErrorText);
  const [saved, setSaved] = useState<string | null>(null);

  const doVerify = (): Promise<boolean> => action.run(async () => {
    const r = await api<ReceiptVerifyResponse>(`${base}/verify`, { method: 'POST', json: {} });
    setVerify(r);
    receiptVerified(turnId, r);
    // The chain grew since the proof was read; the list shows verified_at now.
    invalidate(`${base}/proof`);
    invalidate('/v1/receipts?');
  }, 'verify');
  const doExport = (): Promise<boolean> => action.run(async () => {
    const b = await api<ReceiptBundle>(`${base}/bundle`);
    const where = await saveText(`receipt-${turnId}.json`, `${JSON.stringify(b, null, 2)}\n`);
    setSaved(where === null ? null : where === 'download' ? 'Bundle downloaded.' : `Saved to ${where}`);
  }, 'export');

  const d = detail.data;
  const env = d?.envelope;
  return (
    <div className="receipt" data-testid="receipt-view">
      <div className="receipt-head">
        <ReceiptBadge turnId={turnId} initial="pending" />
        <code className="turn-id" title="Turn id">{turnId}</code>
      </div>
      {!sealed && <p className="muted">This turn is not sealed yet. The receipt seals when the turn ends; this view updates by itself.</p>}
      {sealed && detail.error && <p className="error" role="alert">{detail.error.message}</p>}
      {d && env && (
        <>
          <div className="row-buttons">
            <button type="button" className="primary" onClick={() => { void doVerify(); }} disabled={action.busy}>{action.pending === 'verify' ? 'Verifying…' : 'Verify'}</button>
            <button type="button" onClick={() => { void doExport(); }} disabled={action.busy}>{action.pending === 'export' ? 'Exporting…' : 'Export bundle'}</button>
          </div>
          {saved && <p className="ok small" role="status">{saved}</p>}
          {action.error && <p className="error" role="alert">{action.error}</p>}
          {verify && (
            <div className={`card checks ${verify.ok ? 'ok' : 'bad'}`} aria-label="Verification report">
              <strong>{verify.ok ? 'Every check holds.' : 'Verification failed.'}</strong>
              <ul>{verify.checks.map((c) => <li key={c.id} className={c.ok ? 'ok' : 'bad'}><span aria-hidden="true">{c.ok ? '✓' : '✗'}</span> {c.title}: <span className="muted">{c.detail}</span></li>)}</ul>
              <p className="small" data-testid="suffix-coverage">{coverageText(verify.suffix)}</p>
              {verify.verified_at && <p className="muted small">Verified {new Date(verify.verified_at).toLocaleString()}{verify.verified_by ? ` by ${verify.verified_by}` : ''}</p>}
            </div>
          )}
          <dl className="facts">
            <dt>Merkle root</dt><dd><code className="hash" title={env.payload.merkle_root}>{env.payload.merkle_root}</code></dd>
            <dt>Envelope</dt><dd>{env.payload.status} · {env.payload.seal_reason.replace(/_/g, ' ')} · {env.payload.event_count} events · key {env.key_version}</dd>
            <dt>Anchored</dt><dd>audit row #{env.audit_seq} · chain hash <code className="hash" title={env.audit_chain_hash}>{short(env.audit_chain_hash, 24)}</code></dd>
            <dt>Signature</dt><dd><code className="hash" title={env.signature}>{short(env.signature, 24)}</code></dd>
          </dl>
          <h3>Event timeline</h3>
          <ol className="timeline">
            {d.events.map((e) => (
              <li key={e.event_id}>
                <details>
                  <summary><time>{new Date(e.occurred_at).toLocaleTimeString()}</time> <strong>{e.payload_type}</strong> <span className="muted">{e.emitter_service}</span></summary>
                  <pre>{payloadOf(e.payload_json)}</pre>
                </details>
              </li>
            ))}
          </ol>
          <details className="section">
            <summary>Envelope</summary>
            <pre>{JSON.stringify(env, null, 2)}</pre>
          </details>
          <details className="section" open>
            <summary>Audit chain suffix ({proof.data ? suffixSummary(proof.data.audit_chain.suffix) : '…'})</summary>
            {proof.data && (
              <table className="table">
                <thead><tr><th>seq</th><th>row</th><th>previous hash</th><th>chain hash</th><th>key</th></tr></thead>
                <tbody>
                  {proof.data.audit_chain.suffix.map((r) => {
                    const c = rowContent(r);
                    return (
                      <tr key={r.id} className={c.redacted ? 'muted' : undefined}>
                        <td>{r.seq}</td><td title={c.title}>{c.redacted ? <em>{c.text}</em> : c.text}</td>
                        <td><code title={r.previous_hash}>{short(r.previous_hash)}</code></td><td><code title={r.chain_hash}>{short(r.chain_hash)}</code></td><td>{r.key_version}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
          </details>
        </>
      )}
    </div>
  );
}
