/**
 * Backups (issue 19 item 2; `/v1/admin/backups*`): create an encrypted backup with a passphrase,
 * list, download and delete archives, and dry-run a restore, showing the audit chain report of the
 * restored copy. A real restore is staged and applies when the workstation next starts.
 */
import { useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, apiFetch, ApiError } from '../api/http';
import { useAction } from '../app/use-action';

interface Backup { id: string; created_at: string; bytes: number }
interface RestoreReport {
  id: string; dry_run: boolean; staged: boolean; created_at: string; stores: string[]; files: number; keychain_services: string[];
  audit_chain: { ok: boolean; checked: number; failures: Array<{ check: string; seq: number | null; reason: string }> };
}

const mib = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;

/** The Backups tab of the Admin page. */
export function BackupsPanel() {
  const list = useQuery<{ backups: Backup[] }>('/v1/admin/backups');
  const [passphrase, setPassphrase] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const [restorePass, setRestorePass] = useState('');
  const [report, setReport] = useState<RestoreReport | null>(null);
  const action = useAction((e) => (e instanceof ApiError ? `${e.message}${e.code ? ` (${e.code})` : ''}` : String(e)));

  const create = (): void => {
    void action.run(async () => {
      await api<Backup>('/v1/admin/backups', { method: 'POST', json: { passphrase } });
      setPassphrase('');
      invalidate('/v1/admin/backups');
    });
  };
  const download = (id: string): void => {
    void action.run(async () => {
      const res = await apiFetch(`/v1/admin/backups/${encodeURIComponent(id)}/download`);
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement('a');
      a.href = url; a.download = `${id}.svcbak`; a.click();
      URL.revokeObjectURL(url);
    });
  };
  const remove = (id: string): void => {
    void action.run(async () => {
      await api(`/v1/admin/backups/${encodeURIComponent(id)}`, { method: 'DELETE' });
      invalidate('/v1/admin/backups');
    });
  };
  const restore = (dryRun: boolean): void => {
    if (!selected) return;
    void action.run(async () => {
      setReport(await api<RestoreReport>(`/v1/admin/backups/${encodeURIComponent(selected)}/restore`, { method: 'POST', json: { passphrase: restorePass, dry_run: dryRun } }));
    });
  };

  return (
    <div className="panel">
      <p className="muted">A backup holds every store at one point in time, the objects and the keys, encrypted with your passphrase (scrypt + AES-256-GCM). Keep the passphrase: without it the backup cannot be opened.</p>
      <form onSubmit={(e) => { e.preventDefault(); create(); }} aria-label="Create a backup">
        <label>Passphrase <input type="password" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} minLength={8} autoComplete="new-password" /></label>
        <button type="submit" className="primary" disabled={action.busy || passphrase.length < 8}>{action.busy ? 'Working…' : 'Create backup'}</button>
      </form>
      {action.error && <p className="error" role="alert">{action.error}</p>}
      <table className="table" aria-label="Backups">
        <thead><tr><th>Backup</th><th>Taken</th><th>Size</th><th /></tr></thead>
        <tbody>
          {(list.data?.backups ?? []).map((b) => (
            <tr key={b.id} className={b.id === selected ? 'selected' : undefined}>
              <td><code>{b.id}</code></td>
              <td>{new Date(b.created_at).toLocaleString()}</td>
              <td>{mib(b.bytes)}</td>
              <td>
                <button type="button" onClick={() => { setSelected(b.id); setReport(null); }}>Restore…</button>{' '}
                <button type="button" onClick={() => download(b.id)}>Download</button>{' '}
                <button type="button" className="danger" onClick={() => remove(b.id)}>Delete</button>
              </td>
            </tr>
          ))}
          {list.data && list.data.backups.length === 0 && <tr><td colSpan={4} className="muted">No backups yet.</td></tr>}
        </tbody>
      </table>
      {selected && (
        <div className="card" aria-label="Restore">
          <p><strong>Restore <code>{selected}</code></strong></p>
          <label>Passphrase <input type="password" value={restorePass} onChange={(e) => setRestorePass(e.target.value)} autoComplete="off" /></label>
          <button type="button" className="primary" disabled={action.busy || !restorePass} onClick={() => restore(true)}>Dry run</button>{' '}
          <button type="button" className="danger" disabled={action.busy || !restorePass || !report?.audit_chain.ok} onClick={() => restore(false)}
            title="Enabled after a dry run whose audit chain holds">Restore on next start</button>
          {report && (
            <div className={`checks ${report.audit_chain.ok ? 'ok' : 'bad'}`} aria-label="Restore report">
              <p>{report.staged ? 'Staged: the workstation restores this backup when it next starts; the current data is kept aside.' : 'Dry run: nothing was changed.'}</p>
              <p><strong>{report.audit_chain.ok ? `The audit chain holds: ${report.audit_chain.checked} rows checked.` : `${report.audit_chain.failures.length} failures in ${report.audit_chain.checked} rows.`}</strong></p>
              <p className="muted small">{report.stores.length} stores, {report.files} files{report.keychain_services.length ? `, keychain: ${report.keychain_services.join(', ')}` : ''}; taken {new Date(report.created_at).toLocaleString()}</p>
              {report.audit_chain.failures.length > 0 && (
                <table className="table"><thead><tr><th>Check</th><th>Row</th><th>Why</th></tr></thead>
                  <tbody>{report.audit_chain.failures.slice(0, 50).map((f, i) => <tr key={i}><td>{f.check}</td><td>{f.seq ?? '—'}</td><td>{f.reason}</td></tr>)}</tbody></table>
              )}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
