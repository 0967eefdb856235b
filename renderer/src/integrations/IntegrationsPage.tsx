/**
 * The user's integrations (issue 18 item 4; spec "Agent runtime surfaces":
 * `/v1/oauth/{provider_slug}/start|poll|status`, `DELETE /v1/oauth/{provider_slug}`,
 * `GET /v1/user/integrations/status`): every OAuth provider the admin configured, with the user's
 * state (connected, pending, needs reconnecting, disconnected), Connect (opens the provider's sign-in
 * in a new window, or the system browser in the desktop shell, then polls until the flow ends) and
 * Disconnect (revokes at the provider where it can). Other integrations (MCP, phone) are listed below.
 */
import { useEffect, useRef, useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import { useAction } from '../app/use-action';
import { systemBrowserShell } from '../auth/oidc';
import { openAuthorization } from '../auth/open-authorization';
import '../agents/agents.css';
import './integrations.css';

interface IntegrationItem { id: string; kind: string; name: string; state: string; detail: string | null }
interface OAuthStatus { slug: string; status: 'connected' | 'pending' | 'needs_reconnect' | 'disconnected'; scopes: string[]; expires_at: string | null; connected_at: string | null; last_refreshed_at: string | null }
interface OAuthPoll { slug: string; status: OAuthStatus['status']; done: boolean; error?: string }

const LIST = '/v1/user/integrations/status';
const POLL_MS = 1500;
/** How long a started flow is polled, ms (the state lives 10 minutes). */
const POLL_LIMIT_MS = 10 * 60_000;

const WORDS: Record<OAuthStatus['status'], string> = {
  connected: 'Connected', pending: 'Waiting for sign-in', needs_reconnect: 'Needs reconnecting', disconnected: 'Not connected',
};

const ERRORS: Record<string, string> = {
  oauth_state_expired: 'The sign-in took too long. Try again.',
  oauth_state_used: 'That sign-in was already used. Try again.',
  oauth_state_invalid: 'The sign-in could not be matched to this request. Try again.',
  oauth_exchange_failed: 'The service did not complete the sign-in. Try again.',
};


function OAuthCard({ item }: { item: IntegrationItem }) {
  const slug = item.id.slice('oauth:'.length);
  const base = `/v1/oauth/${encodeURIComponent(slug)}`;
  const status = useQuery<OAuthStatus>(`${base}/status`);
  const act = useAction<'connect' | 'disconnect'>();
  const [waiting, setWaiting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);
  const refresh = (): void => { invalidate(`${base}/status`); invalidate(LIST); };

  const poll = (until: number): void => {
    timer.current = setTimeout(() => {
      void (async () => {
        try {
          const p = await api<OAuthPoll>(`${base}/poll`, { method: 'POST' });
          if (p.done || Date.now() > until) {
            setWaiting(false);
            if (p.error) setProblem(ERRORS[p.error] ?? 'The connection did not complete. Try again.');
            refresh();
            return;
          }
        } catch { /* keep polling: a dropped request is not the end of the flow */ }
        poll(until);
      })();
    }, POLL_MS);
  };

  const connect = (): void => {
    setProblem(null);
    // Opened in the click itself so the browser does not block it; pointed at the provider once started.
    const win = systemBrowserShell() ? null : window.open('', '_blank');
    void act.run(async () => {
      try {
        const s = await api<{ authorization_url: string; expires_at: string }>(`${base}/start`, { method: 'POST' });
        await openAuthorization(s.authorization_url, win);
      } catch (err) { win?.close(); throw err; }
      setWaiting(true);
      refresh();
      poll(Date.now() + POLL_LIMIT_MS);
    }, 'connect');
  };

  const disconnect = (): void => {
    void act.run(async () => { await api(base, { method: 'DELETE' }); setProblem(null); refresh(); }, 'disconnect');
  };

  const s = status.data?.status ?? 'disconnected';
  const shown = waiting && s !== 'connected' ? 'pending' : s;
  return (
    <li className="card catalog-item" aria-label={`Integration ${item.name}`} data-testid={`integration-${slug}`}>
      <div className="catalog-head">
        <strong>{item.name}</strong>
        <span className={`integration-state state-${shown}`} data-testid={`integration-${slug}-status`} data-status={shown}>{WORDS[shown]}</span>
      </div>
      {status.data?.connected_at && s === 'connected' && (
        <p className="muted small">Connected {new Date(status.data.connected_at).toLocaleString()}
          {status.data.last_refreshed_at ? `; access renewed ${new Date(status.data.last_refreshed_at).toLocaleString()}` : ''}</p>
      )}
      {status.data && status.data.scopes.length > 0 && <p className="muted small">Access: {status.data.scopes.join(', ')}</p>}
      {s === 'needs_reconnect' && <p className="small" role="status">The service stopped accepting this connection. Connect again to keep using it.</p>}
      {waiting && <p className="muted small" role="status">Finish signing in in the window that opened…</p>}
      <div className="row-buttons">
        {s !== 'connected' && (
          <button type="button" className="primary" data-testid={`integration-${slug}-connect`} disabled={act.busy || waiting} onClick={connect}>
            {s === 'needs_reconnect' ? 'Reconnect' : 'Connect'}
          </button>
        )}
        {(s === 'connected' || s === 'needs_reconnect') && (
          <button type="button" className="link danger" data-testid={`integration-${slug}-disconnect`} disabled={act.busy} onClick={disconnect}>Disconnect</button>
        )}
      </div>
      {(problem || act.error) && <p className="error small" role="alert">{problem ?? act.error}</p>}
    </li>
  );
}

/** The page. */
export default function IntegrationsPage() {
  const list = useQuery<{ items: IntegrationItem[] }>(LIST);
  const items = list.data?.items ?? [];
  const oauth = items.filter((i) => i.kind === 'oauth' && i.id.startsWith('oauth:'));
  const others = items.filter((i) => i.kind !== 'oauth');
  return (
    <div className="page catalog-page">
      <h1>Integrations</h1>
      <p className="muted">Services you connect with your own account. The workstation keeps their access encrypted and renews it on its own; disconnecting withdraws it at the service too.</p>
      {list.error && <p className="error" role="alert">{String(list.error)}</p>}
      <section aria-label="Connected services">
        <h2>Services</h2>
        {oauth.length === 0 && !list.loading && <p className="muted">No services are configured yet. An administrator adds them.</p>}
        <ul className="catalog-list">{oauth.map((i) => <OAuthCard key={i.id} item={i} />)}</ul>
      </section>
      {others.length > 0 && (
        <section aria-label="Other integrations">
          <h2>Other</h2>
          <ul className="catalog-list">
            {others.map((i) => <li key={i.id} className="card catalog-item"><strong>{i.name}</strong> <span className="muted small">{i.state.replace('_', ' ')}</span>{i.detail && <p className="muted small">{i.detail}</p>}</li>)}
          </ul>
        </section>
      )}
    </div>
  );
}
