/**
 * Admin → Mission control, the admin's home (issue 13 item 8; `GET /v1/admin/mission-control`):
 * services and their health, turns running now, approvals waiting, errors in the last hour, spend
 * against the budget, sandbox sessions and knowledge index jobs (failed documents with their error).
 * Refreshed every 5 s while shown and the window is visible. A section whose service did not answer
 * says so; the rest of the page stays.
 */
import { useQuery } from '../api/cache';
import type { MissionControl } from '../api/types';
import { Link } from '../app/Link';
import { ago, duration, usd, usePoll } from './admin-live';

type Section<K extends keyof MissionControl> = MissionControl[K];

/** "unavailable: why" notice of a peer section. */
function Unavailable({ what, error }: { what: string; error: string | null }) {
  return <p className="notice warn small" role="status">{what} did not answer{error ? `: ${error}` : ''}.</p>;
}

function Services({ s }: { s: Section<'services'> }) {
  return (
    <section className="card mc-card" aria-label="Services" data-testid="mc-services">
      <h2>Services <span className="muted small">{s.ready} of {s.total} ready</span></h2>
      <ul className="mc-services">
        {s.items.map((x) => (
          <li key={x.name} className={`mc-service state-${x.state}`} title={x.detail ?? (x.latency_ms !== null ? `${x.latency_ms} ms` : 'this service')}>
            <span className={`mc-dot mc-${x.state}`} aria-hidden="true" />{x.name}<span className="sr-only"> {x.state}</span>
          </li>
        ))}
      </ul>
      <Link to="/admin/services" className="small">Details</Link>
    </section>
  );
}

function Approvals({ a, now }: { a: Section<'approvals'>; now: number }) {
  return (
    <section className="card mc-card" aria-label="Approvals waiting" data-testid="mc-approvals" data-count={a.pending}>
      <h2>Approvals waiting <span className="mc-count">{a.pending}</span></h2>
      {a.items.length === 0 ? <p className="muted">Nothing waits for a decision.</p> : (
        <table className="table">
          <thead><tr><th>Tool</th><th>User</th><th>Waiting</th></tr></thead>
          <tbody>
            {a.items.map((x) => (
              <tr key={x.id} data-testid="mc-approval" data-approval={x.id}>
                <td><code>{x.tool}</code></td><td title={x.user_id}>{x.user_id}</td>
                <td title={`expires ${new Date(x.expires_at).toLocaleTimeString()}`}>{ago(x.created_at, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p className="muted small">The user who started the turn approves or rejects it in their Approvals inbox.</p>
    </section>
  );
}

function ActiveTurns({ t }: { t: Section<'active_turns'> }) {
  return (
    <section className="card mc-card" aria-label="Active turns" data-testid="mc-active-turns">
      <h2>Active turns <span className="mc-count">{t.count}</span></h2>
      {t.items.length === 0 ? <p className="muted">No turn is running.</p> : (
        <table className="table">
          <thead><tr><th>User</th><th className="num">Running</th><th>State</th></tr></thead>
          <tbody>
            {t.items.map((x) => (
              <tr key={`${x.turn_id ?? ''}${x.session_id}${x.started_at}`}>
                <td title={`${x.user_id} · agent ${x.agent_id}`}>{x.user_id}</td><td className="num">{duration(x.running_ms)}</td>
                <td>{x.waiting_approval ? <span className="state state-busy" title="parked until the user decides an approval">waiting</span> : <span className="state state-running">running</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Errors({ e, now }: { e: Section<'errors'>; now: number }) {
  return (
    <section className="card mc-card" aria-label="Errors in the last hour" data-testid="mc-errors">
      <h2>Errors, last hour <span className={`mc-count${e.total ? ' bad' : ''}`}>{e.total}</span></h2>
      <p className="small">{e.turn_failed} failed turn{e.turn_failed === 1 ? '' : 's'} · {e.tool_errors} failed tool call{e.tool_errors === 1 ? '' : 's'} · {e.guard_unavailable} guardrail outage{e.guard_unavailable === 1 ? '' : 's'}</p>
      {e.recent.length > 0 && (
        <ul className="mc-list">
          {e.recent.map((x, i) => (
            <li key={`${x.at}${i}`}><span className="muted small">{ago(x.at, now)}</span> <code>{x.code ?? x.kind}</code> {x.message}</li>
          ))}
        </ul>
      )}
      <p className="muted small">From the runtime&apos;s own turn records.</p>
    </section>
  );
}

function SpendCard({ s }: { s: Section<'spend'> }) {
  const limit = s.hard_limit_usd ?? s.soft_limit_usd;
  return (
    <section className="card mc-card" aria-label="Spend" data-testid="mc-spend">
      <h2>Spend</h2>
      {s.state !== 'ok' ? <Unavailable what="Observability" error={s.error} /> : (
        <>
          <p><span className="mc-big">{usd(s.spend_usd)}</span> <span className="muted small">this {s.period ?? 'period'}</span></p>
          {limit !== null && s.spend_usd !== null && <meter min={0} max={limit} value={Math.min(s.spend_usd, limit)} high={s.soft_limit_usd ?? limit * 0.8} aria-label="Spend against the budget" />}
          <p className="small">{s.soft_limit_usd !== null ? `Warn at ${usd(s.soft_limit_usd)}. ` : ''}{s.hard_limit_usd !== null ? `Refuse at ${usd(s.hard_limit_usd)}.` : ''}{limit === null ? 'No budget set.' : ''}
            {s.budget_state && s.budget_state !== 'ok' && <strong className="error"> {s.budget_state.replace('_', ' ')}</strong>}</p>
          <Link to="/admin/usage" className="small">Usage &amp; budgets</Link>
        </>
      )}
    </section>
  );
}

function SandboxCard({ s }: { s: Section<'sandbox'> }) {
  return (
    <section className="card mc-card" aria-label="Sandbox sessions" data-testid="mc-sandbox">
      <h2>Sandbox sessions <span className="mc-count">{s.count}</span></h2>
      {s.state !== 'ok' ? <Unavailable what="The sandbox" error={s.error} /> : (
        <p className="small">{s.count} of at most {s.max_sessions ?? '?'} · {s.warm ?? 0} warm</p>
      )}
      {s.items.slice(0, 5).map((x) => <div key={`${x.tenant_id}/${x.session_id}`} className="small"><code>{x.session_id}</code> <span className={`state state-${x.state}`}>{x.state}</span> idle {duration(x.idle_seconds * 1000)}</div>)}
      <Link to="/admin/sandbox" className="small">Sandbox</Link>
    </section>
  );
}

function IndexJobs({ j }: { j: Section<'index_jobs'> }) {
  return (
    <section className="card mc-card mc-wide" aria-label="Index jobs" data-testid="mc-index-jobs">
      <h2>Index jobs <span className="muted small">{j.indexing} indexing · {j.failed} failed{j.truncated ? ' (more not shown)' : ''}</span></h2>
      {j.state !== 'ok' && <Unavailable what="Knowledge" error={j.error} />}
      {j.chunks_pending_vectors !== null && j.chunks_pending_vectors > 0 && <p className="small">{j.chunks_pending_vectors} chunks wait for vectors.</p>}
      {j.reembedding?.running && <p className="small">Re-embedding {j.reembedding.done} of {j.reembedding.total} chunks…</p>}
      <div data-testid="mc-failed-documents" data-count={j.failed}>
        {j.failed_documents.length === 0 ? <p className="muted">No document failed to index.</p> : (
          <table className="table">
            <thead><tr><th>Failed document</th><th>Error</th><th>Owner</th><th>When</th></tr></thead>
            <tbody>
              {j.failed_documents.map((d) => (
                <tr key={d.document_id} data-testid="mc-failed-document" data-document={d.document_id}>
                  <td><Link to={`/knowledge/${encodeURIComponent(d.document_id)}`}>{d.title || d.filename || d.document_id}</Link></td>
                  <td className="error small">{d.last_error ?? 'unknown error'}</td><td>{d.owner_user_id}</td>
                  <td className="small">{d.updated_at ? new Date(d.updated_at).toLocaleString() : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {j.indexing_documents.length > 0 && (
        <p className="small">Indexing now: {j.indexing_documents.map((d) => d.title || d.filename).join(', ')}</p>
      )}
    </section>
  );
}

export function MissionControlPanel() {
  const q = useQuery<MissionControl>('/v1/admin/mission-control');
  usePoll(q.refetch);
  const v = q.data;
  const now = v ? Date.parse(v.generated_at) : 0;
  return (
    <div className="panel mission-control" data-testid="mission-control" aria-live="off">
      {q.error && <p className="notice error" role="alert">{q.error.message}</p>}
      {!v && q.loading && <p className="muted">Loading…</p>}
      {v && (
        <>
          <div className="kpis" aria-label="At a glance">
            <div className="kpi"><span className="kpi-v">{v.services.ready}/{v.services.total}</span><span className="kpi-l">services ready</span></div>
            <div className="kpi"><span className="kpi-v">{v.active_turns.count}</span><span className="kpi-l">active turns</span></div>
            <div className="kpi"><span className="kpi-v">{v.approvals.pending}</span><span className="kpi-l">approvals waiting</span></div>
            <div className="kpi"><span className={`kpi-v${v.errors.total ? ' error' : ''}`}>{v.errors.total}</span><span className="kpi-l">errors, last hour</span></div>
            <div className="kpi"><span className="kpi-v">{usd(v.spend.spend_usd)}</span><span className="kpi-l">spend</span></div>
            <div className="kpi"><span className={`kpi-v${v.index_jobs.failed ? ' error' : ''}`}>{v.index_jobs.failed}</span><span className="kpi-l">failed documents</span></div>
          </div>
          <p className="muted small">Updated {new Date(v.generated_at).toLocaleTimeString()} · refreshes every 5 s</p>
          <div className="mc-grid">
            <Services s={v.services} />
            <Approvals a={v.approvals} now={now} />
            <ActiveTurns t={v.active_turns} />
            <Errors e={v.errors} now={now} />
            <SpendCard s={v.spend} />
            <SandboxCard s={v.sandbox} />
            <IndexJobs j={v.index_jobs} />
          </div>
        </>
      )}
    </div>
  );
}
