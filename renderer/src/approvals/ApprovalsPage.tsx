/** Approvals inbox: pending tool calls waiting for the user, then recent decisions. */
import { useQuery } from '../api/cache';
import { ApiError } from '../api/http';
import type { ApprovalView, Page } from '../api/types';
import { ApprovalCard } from '../chat/ApprovalCard';
import { Link } from '../app/Link';

export function ApprovalsPage() {
  const pending = useQuery<Page<ApprovalView>>('/v1/user/approvals?status=pending');
  const all = useQuery<Page<ApprovalView>>('/v1/user/approvals');
  const decided = (all.data?.items ?? []).filter((a) => a.status !== 'pending').slice(0, 50);
  const unavailable = pending.error instanceof ApiError && (pending.error.status === 404 || pending.error.status === 502);
  return (
    <div className="page">
      <div className="pane-head"><h1>Approvals</h1><button type="button" className="link" onClick={() => { void pending.refetch(); void all.refetch(); }}>Refresh</button></div>
      {unavailable && <p className="muted">Approvals are not available on this server yet.</p>}
      {!unavailable && pending.error && <p className="error">{pending.error.message}</p>}
      {!pending.loading && !pending.error && (pending.data?.items.length ?? 0) === 0 && <p className="muted">Nothing waits for you.</p>}
      <div className="approval-list">
        {(pending.data?.items ?? []).map((a) => (
          <div key={a.id}>
            <ApprovalCard approval={a} />
            <p className="muted small">In <Link to={`/chat/${encodeURIComponent(a.session_id)}`}>this chat</Link> · asked {new Date(a.created_at).toLocaleString()} · expires {new Date(a.expires_at).toLocaleTimeString()}</p>
          </div>
        ))}
      </div>
      {decided.length > 0 && (
        <>
          <h2>Decided</h2>
          <table className="table">
            <thead><tr><th>Tool</th><th>Decision</th><th>When</th></tr></thead>
            <tbody>{decided.map((a) => <tr key={a.id}><td>{a.tool}</td><td>{a.status}</td><td>{a.decided_at ? new Date(a.decided_at).toLocaleString() : '—'}</td></tr>)}</tbody>
          </table>
        </>
      )}
    </div>
  );
}
