/**
 * AgentOps (issue 13 item 8; spec "Agent runtime surfaces": `/v1/admin/agentops/*`): per agent, runs,
 * failures, tool error rates, latency and cost over time in daily buckets (UTC days).
 *
 * Runs, failures, tools and latency come from the runtime's own turn records (recorded when a turn
 * ends, since migration 0006); cost from observability's generation records joined on the turn id.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { OrNull, StringEnum } from './atoms.js';

/** Query of `GET /v1/admin/agentops/agents`: `days` (1-90, default 14). */
export const AgentOpsQuerySchema = Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 14 })) });

/** Latency percentiles of finished turns, ms (null when there was none). */
const Latency = Type.Object({ p50: OrNull(Type.Number()), p95: OrNull(Type.Number()) });

/** One UTC day of an agent. */
export const AgentDaySchema = Type.Object({
  /** `YYYY-MM-DD` (UTC). */
  day: Type.String(),
  runs: Type.Integer(),
  failures: Type.Integer(),
  tool_calls: Type.Integer(),
  tool_errors: Type.Integer(),
  latency_ms: Latency,
  /** USD of the day's priced generations of this agent's turns (0 when none was priced). */
  cost_usd: Type.Number(),
});
/** One day of an agent. */
export type AgentDay = Static<typeof AgentDaySchema>;

/** One tool of an agent: calls, errors (`error` or `invalid`), and their ratio. */
export const AgentToolStatSchema = Type.Object({
  tool: Type.String(),
  calls: Type.Integer(),
  errors: Type.Integer(),
  error_rate: Type.Number(),
});

/** One agent over the window. */
export const AgentStatsSchema = Type.Object({
  agent_id: Type.String(),
  runs: Type.Integer(),
  /** Turns that ended `failed` (client gone included). */
  failures: Type.Integer(),
  /** Turns the guardrail blocked. */
  blocked: Type.Integer(),
  failure_rate: Type.Number(),
  tool_calls: Type.Integer(),
  tool_errors: Type.Integer(),
  tool_error_rate: Type.Number(),
  latency_ms: Latency,
  cost_usd: Type.Number(),
  tools: Type.Array(AgentToolStatSchema),
  /** Every day of the window, oldest first (days without turns are zero). */
  daily: Type.Array(AgentDaySchema),
});
/** One agent over the window. */
export type AgentStats = Static<typeof AgentStatsSchema>;

/** `GET /v1/admin/agentops/agents`. */
export const AgentOpsSchema = Type.Object({
  days: Type.Integer(),
  /** First day of the window (UTC), `YYYY-MM-DD`. */
  since: Type.String(),
  /** Where the figures come from. */
  source: Type.Object({
    runs: Type.String(),
    cost: Type.String(),
    /** `ok`, `unavailable` (observability did not answer: cost 0) or `partial` (more generations than read). */
    cost_state: StringEnum(['ok', 'unavailable', 'partial'] as const),
    cost_error: OrNull(Type.String()),
  }),
  items: Type.Array(AgentStatsSchema),
});
/** `GET /v1/admin/agentops/agents`. */
export type AgentOps = Static<typeof AgentOpsSchema>;
