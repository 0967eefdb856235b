/**
 * AgentOps (issue 13 item 8; spec "Agent runtime surfaces": `/v1/admin/agentops/*`): per agent,
 * runs, failures, tool error rates, latency (p50/p95) and cost, over the last `days` UTC days in
 * daily buckets.
 *
 * Runs, failures, tool calls and latency come from the runtime's turn records (`turn_stats`, one row
 * per finished turn). Cost comes from observability's generation records (service stamp: every
 * user's), summed per turn id and attributed to the agent and day of the runtime's record of that
 * turn; generations of other callers (the OpenAI-compatible API) belong to no agent and are left out.
 */
import type { AgentDay, AgentOps, AgentStats } from '../../contracts.js';
import type { AdminPeers, TurnStatRow, TurnStatsStore } from './ports.js';

/** Generations read per page, and pages at most (10,000 generations). */
export const GENERATION_PAGE = 500;
export const GENERATION_PAGES = 20;

/** What AgentOps reads. */
export interface AgentOpsDeps {
  stats: Pick<TurnStatsStore, 'since' | 'toolCounts'>;
  peers: Pick<AdminPeers, 'generations'>;
  /** Listed even without runs. */
  defaultAgentId: string;
  now?: () => Date;
}

/** Nearest-rank percentile `q` (0-1) of `values`; null when empty (pure). */
export function percentile(values: readonly number[], q: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return Math.round(s[i]! * 1000) / 1000;
}

/** The UTC days of the window ending today, oldest first (`YYYY-MM-DD`; pure). */
export function windowDays(now: Date, days: number): string[] {
  const out: string[] = [];
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let i = days - 1; i >= 0; i--) out.push(new Date(today - i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

const rate = (part: number, whole: number): number => (whole ? Math.round((part / whole) * 10_000) / 10_000 : 0);
const usd = (v: number): number => Math.round(v * 1e6) / 1e6;

/**
 * Aggregate turn rows, tool counts and per-turn costs into per-agent stats (pure).
 * @param costs USD per turn id.
 */
export function aggregate(
  rows: readonly TurnStatRow[], tools: ReadonlyArray<{ agent_id: string; tool: string; calls: number; errors: number }>,
  costs: ReadonlyMap<string, number>, days: readonly string[], defaultAgentId: string,
): AgentStats[] {
  const inWindow = new Set(days);
  const agents = new Set([defaultAgentId, ...rows.map((r) => r.agent_id), ...tools.map((t) => t.agent_id)]);
  return [...agents].sort().map((agent) => {
    const mine = rows.filter((r) => r.agent_id === agent && inWindow.has(r.day));
    const byDay = new Map<string, TurnStatRow[]>();
    for (const r of mine) { const l = byDay.get(r.day); if (l) l.push(r); else byDay.set(r.day, [r]); }
    const daily: AgentDay[] = days.map((day) => {
      const d = byDay.get(day) ?? [];
      const lat = d.map((r) => r.latency_ms);
      return {
        day, runs: d.length, failures: d.filter((r) => r.status === 'failed').length,
        tool_calls: d.reduce((n, r) => n + r.tool_calls, 0), tool_errors: d.reduce((n, r) => n + r.tool_errors, 0),
        latency_ms: { p50: percentile(lat, 0.5), p95: percentile(lat, 0.95) },
        cost_usd: usd(d.reduce((n, r) => n + (r.turn_id ? costs.get(r.turn_id) ?? 0 : 0), 0)),
      };
    });
    const runs = mine.length;
    const failures = daily.reduce((n, d) => n + d.failures, 0);
    const toolCalls = daily.reduce((n, d) => n + d.tool_calls, 0);
    const toolErrors = daily.reduce((n, d) => n + d.tool_errors, 0);
    const lat = mine.map((r) => r.latency_ms);
    return {
      agent_id: agent, runs, failures, blocked: mine.filter((r) => r.status === 'blocked').length, failure_rate: rate(failures, runs),
      tool_calls: toolCalls, tool_errors: toolErrors, tool_error_rate: rate(toolErrors, toolCalls),
      latency_ms: { p50: percentile(lat, 0.5), p95: percentile(lat, 0.95) },
      cost_usd: usd(daily.reduce((n, d) => n + d.cost_usd, 0)),
      tools: tools.filter((t) => t.agent_id === agent).map((t) => ({ tool: t.tool, calls: t.calls, errors: t.errors, error_rate: rate(t.errors, t.calls) })),
      daily,
    };
  });
}

/** AgentOps over the turn records and observability. */
export class AgentOpsService {
  private readonly now: () => Date;

  constructor(private readonly d: AgentOpsDeps) {
    this.now = d.now ?? (() => new Date());
  }

  /** Per-agent stats of the tenant over the last `days` UTC days. Observability down: cost 0 and `cost_state` `unavailable`. */
  async agents(tenantId: string, days: number): Promise<AgentOps> {
    const window = windowDays(this.now(), days);
    const since = `${window[0]!}T00:00:00.000Z`;
    const rows = await this.d.stats.since(tenantId, since);
    const tools = await this.d.stats.toolCounts(tenantId, since);
    const cost = await this.costs(since, new Set(rows.map((r) => r.turn_id).filter((x): x is string => !!x)));
    return {
      days, since: window[0]!,
      source: {
        runs: 'agent-runtime turn records (one per finished chat turn)',
        cost: 'observability generation records, joined on the turn id',
        cost_state: cost.state, cost_error: cost.error,
      },
      items: aggregate(rows, tools, cost.byTurn, window, this.d.defaultAgentId),
    };
  }

  /** USD per turn id of the generations since `since` that belong to `turns`. */
  private async costs(since: string, turns: ReadonlySet<string>): Promise<{ byTurn: Map<string, number>; state: 'ok' | 'unavailable' | 'partial'; error: string | null }> {
    const byTurn = new Map<string, number>();
    if (!turns.size) return { byTurn, state: 'ok', error: null };
    let cursor: string | undefined;
    for (let page = 0; page < GENERATION_PAGES; page++) {
      const a = await this.d.peers.generations(since, GENERATION_PAGE, cursor);
      if (!a.ok) return { byTurn, state: page === 0 ? 'unavailable' : 'partial', error: a.error };
      for (const g of a.body.items) {
        const turn = typeof g.turn_id === 'string' ? g.turn_id : null;
        const usdCost = typeof g.cost_usd === 'number' ? g.cost_usd : 0;
        if (turn && turns.has(turn) && usdCost > 0) byTurn.set(turn, (byTurn.get(turn) ?? 0) + usdCost);
      }
      if (!a.body.next_cursor) return { byTurn, state: 'ok', error: null };
      cursor = a.body.next_cursor;
    }
    return { byTurn, state: 'partial', error: `more than ${GENERATION_PAGE * GENERATION_PAGES} generations in the window: cost counts the newest only` };
  }
}
