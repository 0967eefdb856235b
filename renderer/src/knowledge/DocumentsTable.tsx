/**
 * The documents the user may read (`GET /v1/knowledge/documents`): status (refreshed while any is
 * indexing), visibility and audiences, and the owner's actions (visibility, reindex, archive/restore,
 * delete). The visibility editor opens under the row for owners and administrators.
 */
import { Fragment, useEffect, useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { DocumentView, Page, ProfileView } from '../api/types';
import { Link } from '../app/Link';
import { audienceOf, kindOf } from './labels';
import { VisibilityEditor } from './visibility';
import { canManage } from './visibility-draft';

type Archived = 'exclude' | 'include' | 'only';

/** Run a document action, then refetch what it changed. */
async function act(d: DocumentView, action: 'reindex' | 'archive' | 'restore' | 'delete'): Promise<void> {
  const path = `/v1/knowledge/documents/${encodeURIComponent(d.document_id)}`;
  if (action === 'delete') await api(path, { method: 'DELETE' });
  else await api(`${path}/${action}`, { method: 'POST' });
  invalidate('/v1/knowledge/');
}

/** Time today, else the date. */
function shortDate(iso: string): string {
  const d = new Date(iso);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString();
}

function StatusCell({ d }: { d: DocumentView }) {
  if (d.status === 'failed') return <><span className="status status-failed">Failed</span>{d.last_error && <div className="small error">{d.last_error}</div>}</>;
  if (d.status === 'indexing') return <span className="status status-indexing">Indexing {d.chunks_indexed ? `${d.chunks_embedded}/${d.chunks_indexed}` : '…'}</span>;
  return <span className="status status-indexed">{d.archived_at ? 'Archived' : 'Indexed'}</span>;
}

function Row({ d, manage, onError }: { d: DocumentView; manage: boolean; onError: (m: string | null) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [editing, setEditing] = useState(false);
  const run = async (a: 'reindex' | 'archive' | 'restore' | 'delete'): Promise<void> => {
    onError(null);
    try { await act(d, a); } catch (e) { onError(`${d.title}: ${e instanceof Error ? e.message : String(e)}`); }
  };
  return (
    <Fragment>
    <tr data-status={d.status}>
      <td><Link to={`/knowledge/${encodeURIComponent(d.document_id)}`}>{d.title}</Link></td>
      <td><span className="kind">{kindOf(d)}</span></td>
      <td><StatusCell d={d} /></td>
      <td><span className={`vis vis-${d.visibility_mode}`}>{d.visibility_mode}</span> <span className="muted small">{audienceOf(d)}</span></td>
      <td className="num">{d.chunks_indexed}</td>
      <td className="muted small nowrap" title={new Date(d.updated_at).toLocaleString()}>{shortDate(d.updated_at)}</td>
      <td><div className="cell-actions">
        {confirming ? (
          <>
            <span className="small">Delete for good?</span>
            <button type="button" className="link danger" onClick={() => { void run('delete'); }} aria-label={`Confirm delete ${d.title}`}>Delete</button>
            <button type="button" className="link" onClick={() => setConfirming(false)}>Cancel</button>
          </>
        ) : (
          <>
            {manage && <button type="button" className="link" onClick={() => setEditing((x) => !x)} aria-expanded={editing} aria-label={`Change visibility of ${d.title}`}>Visibility…</button>}
            <button type="button" className="link" onClick={() => { void run('reindex'); }} aria-label={`Reindex ${d.title}`}>Reindex</button>
            {d.archived_at
              ? <button type="button" className="link" onClick={() => { void run('restore'); }} aria-label={`Restore ${d.title}`}>Restore</button>
              : <button type="button" className="link" onClick={() => { void run('archive'); }} aria-label={`Archive ${d.title}`}>Archive</button>}
            <button type="button" className="link danger" onClick={() => setConfirming(true)} aria-label={`Delete ${d.title}`}>Delete</button>
          </>
        )}
      </div></td>
    </tr>
    {editing && manage && (
      <tr className="row-editor"><td colSpan={7}><VisibilityEditor doc={d} onDone={() => setEditing(false)} /></td></tr>
    )}
    </Fragment>
  );
}

export function DocumentsTable() {
  const [archived, setArchived] = useState<Archived>('exclude');
  const [filter, setFilter] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const q = filter.trim();
  const key = `/v1/knowledge/documents?limit=200&archived=${archived}${q ? `&q=${encodeURIComponent(q)}` : ''}`;
  const docs = useQuery<Page<DocumentView>>(key);
  const me = useQuery<ProfileView>('/v1/user/me');
  const items = docs.data?.items ?? [];
  const indexing = items.some((d) => d.status === 'indexing');
  const { refetch } = docs;

  // Vectors are embedded in the background: refresh while anything is still indexing.
  useEffect(() => {
    if (!indexing) return;
    const t = setInterval(() => { void refetch(); }, 1500);
    return () => clearInterval(t);
  }, [indexing, refetch]);

  return (
    <section aria-labelledby="k-docs-h">
      <div className="pane-head">
        <h2 id="k-docs-h">Documents</h2>
        <div className="row-buttons">
          <input type="search" aria-label="Filter documents by title" placeholder="Filter by title" value={filter} onChange={(e) => setFilter(e.target.value)} />
          <select aria-label="Archived documents" value={archived} onChange={(e) => setArchived(e.target.value as Archived)}>
            <option value="exclude">Active</option>
            <option value="include">Active and archived</option>
            <option value="only">Archived only</option>
          </select>
          <button type="button" className="link" onClick={() => { void refetch(); }}>Refresh</button>
        </div>
      </div>
      {docs.error && <p className="error" role="alert">Documents could not be loaded: {docs.error.message}</p>}
      {err && <p className="error" role="alert">{err}</p>}
      {!docs.loading && !docs.error && items.length === 0 && (
        <div className="empty-box">
          {q || archived !== 'exclude'
            ? <p className="muted">No document matches.</p>
            : <><p><strong>No documents yet.</strong></p><p className="muted">Upload a PDF, Word, Markdown or text file above; the assistant can then search it and cite it in chat.</p></>}
        </div>
      )}
      {items.length > 0 && (
        <table className="table" aria-label="Documents">
          <thead><tr><th>Title</th><th>Type</th><th>Status</th><th>Visibility</th><th className="num">Passages</th><th>Updated</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>{items.map((d) => <Row key={d.document_id} d={d} manage={canManage(me.data, d)} onError={setErr} />)}</tbody>
        </table>
      )}
      {docs.data?.next_cursor && <p className="muted small">Showing the first {items.length}; narrow the filter to find others.</p>}
    </section>
  );
}
