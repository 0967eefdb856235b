/**
 * Admin → AgentOps (issue 13 item 8; `GET /v1/admin/agentops/agents?days`): per agent, runs,
 * failures, tool error rates, latency (p50/p95) and cost over the last 7, 14 or 30 days, with a
 * chart of runs, failures and p95 latency per day and the tools' error rates.
 */
import { useState } from 'react';
import { useQuery } from '../api/cache';
import type { AgentOps, AgentStats } from '../api/types';
import { AgentOpsChart } from './AgentOpsChart';
import { pct, usd } from './admin-live';

const ms = (v: number | null): string => (v === null ? '—' : v < 1000 ? `${Math.round(v)} ms` : `${(v / 1000).toFixed(1)} s`);

function Agent({ a }: { a: AgentStats }) {
  return (
    <section className="agentops-agent" aria-label={`Agent ${a.agent_id}`} data-testid="agentops-agent" data-agent={a.agent_id}>
      <h2>Agent <code>{a.agent_id}</code></h2>
      <div className="kpis">
        <div className="kpi"><span className="kpi-v">{a.runs}</span><span className="kpi-l">runs</span></div>
        <div className="kpi"><span className={`kpi-v${a.failures ? ' error' : ''}`}>{a.failures}</span><span className="kpi-l">failures ({pct(a.failure_rate)})</span></div>
        <div className="kpi"><span className="kpi-v">{pct(a.tool_error_rate)}</span><span className="kpi-l">tool errors ({a.tool_errors} of {a.tool_calls})</span></div>
        <div className="kpi"><span className="kpi-v">{ms(a.latency_ms.p50)}</span><span className="kpi-l">p50 latency</span></div>
        <div className="kpi"><span className="kpi-v">{ms(a.latency_ms.p95)}</span><span className="kpi-l">p95 latency</span></div>
        <div className="kpi"><span className="kpi-v">{usd(a.cost_usd)}</span><span className="kpi-l">cost</span></div>
      </div>
      <AgentOpsChart days={a.daily} />
      <p className="small muted">Bars: runs per day (red: failed). Line: p95 latency.</p>
      {a.tools.length > 0 && (
        <table className="table">
          <thead><tr><th>Tool</th><th className="num">Calls</th><th className="num">Errors</th><th className="num">Error rate</th></tr></thead>
          <tbody>{a.tools.map((t) => <tr key={t.tool}><td><code>{t.tool}</code></td><td className="num">{t.calls}</td><td className="num">{t.errors}</td><td className="num">{pct(t.error_rate)}</td></tr>)}</tbody>
        </table>
      )}
    </section>
  );
}

export function AgentOpsPanel() {
  const [days, setDays] = useState(14);
  const q = useQuery<AgentOps>(`/v1/admin/agentops/agents?days=${days}`);
  const v = q.data;
  return (
    <div className="panel agentops" data-testid="agentops">
      <label className="small">Period{' '}
        <select value={days} onChange={(e) => setDays(Number(e.target.value))} aria-label="Period">
          <option value={7}>last 7 days</option><option value={14}>last 14 days</option><option value={30}>last 30 days</option>
        </select>
      </label>
      {q.error && <p className="notice error" role="alert">{q.error.message}</p>}
      {v && v.source.cost_state !== 'ok' && <p className="notice warn small" role="status">Cost {v.source.cost_state === 'partial' ? 'is partial' : 'is unknown'}: {v.source.cost_error}</p>}
      {v?.items.map((a) => <Agent key={a.agent_id} a={a} />)}
      {v && <p className="small muted">Runs, failures, tools and latency: {v.source.runs}. Cost: {v.source.cost}. Days are UTC, from {v.since}.</p>}
    </div>
  );
}
