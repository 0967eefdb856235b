/**
 * Overview (issue 13 items 5, 6; agent runtime `GET /v1/overview`): the user's workspace at a glance:
 * the inference providers and their health, approvals waiting, recent chats, turns and documents,
 * the integrations and their state, the agents. Refreshed every 30 seconds while open.
 */
import { useEffect } from 'react';
import { useQuery } from '../api/cache';
import type { IntegrationStatus, Overview, OverviewProvider } from '../api/types';
import { Link } from '../app/Link';

/** How often the page refreshes while open, ms. */
const REFRESH_MS = 30_000;

const HEALTH_LABEL: Record<OverviewProvider['health'], string> = { healthy: 'healthy', cooling_down: 'cooling down', unavailable: 'unavailable' };
const STATE_LABEL: Record<IntegrationStatus['state'], string> = { connected: 'connected', disconnected: 'disconnected', error: 'error', not_configured: 'not configured' };

function when(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : new Date(t).toLocaleString();
}

function Providers({ o }: { o: Overview }) {
  return (
    <section className="card ov-card" aria-labelledby="ov-providers">
      <h2 id="ov-providers">Inference providers</h2>
      {o.inference_router.state !== 'ready' && <p className="error small" role="alert">The inference router is not answering{o.inference_router.detail ? `: ${o.inference_router.detail}` : ''}.</p>}
      {o.inference_router.state === 'ready' && o.inference_providers.length === 0 && <p className="muted small">No provider serves a model role yet.</p>}
      <ul className="ov-list">
        {o.inference_providers.map((p) => (
          <li key={p.id} className="ov-provider" data-health={p.health}>
            <span className={`ov-dot ov-${p.health}`} aria-hidden="true" />
            <strong>{p.name ?? p.id}</strong> <span className={`ov-health ov-${p.health}`}>{HEALTH_LABEL[p.health]}</span>
            <div className="muted small">{p.roles.join(', ')} · {p.models.join(', ')}{p.cooling_down_until ? ` · until ${when(p.cooling_down_until)}` : ''}</div>
          </li>
        ))}
      </ul>
      {o.mail_providers.length === 0 && <p className="muted small">Mail providers: none connected.</p>}
    </section>
  );
}

function Approvals({ o }: { o: Overview }) {
  const a = o.approvals_waiting;
  return (
    <section className="card ov-card" aria-labelledby="ov-approvals">
      <h2 id="ov-approvals">Approvals waiting <span className={`mc-count${a.count ? ' bad' : ''}`}>{a.count}</span></h2>
      {a.count === 0 ? <p className="muted small">Nothing waits for you.</p> : (
        <ul className="ov-list">
          {a.items.map((x) => <li key={x.id}><Link to="/approvals">{x.tool}</Link> <span className="muted small">since {when(x.created_at)}</span></li>)}
        </ul>
      )}
    </section>
  );
}

function Activity({ o }: { o: Overview }) {
  const r = o.recent_activity;
  return (
    <section className="card ov-card ov-wide" aria-labelledby="ov-activity">
      <h2 id="ov-activity">Recent activity</h2>
      <div className="ov-columns">
        <div>
          <h3>Chats</h3>
          {r.sessions.length === 0 ? <p className="muted small">No chats yet. <Link to="/chat">Start one</Link>.</p> : (
            <ul className="ov-list">{r.sessions.map((s) => <li key={s.id}><Link to={`/chat/${encodeURIComponent(s.id)}`}>{s.title || 'Untitled chat'}</Link> <span className="muted small">{when(s.updated_at)}</span></li>)}</ul>
          )}
        </div>
        <div>
          <h3>Turns</h3>
          {r.turns.length === 0 ? <p className="muted small">No answers yet.</p> : (
            <ul className="ov-list">{r.turns.map((t) => <li key={t.turn_id}><Link to={`/receipts/${encodeURIComponent(t.turn_id)}`}>{when(t.created_at)}</Link> <span className="muted small">{t.status} · {t.total_tokens.toLocaleString()} tokens</span></li>)}</ul>
          )}
        </div>
        <div>
          <h3>Documents</h3>
          {r.documents_state !== 'ok' ? <p className="muted small">Knowledge is not answering.</p> : r.documents.length === 0 ? <p className="muted small">No documents yet. <Link to="/knowledge">Add one</Link>.</p> : (
            <ul className="ov-list">{r.documents.map((d) => (
              <li key={d.document_id}><Link to={`/knowledge/${encodeURIComponent(d.document_id)}`}>{d.title}</Link> <span className={`small status-${d.status}`}>{d.status}</span>{d.last_error && <div className="error small">{d.last_error}</div>}</li>
            ))}</ul>
          )}
        </div>
      </div>
    </section>
  );
}

function Integrations({ o }: { o: Overview }) {
  return (
    <section className="card ov-card" aria-labelledby="ov-integrations">
      <h2 id="ov-integrations">Integrations</h2>
      {o.integrations.length === 0 ? <p className="muted small">No integrations.</p> : (
        <ul className="ov-list">{o.integrations.map((i) => (
          <li key={i.id} data-state={i.state}><strong>{i.name}</strong> <span className={`ov-state ov-${i.state}`}>{STATE_LABEL[i.state]}</span>{i.detail && <div className="muted small">{i.detail}</div>}</li>
        ))}</ul>
      )}
    </section>
  );
}

function Agents({ o }: { o: Overview }) {
  return (
    <section className="card ov-card" aria-labelledby="ov-agents">
      <h2 id="ov-agents">Agents</h2>
      <ul className="ov-list">{o.agents.map((a) => <li key={a.id}><strong>{a.name}</strong> <span className="muted small">{[a.name.toLowerCase() === a.id ? null : a.id, a.default ? 'default agent' : null].filter(Boolean).join(' · ')}</span></li>)}</ul>
    </section>
  );
}

export default function OverviewPage() {
  const q = useQuery<Overview>('/v1/overview');
  const { refetch } = q;
  useEffect(() => {
    const t = setInterval(() => { void refetch(); }, REFRESH_MS);
    return () => clearInterval(t);
  }, [refetch]);
  const o = q.data;
  return (
    <div className="page overview" data-testid="overview-page">
      <div className="ov-head"><h1>Overview</h1><button type="button" className="link" onClick={() => { void refetch(); }}>Refresh</button></div>
      {!o && !q.error && <p className="muted" aria-busy="true">Loading…</p>}
      {q.error && <p className="error" role="alert">{q.error.message}</p>}
      {o && (
        <div className="ov-grid">
          <Approvals o={o} />
          <Providers o={o} />
          <Integrations o={o} />
          <Agents o={o} />
          <Activity o={o} />
        </div>
      )}
    </div>
  );
}
