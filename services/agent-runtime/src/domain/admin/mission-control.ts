/**
 * Mission control (issue 13 item 8; spec "Agent runtime surfaces": `/v1/admin/mission-control`): the
 * live state of the workstation in one answer, each section from where it is known:
 * - services: each service's `/readyz`, probed by the runtime (short timeout, cached ~2 s);
 * - active turns: the runtime's own running turns (`TurnTracker`), parked ones flagged;
 * - approvals waiting: the runtime's approval store;
 * - errors in the last hour: the runtime's own turn records (failed turns, failed tool calls, guard
 *   unavailable), not audit;
 * - spend: observability's budget status; sandbox: the sandbox's sessions and readiness;
 * - index jobs: knowledge documents `indexing` and `failed` (with `last_error`) and vectors pending.
 */
import type { ActiveTurn, IndexDocument, IndexJobs, MissionControl, SandboxSection, ServiceHealth, Spend } from '../../contracts.js';
import type { ApprovalCenter } from '../approvals.js';
import type { AdminPeers, PeerAnswer, ProbeResult, TurnStatsStore } from './ports.js';
import type { TurnTracker } from './turn-tracker.js';

/** How long probe results are reused, ms. */
export const PROBE_CACHE_MS = 2000;
/** Errors window, seconds. */
export const ERROR_WINDOW_SECONDS = 3600;
/** Documents listed per state. */
export const DOCUMENT_LIMIT = 50;
/** Pending approvals listed. */
const APPROVAL_LIMIT = 50;

/** What mission control reads. */
export interface MissionControlDeps {
  peers: AdminPeers;
  approvals: Pick<ApprovalCenter, 'list'>;
  tracker: Pick<TurnTracker, 'active'>;
  stats: Pick<TurnStatsStore, 'errorCounts' | 'recentErrors'>;
  /** Services to probe, in order (the runtime itself included: it is `ready` while it answers). */
  services: readonly string[];
  /** The runtime's own name. */
  self: string;
  now?: () => Date;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

/** The spend section from a budget answer (pure). */
export function spendSection(a: PeerAnswer<Record<string, unknown>>): Spend {
  if (!a.ok) return { state: 'unavailable', error: a.error, period: null, period_start: null, spend_usd: null, soft_limit_usd: null, hard_limit_usd: null, budget_state: null };
  const b = a.body;
  return {
    state: 'ok', error: null, period: str(b.period), period_start: str(b.period_start), spend_usd: num(b.spend_usd),
    soft_limit_usd: num(b.soft_limit_usd), hard_limit_usd: num(b.hard_limit_usd), budget_state: str(b.state),
  };
}

/** The sandbox section from its session list, or its readiness when the list failed (pure). */
export function sandboxSection(list: PeerAnswer<Record<string, unknown>>, readiness: PeerAnswer<Record<string, unknown>> | null): SandboxSection {
  if (!list.ok) {
    const r = readiness?.ok ? readiness.body : null;
    return { state: 'unavailable', error: list.error, count: 0, max_sessions: null, warm: null, readiness: r, items: [] };
  }
  const b = list.body;
  const sessions = Array.isArray(b.sessions) ? b.sessions as Array<Record<string, unknown>> : [];
  return {
    state: 'ok', error: null, count: sessions.length, max_sessions: int(b.max_sessions), warm: int(b.warm),
    readiness: b.readiness && typeof b.readiness === 'object' ? b.readiness as Record<string, unknown> : null,
    items: sessions.map((s) => ({
      tenant_id: str(s.tenant_id) ?? '', session_id: str(s.session_id) ?? '', state: str(s.state) ?? 'unknown', runtime: str(s.runtime) ?? 'unknown',
      age_seconds: num(s.age_seconds) ?? 0, idle_seconds: num(s.idle_seconds) ?? 0,
    })),
  };
}

/** A knowledge document as listed (pure). */
function documentOf(d: Record<string, unknown>): IndexDocument {
  return {
    document_id: str(d.document_id) ?? '', title: str(d.title) ?? '', filename: str(d.filename), status: str(d.status) ?? 'unknown',
    last_error: str(d.last_error), owner_user_id: str(d.owner_user_id) ?? '', updated_at: str(d.updated_at) ?? '',
  };
}

/** The index jobs section from the two document lists and the knowledge status (pure). */
export function indexSection(
  failed: PeerAnswer<{ items: Array<Record<string, unknown>>; next_cursor?: string }>,
  indexing: PeerAnswer<{ items: Array<Record<string, unknown>>; next_cursor?: string }>,
  status: PeerAnswer<Record<string, unknown>>,
): IndexJobs {
  const first = [failed, indexing, status].find((a) => !a.ok) as { error: string } | undefined;
  const f = failed.ok ? failed.body.items.map(documentOf) : [];
  const i = indexing.ok ? indexing.body.items.map(documentOf) : [];
  const s = status.ok ? status.body : null;
  const re = s?.reembedding as { running?: unknown; done?: unknown; total?: unknown } | null | undefined;
  return {
    state: failed.ok && indexing.ok ? 'ok' : 'unavailable', error: first?.error ?? null,
    indexing: i.length, failed: f.length,
    truncated: (failed.ok && !!failed.body.next_cursor) || (indexing.ok && !!indexing.body.next_cursor),
    chunks_pending_vectors: s ? int(s.chunks_pending_vectors) : null,
    reembedding: re && typeof re === 'object' ? { running: re.running === true, done: int(re.done) ?? 0, total: int(re.total) ?? 0 } : null,
    indexing_documents: i, failed_documents: f,
  };
}

/** Mission control over its sources. */
export class MissionControlService {
  private probes: { at: number; items: Promise<ServiceHealth[]> } | null = null;
  private readonly now: () => Date;

  constructor(private readonly d: MissionControlDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /** Probe every service, reusing answers younger than `PROBE_CACHE_MS` (concurrent callers share one round). */
  services(): Promise<ServiceHealth[]> {
    const t = this.now().getTime();
    if (this.probes && t - this.probes.at < PROBE_CACHE_MS) return this.probes.items;
    const items = Promise.all(this.d.services.map(async (name): Promise<ServiceHealth> => {
      if (name === this.d.self) return { name, state: 'ready', latency_ms: null, detail: null };
      const r: ProbeResult = await this.d.peers.probe(name);
      return { name, state: r.state, latency_ms: r.latencyMs, detail: r.detail };
    }));
    this.probes = { at: t, items };
    return items;
  }

  /**
   * The workstation now, for the admin whose stamped headers are `as` (forwarded where a peer needs
   * the admin role). Never throws for a peer's failure: that section is `unavailable`.
   */
  async snapshot(tenantId: string, as: Record<string, string>): Promise<MissionControl> {
    const now = this.now();
    const p = this.d.peers;
    const [services, budget, sandbox, failed, indexing, kstatus] = await Promise.all([
      this.services(), p.budget(tenantId), p.sandboxSessions(), p.documents(as, 'failed', DOCUMENT_LIMIT), p.documents(as, 'indexing', DOCUMENT_LIMIT),
      p.knowledgeStatus(as),
    ]);
    const readiness = sandbox.ok ? null : await p.sandboxReadiness();
    const pending = await this.d.approvals.list(tenantId, null, 'pending', APPROVAL_LIMIT);
    const parkedTurns = new Set(pending.map((a) => a.turn_id).filter((x): x is string => !!x));
    const active: ActiveTurn[] = this.d.tracker.active(tenantId).map((t) => ({
      turn_id: t.turnId, session_id: t.sessionId, user_id: t.userId, agent_id: t.agentId, started_at: t.startedAt.toISOString(),
      running_ms: Math.max(0, now.getTime() - t.startedAt.getTime()), waiting_approval: t.turnId !== null && parkedTurns.has(t.turnId),
    }));
    const since = new Date(now.getTime() - ERROR_WINDOW_SECONDS * 1000).toISOString();
    const counts = await this.d.stats.errorCounts(tenantId, since);
    const recent = await this.d.stats.recentErrors(tenantId, since, 10);
    return {
      generated_at: now.toISOString(), tenant_id: tenantId,
      services: { ready: services.filter((s) => s.state === 'ready').length, total: services.length, checked_at: new Date(this.probes?.at ?? now.getTime()).toISOString(), items: services },
      active_turns: { count: active.length, items: active },
      approvals: { pending: pending.length, items: pending },
      errors: {
        window_seconds: ERROR_WINDOW_SECONDS, source: 'agent-runtime turn records (failed turns, failed tool calls, guardrail unavailable)',
        total: counts.turn_failed + counts.tool_errors + counts.guard_unavailable, ...counts,
        recent,
      },
      spend: spendSection(budget),
      sandbox: sandboxSection(sandbox, readiness),
      index_jobs: indexSection(failed, indexing, kstatus),
    };
  }
}
