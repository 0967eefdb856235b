/**
 * Receipts that read like history (issue 13 item 7): what a sealed turn was, derived once from its
 * events when it seals and kept on its `turns` row (migrations/audit/0002), so the receipt list can
 * filter by kind and search without reading events. Pure.
 *
 * Rules (the migration's backfill of turns sealed before it follows the same ones, without summaries):
 * - `method`, `route`: the gateway's `turn_started` (`method`, `path`: the normalised path, no query);
 *   null for turns that did not come through the gateway.
 * - `kind`: `/v1/admin` and below -> `admin`; `/v1/chat` and below (chat, stream, AG-UI,
 *   completions) -> `chat`; `POST /v1/sandbox/...` -> `tool_run`; otherwise a turn whose runtime
 *   events carry a chat summary -> `chat` (a run over a conversation), a turn without a route whose
 *   runtime prompted a model -> `chat`, a turn with tool calls and no model call -> `tool_run`;
 *   anything else -> `other`.
 * - `summary`: for a chat, the `summary` the agent runtime put on its first `prompt_generated`
 *   (the user's first words after the input guardrail; a blocked input never reaches the model, so
 *   it has none), only from the turn owner's own events; for a tool run, the names of the tools
 *   called; else null. Whitespace collapsed, control characters dropped, at most `RECEIPT_SUMMARY_MAX`.
 * - `outcome`: `blocked` when a guardrail blocked the user's message or the model's answer (not a
 *   tool result or document), `failed` for a failed envelope, else
 *   `completed`; `http_status`: the status of the gateway's terminal event.
 * - `started_at`: the earliest event's `occurred_at`.
 */
import { RECEIPT_SUMMARY_MAX, type ReceiptKind, type ReceiptOutcome } from '../contracts/receipts.js';
import type { EnvelopeStatus, LeafEvent } from '../verifier/format.js';

/** The history columns of a sealed turn (`turns.kind` ... `turns.started_at`). */
export interface TurnHistory {
  kind: ReceiptKind;
  summary: string | null;
  method: string | null;
  route: string | null;
  outcome: ReceiptOutcome;
  http_status: number | null;
  started_at: string | null;
}

/** The emitter whose `prompt_generated` carries a chat's summary. */
const RUNTIME = 'agent-runtime';

function payloadOf(e: LeafEvent): Record<string, unknown> {
  try {
    const v = JSON.parse(e.payload_json) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : {};
  } catch {
    return {};
  }
}

/** True for `prefix` itself and every path below it (`/v1/admin`, `/v1/admin/x`; never `/v1/administer`). */
export function underPath(route: string, prefix: string): boolean {
  return route === prefix || route.startsWith(`${prefix}/`);
}

/**
 * A one-line summary: control characters dropped, whitespace collapsed, trimmed, cut at `max`
 * characters (code points) with an ellipsis. @returns null for an empty result or a non-string.
 */
export function oneLine(text: unknown, max: number = RECEIPT_SUMMARY_MAX): string | null {
  if (typeof text !== 'string') return null;
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim();
  if (!flat) return null;
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('').trimEnd()}…`;
}

/** What the events of a turn say, before the kind is decided. */
export interface TurnSignals {
  method: string | null;
  route: string | null;
  /** The owner's chat summary from the runtime, or null. */
  chatSummary: string | null;
  /** The runtime prompted a model (outside a replay). */
  prompted: boolean;
  /** Names of the tools called, in order, once each. */
  tools: string[];
}

/** The kind of a turn from its signals (rules in the header). */
export function kindOf(s: Pick<TurnSignals, 'method' | 'route' | 'chatSummary' | 'prompted' | 'tools'>): ReceiptKind {
  if (s.route !== null) {
    if (underPath(s.route, '/v1/admin')) return 'admin';
    if (underPath(s.route, '/v1/chat')) return 'chat';
    if (s.method === 'POST' && s.route.startsWith('/v1/sandbox/')) return 'tool_run';
    if (s.chatSummary !== null) return 'chat';
  } else if (s.prompted) {
    return 'chat';
  }
  if (s.tools.length > 0 && !s.prompted) return 'tool_run';
  return 'other';
}

/** Read the signals of a turn from its events in leaf order; only `owner`'s runtime events give a summary. */
export function signalsOf(owner: string, events: readonly LeafEvent[]): TurnSignals {
  const s: TurnSignals = { method: null, route: null, chatSummary: null, prompted: false, tools: [] };
  let started = false;
  for (const e of events) {
    if (e.payload_type === 'turn_started' && !started) {
      const p = payloadOf(e);
      started = true;
      s.method = typeof p.method === 'string' ? p.method.slice(0, 16) : null;
      s.route = typeof p.path === 'string' ? p.path.slice(0, 2048) : null;
    } else if (e.payload_type === 'prompt_generated') {
      const p = payloadOf(e);
      if (p.replay_of !== undefined) continue;
      if (e.emitter_service === RUNTIME) s.prompted = true;
      if (s.chatSummary === null && e.emitter_service === RUNTIME && e.principal_id === owner) s.chatSummary = oneLine(p.summary);
    } else if (e.payload_type === 'model_invoked') {
      if (payloadOf(e).replay_of === undefined) s.prompted = true;
    } else if (e.payload_type === 'tool_called') {
      const tool = payloadOf(e).tool;
      if (typeof tool === 'string' && tool && !s.tools.includes(tool) && s.tools.length < 20) s.tools.push(tool);
    }
  }
  return s;
}

/**
 * Whether a guardrail verdict blocked the turn itself: a block of the user's message or the model's
 * answer (`source` user, model or absent); a blocked tool result or document only keeps that piece
 * from the model.
 */
export function blocksTurn(verdict: Record<string, unknown>): boolean {
  return verdict.decision === 'block' && (verdict.source === undefined || verdict.source === 'user' || verdict.source === 'model');
}

/**
 * The history of a turn as it seals: `owner` is the turn's principal, `events` its events in leaf
 * order, `status` the envelope's status.
 */
export function historyOf(owner: string, events: readonly LeafEvent[], status: EnvelopeStatus): TurnHistory {
  const s = signalsOf(owner, events);
  const kind = kindOf(s);
  let httpStatus: number | null = null;
  let blocked = false;
  let startedAt: string | null = null;
  for (const e of events) {
    if (startedAt === null || e.occurred_at < startedAt) startedAt = e.occurred_at;
    if (e.payload_type === 'guardrail_verdict' && blocksTurn(payloadOf(e))) blocked = true;
    if (httpStatus === null && (e.payload_type === 'turn_sealed' || e.payload_type === 'turn_failed')) {
      const st = payloadOf(e).status;
      if (typeof st === 'number' && Number.isInteger(st) && st >= 100 && st <= 599) httpStatus = st;
    }
  }
  const summary = kind === 'chat' ? s.chatSummary : kind === 'tool_run' ? oneLine(s.tools.join(', ')) : null;
  return {
    kind, summary, method: s.method, route: s.route,
    outcome: blocked ? 'blocked' : status === 'failed' ? 'failed' : 'completed', http_status: httpStatus, started_at: startedAt,
  };
}

/**
 * The `LIKE` pattern of a search `q` (ESCAPE `\`): `%`, `_` and `\` in `q` match themselves;
 * null for a blank `q` (no search).
 */
export function likePattern(q: string | undefined): string | null {
  const t = q?.trim();
  if (!t) return null;
  return `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
