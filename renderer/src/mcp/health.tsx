/**
 * Live health of an MCP server (issue 17 item 6): `POST …/mcp-servers/{id}/health` when shown and
 * again every `HEALTH_POLL_MS` while the page is visible, as a badge (ok with latency, failing with
 * the error, not available when the route is not there yet).
 */
import { useEffect } from 'react';
import { useQuery } from '../api/cache';
import { api } from '../api/http';
import type { McpHealthView } from '../api/types';
import { notAvailable } from '../agents/catalog';

/** Poll period of the health check, ms. */
export const HEALTH_POLL_MS = 15_000;

/** True when a health answer says the server is up. */
export function healthy(h: McpHealthView | undefined): boolean {
  return h?.ok === true;
}

/** Health badge of the server at `base` (`/v1/admin/mcp-servers/{id}` or `/v1/user/mcp-servers/{id}`). */
export function HealthBadge({ base, name }: { base: string; name: string }) {
  const key = `${base}/health`;
  const q = useQuery<McpHealthView>(key, () => api<McpHealthView>(key, { method: 'POST', json: {} }));
  const { refetch } = q;
  useEffect(() => {
    const timer = setInterval(() => { if (document.visibilityState === 'visible') void refetch(); }, HEALTH_POLL_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  let cls = 'pending'; let text = 'checking…'; let title = '';
  if (q.error) {
    if (notAvailable(q.error)) { cls = 'unknown'; text = 'health n/a'; title = 'The health check is not available on this server yet.'; }
    else { cls = 'bad'; text = 'failing'; title = q.error.message; }
  } else if (q.data) {
    if (healthy(q.data)) { cls = 'ok'; text = typeof q.data.latency_ms === 'number' ? `healthy · ${Math.round(q.data.latency_ms)} ms` : 'healthy'; }
    else { cls = 'bad'; text = 'failing'; title = q.data.error ?? ''; }
  }
  return (
    <span className={`health health-${cls}`} role="status" aria-label={`Health of ${name}: ${text}`} title={title || undefined} data-health={cls}>
      {text}{cls === 'bad' && title ? `: ${title.slice(0, 80)}` : ''}
      <button type="button" className="link small" onClick={() => { void refetch(); }} aria-label={`Check ${name} now`}>↻</button>
    </span>
  );
}
