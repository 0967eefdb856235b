/**
 * The runtime's own view of its turns (issue 13 item 8): which turns run now (mission control's
 * "active turns") and one statistics row per finished turn (AgentOps; mission control's "errors in
 * the last hour"). `TrackedChatEngine` is the chat engine with `run` wrapped, so every turn (JSON,
 * stream, or any other caller of `run`) is seen without touching the turn's steps.
 */
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { ChatEngine, type ChatDeps, type EventSink, type PreparedTurn, type TurnListener, type TurnOutcome } from '../chat-engine.js';
import type { TurnStatRow, TurnStatsStore, TurnToolRow } from './ports.js';

const nextId = ulidFactory();

/** Tool call statuses that count as errors. */
export const TOOL_ERROR_STATUSES: readonly string[] = ['error', 'invalid'];

/** A turn while it runs. */
export interface RunningTurn {
  key: string;
  turnId: string | null;
  tenantId: string;
  sessionId: string;
  userId: string;
  agentId: string;
  startedAt: Date;
}

/** Longest error message kept, characters. */
const MESSAGE_LIMIT = 300;

/**
 * The statistics row of a finished turn (pure).
 * @param outcome null when the run threw (recorded as `failed` with `internal_error`).
 */
export function statRow(t: RunningTurn, outcome: TurnOutcome | null, endedAt: Date, fallbackMs: number): { row: TurnStatRow; tools: TurnToolRow[] } {
  const trace = outcome?.trace;
  const tools = (trace?.tool_calls ?? []).map((c) => ({ tool: c.tool, status: c.status }));
  const guard = trace?.guardrail;
  const error = outcome ? outcome.error ?? trace?.error ?? null : { code: 'internal_error', message: 'the run ended with an unexpected error' };
  return {
    row: {
      id: t.key, turn_id: t.turnId, tenant_id: t.tenantId, agent_id: t.agentId, user_id: t.userId, session_id: t.sessionId,
      status: outcome?.status ?? 'failed', error_code: error?.code ?? null, error_message: error ? error.message.slice(0, MESSAGE_LIMIT) : null,
      guard_unavailable: guard?.input === 'unavailable' || guard?.output === 'unavailable' ? 1 : 0,
      tool_calls: tools.length, tool_errors: tools.filter((x) => TOOL_ERROR_STATUSES.includes(x.status)).length,
      latency_ms: trace?.timings.total_ms || fallbackMs, prompt_tokens: trace?.usage.prompt_tokens ?? 0, completion_tokens: trace?.usage.completion_tokens ?? 0,
      started_at: t.startedAt.toISOString(), ended_at: endedAt.toISOString(), day: t.startedAt.toISOString().slice(0, 10),
    },
    tools,
  };
}

/** Turns running now, and the record of finished ones. */
export class TurnTracker {
  private readonly running = new Map<string, RunningTurn>();

  constructor(
    private readonly stats: TurnStatsStore,
    private readonly log: { warn(obj: object, msg: string): void },
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A turn starts. @returns its entry. */
  begin(p: PreparedTurn): RunningTurn {
    // A turn id names the turn; without one (no gateway stamp) a local id keeps the row apart.
    const key = p.who.turnId && !this.running.has(p.who.turnId) ? p.who.turnId : nextId();
    const t: RunningTurn = {
      key, turnId: p.who.turnId, tenantId: p.who.tenantId, sessionId: p.session.id, userId: p.who.userId, agentId: p.agentId, startedAt: this.now(),
    };
    this.running.set(key, t);
    return t;
  }

  /** A turn ended (outcome null: it threw). Recording never throws: a failed write is logged. */
  async end(t: RunningTurn, outcome: TurnOutcome | null): Promise<void> {
    this.running.delete(t.key);
    const endedAt = this.now();
    try {
      const { row, tools } = statRow(t, outcome, endedAt, endedAt.getTime() - t.startedAt.getTime());
      await this.stats.record(row, tools);
    } catch (err) {
      this.log.warn({ err: (err as Error).message, turn_id: t.turnId }, 'turn statistics not recorded');
    }
  }

  /** Turns running now in the tenant, oldest first. */
  active(tenantId: string): RunningTurn[] {
    return [...this.running.values()].filter((t) => t.tenantId === tenantId).sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  }
}

/** The chat engine whose runs the tracker sees (every other method is the engine's own). */
export class TrackedChatEngine extends ChatEngine {
  constructor(private readonly tracker: TurnTracker, d: ChatDeps, listener: TurnListener | null = null) {
    super(d, listener);
  }

  /** `ChatEngine.run`, with the turn listed while it runs and recorded when it ends. */
  override async run(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Promise<TurnOutcome> {
    const t = this.tracker.begin(p);
    let outcome: TurnOutcome | null = null;
    try {
      outcome = await super.run(p, sink, signal);
      return outcome;
    } finally {
      await this.tracker.end(t, outcome);
    }
  }
}
