/**
 * Admin knowledge connectors (issue 18 items 3 and 4; `/v1/admin/context/*`): the list, create a
 * folder or IMAP connector (the IMAP password or OAuth access token is named by a tenant secret, never typed here),
 * check the connection, choose the surfaces (sub-folders, mailboxes) to sync, sync now with the
 * job's progress, and each synced item with its last error.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/http';
import { useQuery } from '../api/cache';

interface Connector {
  id: string; kind: 'folder' | 'imap'; name: string; config: Record<string, unknown>; visibility_mode: string; audience_tags: string[]; user_grants: string[];
  schedule_minutes: number | null; status: string; last_sync_at: string | null; last_error: string | null;
}
interface Surface { id: string; name: string; kind: string; selected: boolean; items?: number }
interface Doc { path_or_uid: string; document_id: string | null; status: string; last_error: string | null; synced_at: string }
interface Job { job_id: string; state: string; progress: { total: number; done: number; failed: number }; error: string | null }

const msg = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);
const enc = encodeURIComponent;

/** A running or finished sync job, polled every half second until it ends. */
function JobProgress({ jobId, onDone }: { jobId: string; onDone: () => void }) {
  const [job, setJob] = useState<Job | null>(null);
  useEffect(() => {
    let stop = false;
    const poll = async (): Promise<void> => {
      while (!stop) {
        try {
          const j = await api<Job>(`/v1/admin/context/sync/${enc(jobId)}`);
          setJob(j);
          if (j.state === 'succeeded' || j.state === 'failed') { onDone(); return; }
        } catch { /* shown by the next poll */ }
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    void poll();
    return () => { stop = true; };
  }, [jobId]); // eslint-disable-line react-hooks/exhaustive-deps -- poll once per job
  if (!job) return <p className="muted" role="status">Sync queued…</p>;
  const { total, done, failed } = job.progress;
  return (
    <div role="status" data-testid="sync-progress">
      <progress max={Math.max(total, 1)} value={done} /> {done} / {total} items{failed ? `, ${failed} failed` : ''} — {job.state}
      {job.error && <p className="error">{job.error}</p>}
    </div>
  );
}

/** One connector's details: check, surfaces, sync, documents. */
function ConnectorDetail({ c, onChanged }: { c: Connector; onChanged: () => void }) {
  const base = `/v1/admin/context/connectors/${enc(c.id)}`;
  const docs = useQuery<{ documents: Doc[] }>(`${base}/documents`);
  const [surfaces, setSurfaces] = useState<Surface[] | null>(null);
  const [check, setCheck] = useState<{ ok: boolean; error?: string; detail: string } | null>(null);
  const [job, setJob] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>): Promise<void> => { setError(null); try { await fn(); } catch (e) { setError(msg(e)); } };
  return (
    <div className="card" aria-label={`Connector ${c.name}`}>
      <h2>{c.name}</h2>
      <div className="cell-actions">
        <button type="button" onClick={() => { void run(async () => setCheck(await api(`${base}/check`, { method: 'POST' }))); }}>Check</button>
        <button type="button" onClick={() => { void run(async () => setSurfaces((await api<{ surfaces: Surface[] }>(`${base}/surfaces`)).surfaces)); }}>Surfaces</button>
        <button type="button" className="primary" disabled={!!job} onClick={() => { void run(async () => setJob((await api<{ job_id: string }>('/v1/admin/context/sync', { method: 'POST', json: { connector_id: c.id } })).job_id)); }}>Sync now</button>
      </div>
      {check && <p className={check.ok ? 'muted' : 'error'} role="status">{check.ok ? `OK — ${check.detail}` : `Failed: ${check.error ?? ''} (${check.detail})`}</p>}
      {job && <JobProgress jobId={job} onDone={() => { setJob(null); void docs.refetch(); onChanged(); }} />}
      {surfaces && (
        <fieldset aria-label="Surfaces">
          <legend>Surfaces to sync</legend>
          {surfaces.map((s) => (
            <label key={s.id} className="check">
              <input type="checkbox" checked={s.selected} onChange={() => setSurfaces(surfaces.map((x) => (x.id === s.id ? { ...x, selected: !x.selected } : x)))} />
              {s.name}{s.items !== undefined ? ` (${s.items})` : ''}
            </label>
          ))}
          <button type="button" onClick={() => { void run(async () => setSurfaces((await api<{ surfaces: Surface[] }>(`${base}/surfaces`, { method: 'POST', json: { selected: surfaces.filter((s) => s.selected).map((s) => s.id) } })).surfaces)); }}>Save selection</button>
        </fieldset>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      <table className="table" aria-label={`Documents of ${c.name}`}>
        <thead><tr><th>Item</th><th>Status</th><th>Last error</th><th>Synced</th></tr></thead>
        <tbody>
          {(docs.data?.documents ?? []).length === 0 && <tr><td colSpan={4} className="muted">Nothing synced yet.</td></tr>}
          {(docs.data?.documents ?? []).map((d) => (
            <tr key={d.path_or_uid}>
              <td><code>{d.path_or_uid}</code></td>
              <td><span className={`state state-${d.status === 'indexed' ? 'ready' : 'failed'}`}>{d.status}</span></td>
              <td className="small">{d.last_error ?? '—'}</td>
              <td>{new Date(d.synced_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The admin's connectors tab. */
export function ConnectorsPanel() {
  const connectors = useQuery<{ connectors: Connector[] }>('/v1/admin/context/connectors');
  const [kind, setKind] = useState<'folder' | 'imap'>('folder');
  const [f, setF] = useState({ name: '', path: '', host: '', port: '993', tls: true, username: '', credential: 'password_secret', secret: '', mailboxes: '', visibility: 'private', audiences: '', grants: '', schedule: '' });
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const create = (e: FormEvent): void => {
    e.preventDefault();
    const config = kind === 'folder' ? { path: f.path.trim() }
      : { host: f.host.trim(), port: Number(f.port), tls: f.tls, username: f.username.trim(), [f.credential]: f.secret.trim(), ...(list(f.mailboxes).length ? { mailboxes: list(f.mailboxes) } : {}) };
    void (async () => {
      setError(null);
      try {
        const c = await api<Connector>('/v1/admin/context/connectors', { method: 'POST', json: {
          kind, name: f.name.trim(), config, visibility_mode: f.visibility, audience_tags: list(f.audiences),
          ...(f.visibility === 'restricted' ? { user_grants: list(f.grants) } : {}), ...(f.schedule ? { schedule_minutes: Number(f.schedule) } : {}),
        } });
        setOpen(c.id);
        await connectors.refetch();
      } catch (err) { setError(msg(err)); }
    })();
  };
  const remove = (id: string): void => {
    void (async () => { try { await api(`/v1/admin/context/connectors/${enc(id)}`, { method: 'DELETE' }); if (open === id) setOpen(null); await connectors.refetch(); } catch (err) { setError(msg(err)); } })();
  };
  const rows = connectors.data?.connectors ?? [];
  const current = rows.find((c) => c.id === open);
  return (
    <div className="panel">
      <p className="muted">Connectors keep a folder on this workstation or an IMAP mailbox in sync with knowledge, with the visibility chosen here.</p>
      <form className="card form-grid" onSubmit={create} aria-label="New connector">
        <label>Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as 'folder' | 'imap')}>
            <option value="folder">Folder</option><option value="imap">IMAP mailbox</option>
          </select>
        </label>
        <label>Name <input value={f.name} onChange={set('name')} required maxLength={200} /></label>
        {kind === 'folder' && <label>Folder path <input value={f.path} onChange={set('path')} required placeholder="/home/me/notes" /></label>}
        {kind === 'imap' && <>
          <label>Host <input value={f.host} onChange={set('host')} required /></label>
          <label>Port <input value={f.port} onChange={set('port')} inputMode="numeric" required /></label>
          <label className="check"><input type="checkbox" checked={f.tls} onChange={() => setF({ ...f, tls: !f.tls })} /> TLS</label>
          <label>Username <input value={f.username} onChange={set('username')} required /></label>
          <label>Sign in with
            <select value={f.credential} onChange={set('credential')}>
              <option value="password_secret">a password</option><option value="access_token_secret">an OAuth access token (XOAUTH2)</option>
            </select>
          </label>
          <label>{f.credential === 'password_secret' ? 'Password' : 'Access token'} secret (tenant secret name) <input value={f.secret} onChange={set('secret')} required /></label>
          <label>Mailboxes (comma separated, default INBOX) <input value={f.mailboxes} onChange={set('mailboxes')} /></label>
        </>}
        <label>Visibility
          <select value={f.visibility} onChange={set('visibility')}>
            <option value="private">Private (me)</option><option value="restricted">Restricted (audiences, users)</option><option value="shared">Shared (tenant or audiences)</option>
          </select>
        </label>
        {f.visibility !== 'private' && <label>Audience tags <input value={f.audiences} onChange={set('audiences')} /></label>}
        {f.visibility === 'restricted' && <label>User ids <input value={f.grants} onChange={set('grants')} /></label>}
        <label>Sync every (minutes, empty = on demand) <input value={f.schedule} onChange={set('schedule')} inputMode="numeric" /></label>
        <div className="cell-actions"><button type="submit" className="primary" disabled={!f.name.trim()}>Create connector</button></div>
      </form>
      {(error || connectors.error) && <p className="error" role="alert">{error ?? connectors.error?.message}</p>}
      <table className="table" aria-label="Connectors">
        <thead><tr><th>Name</th><th>Kind</th><th>Visibility</th><th>Status</th><th>Last sync</th><th /></tr></thead>
        <tbody>
          {rows.length === 0 && <tr><td colSpan={6} className="muted">No connectors.</td></tr>}
          {rows.map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td><td>{c.kind}</td><td>{c.visibility_mode}</td>
              <td><span className={`state state-${c.status === 'error' ? 'failed' : 'ready'}`}>{c.status}</span>{c.last_error ? <span className="small error"> {c.last_error}</span> : null}</td>
              <td>{c.last_sync_at ? new Date(c.last_sync_at).toLocaleString() : '—'}</td>
              <td><div className="cell-actions">
                <button type="button" className="link" onClick={() => setOpen(open === c.id ? null : c.id)} aria-label={`Open ${c.name}`}>Open</button>
                <button type="button" className="link danger" onClick={() => remove(c.id)} aria-label={`Delete ${c.name}`}>Delete</button>
              </div></td>
            </tr>
          ))}
        </tbody>
      </table>
      {current && <ConnectorDetail key={current.id} c={current} onChanged={() => { void connectors.refetch(); }} />}
    </div>
  );
}
