/** Audit chain verification (`GET /v1/admin/audit/verify?tenant_id=`): the five checks over the whole chain. */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { ChainCheck, ChainReport, ProfileView } from '../api/types';
import { useAction } from '../app/use-action';

const CHECKS: Record<ChainCheck, string> = {
  chain_continuity: 'Chain continuity (previous hash)', hmac: 'Row signatures (HMAC)', seq_run: 'Sequence runs 1..N',
  chain_head: 'Chain-head rows agree', counts: 'Counts and max(seq) agree',
};

export function AuditPanel() {
  const me = useQuery<ProfileView>('/v1/user/me');
  const [report, setReport] = useState<ChainReport | null>(null);
  const action = useAction((e) => (e instanceof ApiError ? e.message : String(e)));
  const [at, setAt] = useState<Date | null>(null);
  const run = async (): Promise<void> => {
    const tenant = me.data?.tenant_id;
    if (tenant === undefined) return;
    await action.run(async () => {
      setReport(await api<ChainReport>(`/v1/admin/audit/verify?tenant_id=${encodeURIComponent(tenant)}`));
      setAt(new Date());
    });
  };
  return (
    <div className="panel">
      <p className="muted">Walks the tenant's whole audit chain and checks continuity, signatures, sequence, chain heads and counts.</p>
      <button type="button" className="primary" onClick={() => { void run(); }} disabled={action.busy || !me.data}>{action.busy ? 'Verifying…' : 'Verify audit chain'}</button>
      {action.error && <p className="error" role="alert">{action.error}</p>}
      {report && (
        <div className={`card checks ${report.ok ? 'ok' : 'bad'}`} aria-label="Chain verification report">
          <strong>{report.ok ? `The chain holds: ${report.checked} rows checked.` : `${report.failures.length} failure${report.failures.length === 1 ? '' : 's'} in ${report.checked} rows.`}</strong>
          <ul>{Object.entries(CHECKS).map(([id, title]) => {
            const n = report.failures.filter((f) => f.check === id).length;
            return <li key={id} className={n ? 'bad' : 'ok'}><span aria-hidden="true">{n ? '✗' : '✓'}</span> {title}{n ? `: ${n} failure${n === 1 ? '' : 's'}` : ''}</li>;
          })}</ul>
          {report.failures.length > 0 && (
            <table className="table">
              <thead><tr><th>Check</th><th>Row</th><th>Why</th></tr></thead>
              <tbody>{report.failures.slice(0, 100).map((f, i) => <tr key={i}><td>{f.check}</td><td>{f.seq ?? '—'}</td><td>{f.reason}</td></tr>)}</tbody>
            </table>
          )}
          {at && <p className="muted small">Checked {at.toLocaleString()}</p>}
        </div>
      )}
    </div>
  );
}
