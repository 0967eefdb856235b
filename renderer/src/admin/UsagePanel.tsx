/** Usage and cost over time (`/v1/generations/stats` by day, `/v1/admin/observability/usage`) and budgets. */
import { useState, type FormEvent } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api, ApiError } from '../api/http';
import type { BudgetPeriod, BudgetStatus, GenerationStats, Page, UsageReport } from '../api/types';
import { UsageChart } from './UsageChart';

const usd = (n: number): string => `$${n.toFixed(n < 1 ? 4 : 2)}`;

function BudgetForm({ tenant, current }: { tenant: string; current: BudgetStatus | undefined }) {
  const [period, setPeriod] = useState<BudgetPeriod>(current?.period ?? 'month');
  const [soft, setSoft] = useState(current?.soft_limit_usd?.toString() ?? '');
  const [hard, setHard] = useState(current?.hard_limit_usd?.toString() ?? '');
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const num = (s: string): number | null => (s.trim() === '' ? null : Number(s));
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    try {
      await api(`/v1/admin/observability/budgets/${encodeURIComponent(tenant)}`, { method: 'PUT', json: { period, soft_limit_usd: num(soft), hard_limit_usd: num(hard) } });
      setMsg({ ok: true, text: 'Budget saved.' });
      invalidate('/v1/admin/observability');
    } catch (err) { setMsg({ ok: false, text: err instanceof ApiError ? err.message : String(err) }); }
  };
  return (
    <form className="card form-grid" onSubmit={(e) => { void submit(e); }} aria-label={`Budget of ${tenant}`}>
      <h3>Budget · {tenant}</h3>
      <label htmlFor="b-period">Period</label>
      <select id="b-period" value={period} onChange={(e) => setPeriod(e.target.value as BudgetPeriod)}><option value="day">Day</option><option value="month">Month</option></select>
      <label htmlFor="b-soft">Warn at (USD)</label><input id="b-soft" inputMode="decimal" value={soft} onChange={(e) => setSoft(e.target.value)} placeholder="none" />
      <label htmlFor="b-hard">Refuse at (USD)</label><input id="b-hard" inputMode="decimal" value={hard} onChange={(e) => setHard(e.target.value)} placeholder="none" />
      <div /><button type="submit" className="primary">Save budget</button>
      {msg && <p className={msg.ok ? 'ok' : 'error'} role="status">{msg.text}</p>}
    </form>
  );
}

export function UsagePanel() {
  // Start of the UTC day 30 days ago: a stable cache key for the whole day.
  const d = new Date();
  const since = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - 30)).toISOString();
  const stats = useQuery<GenerationStats>(`/v1/generations/stats?since=${encodeURIComponent(since)}`);
  const usage = useQuery<UsageReport>('/v1/admin/observability/usage');
  const budgets = useQuery<Page<BudgetStatus>>('/v1/admin/observability/budgets');
  const t = usage.data?.totals ?? stats.data?.totals;
  const tenant = usage.data?.tenant_id ?? budgets.data?.items[0]?.tenant_id;
  return (
    <div className="panel">
      {(stats.error || usage.error) && <p className="error">{(stats.error ?? usage.error)!.message}</p>}
      {t && (
        <div className="kpis">
          <div className="kpi"><span className="kpi-v">{usd(t.cost_usd)}</span><span className="kpi-l">cost</span></div>
          <div className="kpi"><span className="kpi-v">{t.total_tokens.toLocaleString()}</span><span className="kpi-l">tokens</span></div>
          <div className="kpi"><span className="kpi-v">{t.count.toLocaleString()}</span><span className="kpi-l">model calls</span></div>
          <div className="kpi"><span className="kpi-v">{Math.round(t.avg_latency_ms)} ms</span><span className="kpi-l">avg latency</span></div>
        </div>
      )}
      <h2>Last 30 days</h2>
      {stats.data && (stats.data.by_day.length ? <UsageChart days={stats.data.by_day} /> : <p className="muted">No model calls in this period.</p>)}
      {usage.data && usage.data.by_model.length > 0 && (
        <table className="table">
          <thead><tr><th>Model</th><th>Calls</th><th>Tokens</th><th>Cost</th></tr></thead>
          <tbody>{usage.data.by_model.map((m) => <tr key={m.key}><td>{m.key}</td><td>{m.count}</td><td>{m.total_tokens.toLocaleString()}</td><td>{usd(m.cost_usd)}</td></tr>)}</tbody>
        </table>
      )}
      <h2>Budgets</h2>
      {budgets.error && <p className="error">{budgets.error.message}</p>}
      {(budgets.data?.items ?? []).map((b) => (
        <p key={b.tenant_id} className={`notice ${b.state === 'ok' ? 'info' : 'warn'}`}>
          {b.tenant_id}: {usd(b.spend_usd)} spent this {b.period}
          {b.soft_limit_usd !== null ? ` · warn at ${usd(b.soft_limit_usd)}` : ''}{b.hard_limit_usd !== null ? ` · refuse at ${usd(b.hard_limit_usd)}` : ''} · {b.state.replace('_', ' ')}
        </p>
      ))}
      {tenant && <BudgetForm key={tenant} tenant={tenant} current={budgets.data?.items.find((b) => b.tenant_id === tenant)} />}
    </div>
  );
}
