/**
 * The workspace at a glance (issue 13 item 5; spec "Agent runtime surfaces": `GET /v1/overview`
 * "workspace overview (mail providers, agents, recent activity, inference providers)"): the inference
 * providers with their health from the router's routes, the caller's integrations, the agents, the
 * approvals waiting, the caller's recent sessions, turns and knowledge documents. Mail providers do
 * not exist yet: the list is present and empty. Peers are asked in parallel; one that does not
 * answer marks only its own section.
 */
import type { ApprovalView, Overview, OverviewProvider } from '../contracts.js';
import type { IntegrationOwner, IntegrationRegistry } from './integrations.js';
import type { SessionStore } from './ports.js';
import type { ContextRecordSummary } from './context/ports.js';

/** How many items each recent list shows. */
export const OVERVIEW_RECENT = 5;
/** Most waiting approvals counted. */
const APPROVALS_COUNTED = 100;

/** A peer's answer: the body, or why there is none. Never a throw. */
export type PeerReply<T> = { ok: true; body: T } | { ok: false; error: string };

/** One target of a role as the router's `GET /v1/routes` shows it. */
export interface RouteTarget {
  provider_id: string;
  model: string;
  provider_name: string | null;
  adapter: string | null;
  available: boolean;
  cooling_down_until: string | null;
}

/** The peers the overview reads. */
export interface OverviewPeers {
  /** The router's roles with their targets' health (`GET /v1/routes`). */
  routes(headers: Record<string, string>): Promise<PeerReply<{ items: Array<{ role: string; targets: RouteTarget[] }> }>>;
  /** The knowledge documents the caller can see, newest first (`GET /v1/knowledge/documents?limit`). */
  documents(headers: Record<string, string>, limit: number): Promise<PeerReply<{ items: Array<Record<string, unknown>> }>>;
  /** The caller's paired phones (the auth service's `GET /v1/account/devices`, issue 14); absent = no auth peer. */
  devices?(headers: Record<string, string>): Promise<PeerReply<{ items: Array<{ name?: string; state?: string; last_seen_at?: string | null }> }>>;
}

/** What the overview needs. */
export interface OverviewDeps {
  peers: OverviewPeers;
  integrations: IntegrationRegistry;
  sessions: Pick<SessionStore, 'list'>;
  approvals: { list(tenantId: string, userId: string | null, status: string | null, limit?: number): Promise<ApprovalView[]> };
  /** The caller's newest turns (context records). */
  recentTurns(tenantId: string, userId: string, limit: number): Promise<ContextRecordSummary[]>;
  defaultAgentId: string;
  now?: () => Date;
}

/**
 * Providers from the router's routes (pure): one entry per provider with the roles and models it
 * serves; `healthy` when one of its targets is available and not cooling down, `cooling_down` when
 * every available target waits out a cooldown (the latest end shown), else `unavailable`.
 */
export function providersFromRoutes(routes: Array<{ role: string; targets: RouteTarget[] }>, now: Date): OverviewProvider[] {
  const byId = new Map<string, { p: OverviewProvider; ready: boolean; cooling: string[]; available: boolean }>();
  for (const r of routes) {
    for (const t of r.targets) {
      let e = byId.get(t.provider_id);
      if (!e) {
        e = { p: { id: t.provider_id, name: t.provider_name, adapter: t.adapter, roles: [], models: [], health: 'unavailable', cooling_down_until: null }, ready: false, cooling: [], available: false };
        byId.set(t.provider_id, e);
      }
      if (!e.p.roles.includes(r.role)) e.p.roles.push(r.role);
      if (!e.p.models.includes(t.model)) e.p.models.push(t.model);
      if (!t.available) continue;
      e.available = true;
      const cooling = t.cooling_down_until !== null && Date.parse(t.cooling_down_until) > now.getTime();
      if (cooling) e.cooling.push(t.cooling_down_until!); else e.ready = true;
    }
  }
  return [...byId.values()].map(({ p, ready, cooling, available }) => {
    if (ready) return { ...p, health: 'healthy' as const };
    if (available && cooling.length) return { ...p, health: 'cooling_down' as const, cooling_down_until: cooling.sort().at(-1)! };
    return p;
  });
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The overview of the workspace for one caller. */
export class OverviewService {
  constructor(private readonly d: OverviewDeps) {}

  /** The caller's overview. Never throws for a peer that does not answer. */
  async overview(who: IntegrationOwner): Promise<Overview> {
    const now = this.d.now?.() ?? new Date();
    const [routes, docs, integrations] = await Promise.all([
      this.d.peers.routes(who.headers), this.d.peers.documents(who.headers, OVERVIEW_RECENT), this.d.integrations.status(who),
    ]);
    const waiting = await this.d.approvals.list(who.tenantId, who.userId, 'pending', APPROVALS_COUNTED);
    const sessions = await this.d.sessions.list({ tenantId: who.tenantId, userId: who.userId, limit: OVERVIEW_RECENT });
    const turns = await this.d.recentTurns(who.tenantId, who.userId, OVERVIEW_RECENT);
    return {
      generated_at: now.toISOString(),
      inference_router: routes.ok ? { state: 'ready', detail: null } : { state: 'unavailable', detail: routes.error },
      inference_providers: routes.ok ? providersFromRoutes(routes.body.items ?? [], now) : [],
      mail_providers: [],
      integrations,
      agents: [{ id: this.d.defaultAgentId, name: 'Assistant', default: true }],
      approvals_waiting: {
        count: waiting.length,
        items: waiting.slice(0, OVERVIEW_RECENT).map((a) => ({ id: a.id, tool: a.tool, session_id: a.session_id, created_at: a.created_at, expires_at: a.expires_at })),
      },
      recent_activity: {
        sessions: sessions.map((s) => ({ id: s.id, title: s.title, message_count: s.message_count, updated_at: s.updated_at })),
        turns: turns.map((t) => ({
          turn_id: t.turn_id, session_id: t.session_id, status: t.status, total_tokens: t.total_tokens, created_at: t.created_at,
        })),
        documents: docs.ok ? (docs.body.items ?? []).slice(0, OVERVIEW_RECENT).flatMap((x) => {
          const id = str(x.document_id);
          return id ? [{ document_id: id, title: str(x.title) ?? id, status: str(x.status) ?? 'unknown', last_error: str(x.last_error), updated_at: str(x.updated_at) ?? str(x.created_at) ?? '' }] : [];
        }) : [],
        documents_state: docs.ok ? 'ok' : 'unavailable',
      },
    };
  }
}
