/**
 * The overview's calls to its peers (issue 13 item 5), as the caller (the stamped headers of the
 * request are forwarded, so each peer answers only what the caller may see): the router's
 * `GET /v1/routes` (roles, targets and their health) and knowledge's `GET /v1/knowledge/documents?limit`
 * (newest first). Short deadline; never throws: a peer that does not answer is `{ok: false}` with a
 * reason that names the service only (no address).
 */
import type { OverviewPeers, PeerReply, RouteTarget } from '../domain/overview.js';
import { callJson } from './http.js';

/** Deadline of one overview call, ms. */
export const OVERVIEW_PEER_TIMEOUT_MS = 1500;

/** `OverviewPeers` over HTTP. */
export class HttpOverviewPeers implements OverviewPeers {
  constructor(private readonly urls: { router: string | undefined; knowledge: string | undefined; auth?: string | undefined }, private readonly timeoutMs = OVERVIEW_PEER_TIMEOUT_MS) {}

  routes(headers: Record<string, string>): Promise<PeerReply<{ items: Array<{ role: string; targets: RouteTarget[] }> }>> {
    return this.get('inference router', this.urls.router, '/v1/routes', headers);
  }

  documents(headers: Record<string, string>, limit: number): Promise<PeerReply<{ items: Array<Record<string, unknown>> }>> {
    return this.get('knowledge', this.urls.knowledge, `/v1/knowledge/documents?limit=${limit}`, headers);
  }

  devices(headers: Record<string, string>): Promise<PeerReply<{ items: Array<{ name?: string; state?: string; last_seen_at?: string | null }> }>> {
    return this.get('auth', this.urls.auth, '/v1/account/devices', headers);
  }

  private async get<T>(name: string, base: string | undefined, path: string, headers: Record<string, string>): Promise<PeerReply<T>> {
    if (!base) return { ok: false, error: `${name} is not configured` };
    try {
      const r = await callJson(`${base}${path}`, { headers, timeoutMs: this.timeoutMs });
      if (r.status === 200 && r.body && typeof r.body === 'object') return { ok: true, body: r.body as T };
      return { ok: false, error: `${name} answered HTTP ${r.status}` };
    } catch {
      return { ok: false, error: `${name} did not answer` };
    }
  }
}
