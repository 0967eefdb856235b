/**
 * Updates (issue 19 item 4): what is deployed and pending (`GET /v1/admin/update`), the connected
 * manifest check, applying a signed offline bundle from a file (`POST /v1/admin/update/bundle`,
 * applied at the next start and run by the launcher, main/update/launch.ts), the running version,
 * the last start that failed and was rolled back, and rolling back to the previous version.
 */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import { tokens } from '../api/tokens';
import { useAction } from '../app/use-action';

interface Version { version: string; at: string; files: number }
interface UpdateView {
  app_version: string; running_version: string; running_installed_version?: boolean; deployed: Version | null; previous: Version | null;
  last_failure?: { version: string; at: string; reason: string; rolled_back_to: string | null } | null;
  pending: { kind: 'update'; version: string; staged_at: string } | { kind: 'rollback'; to: string; staged_at: string } | null;
  manifest: { url: string | null; status: string; latest_version: string | null; update_available: boolean; message: string | null };
}

export function UpdatesPanel() {
  const q = useQuery<UpdateView>('/v1/admin/update');
  const [file, setFile] = useState<File | null>(null);
  const act = useAction<'upload' | 'rollback'>();
  const upload = () => act.run(async () => {
    if (!file) throw new Error('Choose a bundle file first.');
    const t = await tokens.accessToken();
    const r = await fetch('/v1/admin/update/bundle', { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...(t ? { authorization: `Bearer ${t}` } : {}) }, body: file });
    if (!r.ok) { const b = await r.json().catch(() => ({})) as { error?: string; code?: string }; throw new Error(`${b.code ?? r.status}: ${b.error ?? 'refused'}`); }
    await q.refetch();
  }, 'upload');
  const rollback = () => act.run(async () => { await api('/v1/admin/update/rollback', { method: 'POST' }); await q.refetch(); }, 'rollback');
  const u = q.data;
  return (
    <div className="panel" data-testid="updates-panel">
      {q.error && <p className="error">{q.error.message}</p>}
      {u && (
        <table className="table"><tbody>
          <tr><th>Running</th><td data-testid="update-running">{u.running_version}{u.running_installed_version ? ' (installed update)' : ' (shipped app)'}</td></tr>
          <tr><th>Deployed update</th><td>{u.deployed ? `${u.deployed.version} (${u.deployed.at})` : 'none'}</td></tr>
          <tr><th>Previous</th><td>{u.previous ? u.previous.version : 'none'}</td></tr>
          <tr><th>Pending</th><td data-testid="update-pending">{u.pending ? (u.pending.kind === 'update' ? `update ${u.pending.version}` : `rollback to ${u.pending.to}`) + ' — applies at the next start' : 'nothing'}</td></tr>
          {u.last_failure && <tr><th>Last failed start</th><td className="error small" data-testid="update-failure">{u.last_failure.version} at {u.last_failure.at}: {u.last_failure.reason}; rolled back to {u.last_failure.rolled_back_to ?? 'the shipped app'}</td></tr>}
          <tr><th>Online check</th><td>{u.manifest.status}{u.manifest.latest_version ? ` · latest ${u.manifest.latest_version}${u.manifest.update_available ? ' (newer)' : ''}` : ''}{u.manifest.message ? ` · ${u.manifest.message}` : ''}</td></tr>
        </tbody></table>
      )}
      <section className="card" aria-label="Apply an update bundle">
        <h3>Apply a signed bundle</h3>
        <input type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <button type="button" disabled={act.busy || !file} onClick={() => { void upload(); }}>{act.pending === 'upload' ? 'Verifying…' : 'Verify and stage'}</button>
        <button type="button" disabled={act.busy || !u?.previous} onClick={() => { void rollback(); }}>Roll back to previous</button>
        {act.error && <p className="error small" role="alert">{act.error}</p>}
      </section>
    </div>
  );
}
