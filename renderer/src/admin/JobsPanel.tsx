/**
 * Jobs (issue 19 item 5): background work across services (`GET /v1/admin/jobs`) with state,
 * progress and errors, a Cancel button for queued or running ones, and which kinds are covered.
 * Refreshed every 3 s while shown.
 */
import { useEffect } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import { useAction } from '../app/use-action';

interface AdminJob {
  id: string; kind: string; service: string; state: string; progress: { done: number; total: number; failed: number; unit?: string } | null;
  error: string | null; started_at: string | null; finished_at: string | null; cancellable: boolean; detail?: Record<string, unknown>;
}

const KIND_LABELS: Record<string, string> = {
  backup: 'Backup', audit_seal: 'Sealing pass', memory_consolidation: 'Memory consolidation', knowledge_ingest: 'Knowledge ingest', connector_sync: 'Connector sync',
};

/** Progress as text: bytes in MiB, a total only when known. */
function progressText(p: AdminJob['progress']): string {
  if (!p) return '—';
  const unit = p.unit && p.unit !== 'items' ? ` ${p.unit}` : '';
  const done = p.unit === 'bytes' ? `${(p.done / 1048576).toFixed(1)} MiB` : `${p.done}`;
  const total = p.total > 0 ? (p.unit === 'bytes' ? ` / ${(p.total / 1048576).toFixed(1)} MiB` : `/${p.total}${unit}`) : (p.unit === 'bytes' ? '' : unit);
  return `${done}${total}${p.failed ? ` (${p.failed} failed)` : ''}`;
}

/** Kind-specific facts worth a glance (a backup's trigger and write pause, what a cancelled ingest kept). */
function detailText(j: AdminJob): string {
  const d = j.detail ?? {};
  const parts: string[] = [];
  if (typeof d.trigger === 'string') parts.push(d.trigger);
  if (typeof d.write_pause_ms === 'number') parts.push(`writes paused ${d.write_pause_ms} ms`);
  if (typeof d.knowledge_kind === 'string') parts.push(d.knowledge_kind);
  if (d.kept && typeof d.kept === 'object') parts.push(`kept ${JSON.stringify(d.kept)}`);
  if (typeof d.merged === 'number') parts.push(`${d.merged} merged`);
  return parts.join(' · ');
}
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
        <thead><tr><th>Kind</th><th>Service</th><th>State</th><th>Progress</th><th>Detail</th><th>Started</th><th>Finished</th><th>Error</th><th /></tr></thead>
        <tbody>
          {(d?.jobs ?? []).map((j) => (
            <tr key={j.id} data-testid="job-row" data-state={j.state} data-kind={j.kind}>
              <td>{KIND_LABELS[j.kind] ?? j.kind}</td><td>{j.service}</td><td>{j.state}</td>
              <td>{progressText(j.progress)}</td><td className="small">{detailText(j)}</td>
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
