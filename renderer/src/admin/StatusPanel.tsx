/** Services status (`GET /v1/admin/status`), refreshed every 5 s while shown. */
import { useEffect } from 'react';
import { useQuery } from '../api/cache';
import type { StatusView } from '../api/types';

function uptime(s: number | null): string {
  if (s === null || s === undefined) return '—';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export function StatusPanel() {
  const st = useQuery<StatusView>('/v1/admin/status');
  const { refetch } = st;
  useEffect(() => {
    const t = setInterval(() => { void refetch(); }, 5000);
    return () => clearInterval(t);
  }, [refetch]);
  const services = st.data?.services ?? [];
  const up = services.filter((s) => s.state === 'ready').length;
  return (
    <div className="panel">
      {st.error && <p className="error">{st.error.message}</p>}
      {st.data && <p className="muted">{up} of {services.length} services ready{st.data.tenant_id ? ` · tenant ${st.data.tenant_id}` : ''}</p>}
      <table className="table">
        <thead><tr><th>Service</th><th>State</th><th>Port</th><th>Uptime</th><th>Restarts</th><th>Readiness</th></tr></thead>
        <tbody>
          {services.map((s) => (
            <tr key={s.name}><td>{s.name}</td><td><span className={`state state-${s.state}`}>{s.state}</span></td><td>{s.port ?? '—'}</td><td>{uptime(s.uptime_seconds)}</td><td>{s.restarts}</td><td>{s.readiness ? <span className="warn" data-testid="service-not-ready">{s.readiness}</span> : <span className="muted">{s.readiness === null ? 'ready' : '—'}</span>}</td></tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
