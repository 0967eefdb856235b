/**
 * MCP authorization on the user's server card (issue 17 items 3 and 6; MCP "Authorization"):
 * `GET /v1/user/mcp-servers/{id}/authorization` shown as a state, "Authorize" calls `POST …/authorize`
 * and opens the authorization URL it answers (system browser in the desktop shell, else a window),
 * then polls the state until the callback finished; "Forget" (`DELETE …/authorization`) drops the
 * tokens. A server that does not ask for OAuth says so instead of pretending to be authorized.
 */
import { useEffect, useRef, useState } from 'react';
import { invalidate, useQuery } from '../api/cache';
import { api } from '../api/http';
import type { McpAuthorizationView } from '../api/types';
import { useAction } from '../app/use-action';
import { notAvailable } from '../agents/catalog';
import { openAuthorization } from '../auth/open-authorization';
import { systemBrowserShell } from '../auth/oidc';

/** Poll period while the user is at the authorization server, ms, and how long to keep polling. */
const POLL_MS = 1500;
const POLL_LIMIT_MS = 5 * 60_000;

const WORDS: Record<McpAuthorizationView['status'], string> = {
  authorized: 'authorized', pending: 'waiting for your sign-in', not_authorized: 'not authorized',
};

/** The authorization row of the user's HTTP server `id`. */
export function McpAuthorize({ id, name }: { id: string; name: string }) {
  const base = `/v1/user/mcp-servers/${encodeURIComponent(id)}`;
  const key = `${base}/authorization`;
  const q = useQuery<McpAuthorizationView>(key);
  const act = useAction();
  const [note, setNote] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (timer.current) clearTimeout(timer.current); }, []);
  const refresh = (): void => { invalidate(key); invalidate(`${base}/health`); invalidate('/v1/tools'); };

  const poll = (until: number): void => {
    timer.current = setTimeout(() => {
      void api<McpAuthorizationView>(key).then((a) => {
        if (a.status === 'authorized' || Date.now() > until) { refresh(); return; }
        poll(until);
      }, () => poll(until));
    }, POLL_MS);
  };

  const authorize = (): void => {
    setNote(null);
    const win = systemBrowserShell() ? null : window.open('', '_blank');
    void act.run(async () => {
      const a = await api<McpAuthorizationView>(`${base}/authorize`, { method: 'POST' });
      if (a.status === 'pending' && a.authorization_url) {
        await openAuthorization(a.authorization_url, win);
        poll(Date.now() + POLL_LIMIT_MS);
      } else {
        win?.close();
        setNote(a.status === 'authorized' ? 'Already authorized.' : a.error ? `The server could not be reached: ${a.error}` : 'This server does not ask for OAuth authorization.');
      }
      refresh();
    });
  };

  if (notAvailable(q.error)) return null;
  const status = q.data?.status ?? 'not_authorized';
  return (
    <div className="row-buttons small" aria-label={`Authorization of ${name}`}>
      <span className={`authz authz-${status}`} data-authorization={status}>OAuth: {WORDS[status]}</span>
      {status !== 'authorized'
        ? <button type="button" className="link" disabled={act.busy} onClick={authorize}>Authorize</button>
        : <button type="button" className="link" disabled={act.busy} onClick={() => { void act.run(async () => { await api(key, { method: 'DELETE' }); refresh(); }); }}>Forget authorization</button>}
      {note && <span className="muted">{note}</span>}
      {act.error && <span className="error" role="alert">{act.error}</span>}
    </div>
  );
}
