/**
 * Jobs (issue 19 item 5): background work across services (`GET /v1/admin/jobs`) with state,
 * progress and errors, a Cancel button for queued or running ones, and which kinds are covered.
 * Refreshed every 3 s while shown.
 */
import { useEffect } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import { useAction } from '../app/use-action';

interface AdminJob { id: string; kind: string; service: string; state: string; progress: { done: number; total: number; failed: number } | null; error: string | null; started_at: string | null; finished_at: string | null; cancellable: boolean }
interface JobList { jobs: AdminJob[]; covered: string[]; not_covered: Array<{ kind: string; reason: string }>; unreachable: string[] }

export function JobsPanel() {
  const q = useQuery<JobList>('/v1/admin/jobs');
  const { refetch } = q;
  useEffect(() => { const t = setInterval(() => { void refetch(); }, 3000); return () => clearInterval(t); }, [refetch]);
  const act = useAction();
  const cancel = (id: string) => act.run(async () => { await api(`/v1/admin/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST' }); await refetch(); });
  const d = q.data;
  return (
    <div className="panel" data-testid="jobs-panel">
      {q.error && <p className="error">{q.error.message}</p>}
      {d && <p className="muted small">Covered: {d.covered.join(', ')}{d.unreachable.length ? ` · unreachable now: ${d.unreachable.join(', ')}` : ''}</p>}
      {act.error && <p className="error small" role="alert">{act.error}</p>}
      <table className="table">
        <thead><tr><th>Kind</th><th>Service</th><th>State</th><th>Progress</th><th>Started</th><th>Finished</th><th>Error</th><th /></tr></thead>
        <tbody>
          {(d?.jobs ?? []).map((j) => (
            <tr key={j.id} data-testid="job-row" data-state={j.state}>
              <td>{j.kind}</td><td>{j.service}</td><td>{j.state}</td>
              <td>{j.progress ? `${j.progress.done}/${j.progress.total}${j.progress.failed ? ` (${j.progress.failed} failed)` : ''}` : '—'}</td>
              <td className="small">{j.started_at ?? '—'}</td><td className="small">{j.finished_at ?? '—'}</td><td className="small">{j.error ?? ''}</td>
              <td>{j.cancellable && <button type="button" disabled={act.busy} onClick={() => { void cancel(j.id); }}>Cancel</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {d && d.jobs.length === 0 && <p className="muted">No background jobs.</p>}
      {d && d.not_covered.length > 0 && (
        <details><summary className="small">Not listed yet</summary><ul className="small">{d.not_covered.map((k) => <li key={k.kind}>{k.kind}: {k.reason}</li>)}</ul></details>
      )}
    </div>
  );
}
