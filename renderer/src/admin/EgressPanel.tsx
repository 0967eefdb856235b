/**
 * Egress (issue 19 item 6; spec `/v1/admin/egress/*`, `GET /v1/admin/audit/egress/stats`): the policy
 * in force and the proxy's state, the allowlist (add `host:port`, `*.domain:port` or `host:*`; remove),
 * a chart of allowed and denied requests over time (per hour for the last day, per day for the last
 * month) and the top destinations. Refreshed every 10 s while shown.
 */
import { useEffect, useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import { useAction } from '../app/use-action';
import type { EgressAllowlistView } from '../../../services/inference-router/src/contracts.js';
import type { EgressStats } from '../../../services/audit/src/contracts.js';

const ALLOWLIST = '/v1/admin/egress/allowlist';
type Bucket = EgressStats['buckets'][number];

/** Stacked bars (allow below, deny above) per time bucket; hand-made SVG like the usage chart. */
export function EgressChart({ buckets, width = 640, height = 180 }: { buckets: Bucket[]; width?: number; height?: number }) {
  const pad = { l: 48, r: 12, t: 12, b: 28 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const rows = [...buckets].filter((b) => b.key !== null).sort((a, b) => String(a.key).localeCompare(String(b.key)));
  const max = Math.max(1, ...rows.map((b) => b.hits));
  const bw = rows.length ? w / rows.length : w;
  const every = Math.max(1, Math.ceil(rows.length / 8));
  return (
    <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Egress requests over ${rows.length} periods: allowed and denied`}>
      <line x1={pad.l} y1={pad.t + h} x2={pad.l + w} y2={pad.t + h} className="axis" />
      <text x={pad.l - 6} y={pad.t + 10} className="tick" textAnchor="end">{max}</text>
      <text x={pad.l - 6} y={pad.t + h} className="tick" textAnchor="end">0</text>
      {rows.map((b, i) => {
        const x = pad.l + i * bw + (bw - Math.min(bw * 0.7, 30)) / 2;
        const bwid = Math.min(bw * 0.7, 30);
        const ah = (b.allow / max) * h;
        const dh = (b.deny / max) * h;
        return (
          <g key={String(b.key)} data-testid="egress-bar">
            <rect x={x} y={pad.t + h - ah} width={bwid} height={ah} className="bar"><title>{`${b.key}: ${b.allow} allowed`}</title></rect>
            <rect x={x} y={pad.t + h - ah - dh} width={bwid} height={dh} className="bar bar-deny" style={{ fill: 'var(--danger, #c0392b)' }}><title>{`${b.key}: ${b.deny} denied`}</title></rect>
            {i % every === 0 && <text x={pad.l + i * bw + bw / 2} y={height - 8} className="tick" textAnchor="middle">{String(b.key).slice(5, 13).replace('T', ' ')}</text>}
          </g>
        );
      })}
    </svg>
  );
}

/** The chart's window: the last 24 hours by hour, or the last 30 days by day (chosen in a click, not in render). */
function rangeOf(span: 'hour' | 'day'): { span: 'hour' | 'day'; from: string } {
  return { span, from: new Date(Date.now() - (span === 'hour' ? 24 * 3600_000 : 30 * 86400_000)).toISOString() };
}

export function EgressPanel() {
  const list = useQuery<EgressAllowlistView>(ALLOWLIST);
  const [{ span, from }, setRange] = useState(() => rangeOf('hour'));
  const setSpan = (s: 'hour' | 'day'): void => setRange(rangeOf(s));
  const statsKey = `/v1/admin/audit/egress/stats?group_by=${span}&from_date=${encodeURIComponent(from.slice(0, 13))}&limit=500`;
  const stats = useQuery<EgressStats>(statsKey);
  const top = useQuery<EgressStats>('/v1/admin/audit/egress/stats?group_by=destination&limit=10');
  const { refetch } = stats;
  useEffect(() => { const t = setInterval(() => { void refetch(); }, 10_000); return () => clearInterval(t); }, [refetch]);
  const [destination, setDestination] = useState('');
  const act = useAction();
  const refresh = (): void => { invalidate(ALLOWLIST); };
  const add = (): void => {
    void act.run(async () => { await api(ALLOWLIST, { method: 'POST', json: { destination: destination.trim() } }); setDestination(''); refresh(); });
  };
  const remove = (id: string): void => { void act.run(async () => { await api(`${ALLOWLIST}/${encodeURIComponent(id)}`, { method: 'DELETE' }); refresh(); }); };
  const l = list.data;
  const sum = stats.data?.summary;
  return (
    <div className="panel" data-testid="egress-panel">
      {list.error && <p className="error" role="alert">{list.error.message}</p>}
      {l && (
        <p data-testid="egress-policy">
          Policy <strong>{l.policy}</strong> · proxy <strong>{l.proxy_state}</strong>{l.proxy_reason ? <span className="muted"> ({l.proxy_reason})</span> : null}
          {l.policy === 'off' && <span className="muted"> — egress control is off (set SVC_EGRESS_POLICY to observe or enforce)</span>}
        </p>
      )}
      <h3>Allowlist</h3>
      <form className="row-buttons" onSubmit={(e) => { e.preventDefault(); add(); }}>
        <label>Destination <input value={destination} onChange={(e) => setDestination(e.target.value)} placeholder="api.example.com:443" aria-label="Destination" /></label>
        <button type="submit" disabled={act.busy || !destination.trim()}>Allow</button>
      </form>
      {act.error && <p className="error small" role="alert">{act.error}</p>}
      <ul className="small" data-testid="egress-allowlist">
        {(l?.items ?? []).map((r) => (
          <li key={r.id}><code>{r.destination}</code> <span className="muted">{r.created_at.slice(0, 16).replace('T', ' ')}</span>{' '}
            <button type="button" className="link danger" disabled={act.busy} onClick={() => remove(r.id)} aria-label={`Remove ${r.destination}`}>Remove</button></li>
        ))}
        {l && l.items.length === 0 && <li className="muted">Nothing allowed yet{l.policy === 'enforce' ? ': every destination is denied.' : '.'}</li>}
      </ul>
      <h3>Egress over time</h3>
      <div className="row-buttons small">
        <button type="button" className={span === 'hour' ? 'link active' : 'link'} onClick={() => setSpan('hour')}>Last 24 hours</button>
        <button type="button" className={span === 'day' ? 'link active' : 'link'} onClick={() => setSpan('day')}>Last 30 days</button>
      </div>
      {stats.error && <p className="error small">{stats.error.message}</p>}
      {stats.data && <EgressChart buckets={stats.data.buckets} />}
      {sum && (
        <p className="small" data-testid="egress-summary">
          {sum.total} requests · {sum.allow} allowed · {sum.deny} denied ({(sum.deny_rate * 100).toFixed(1)} %) · {sum.distinct_destinations} destinations · {sum.bytes.toLocaleString()} bytes
        </p>
      )}
      {top.data && top.data.buckets.length > 0 && (
        <table className="table small">
          <thead><tr><th>Destination</th><th>Requests</th><th>Allowed</th><th>Denied</th><th>Bytes</th></tr></thead>
          <tbody>{top.data.buckets.map((b) => <tr key={String(b.key)}><td><code>{b.key}</code></td><td>{b.hits}</td><td>{b.allow}</td><td>{b.deny}</td><td>{b.bytes}</td></tr>)}</tbody>
        </table>
      )}
    </div>
  );
}
