/**
 * Step 8 of a turn: tell the client how it ended (spec "Chat stream events"): a last
 * `trace_update`, then `done` with the receipt and message ids; or, for a failed turn, the
 * `turn_failed` event to audit and `error` to the client.
 */
import type { ReceiptRef } from '../../contracts.js';
import { emitTurnEvent, endTurn, type ChatDeps, type Turn, type TurnOutcome } from './turn.js';

/** How long captures may delay a failure's events, ms. */
const FAILURE_CAPTURE_WAIT_MS = 1000;

/** Deliver an answered turn. */
export function deliverAnswer(turn: Turn, assistantId: string, receipt: ReceiptRef | null, role: string): void {
  const { trace, sink } = turn;
  sink('trace_update', { patch: { model: trace.model, steps: trace.steps, usage: trace.usage, timings: trace.timings, guardrail: trace.guardrail, tool_calls: trace.tool_calls } });
  sink('done', {
    session_id: turn.p.session.id, agent_id: turn.p.agentId, receipt, assistant_message_id: assistantId, user_message_id: turn.userMessageId,
    routing: { model_role: role, model: trace.model },
  });
}

/** Deliver a turn whose input was blocked. */
export function deliverBlocked(turn: Turn, assistantId: string, receipt: ReceiptRef | null): void {
  const { trace, sink } = turn;
  sink('trace_update', { patch: { guardrail: trace.guardrail, timings: trace.timings } });
  sink('done', { session_id: turn.p.session.id, agent_id: turn.p.agentId, receipt, assistant_message_id: assistantId, user_message_id: turn.userMessageId });
}

/**
 * End a turn as failed with `code`: record it in the trace, emit `turn_failed` (and deliver the
 * turn's events, captures bounded to 1 s), then send `error` to the client.
 */
export async function failTurn(d: Pick<ChatDeps, 'events' | 'audit' | 'log'>, turn: Turn, code: string, message: string): Promise<TurnOutcome> {
  const { trace } = turn;
  trace.error = { code, message };
  emitTurnEvent(d, turn, 'turn_failed', { code, message, step: trace.steps });
  if (turn.p.who.turnId) {
    await Promise.race([Promise.allSettled(turn.captures), new Promise((r) => setTimeout(r, FAILURE_CAPTURE_WAIT_MS).unref())]);
    await d.events.deliver();
  }
  d.log.warn({ code, turn_id: turn.p.who.turnId }, 'chat turn failed');
  turn.sink('error', { message, code });
  return endTurn(turn, 'failed', '', { error: { code, message } });
}
