/**
 * Step 6 of a turn: the guardrail's output check on the answer (spec "Guardrail"). `block` withholds
 * it, and so does a check that was sent but could not finish (timeout, 5xx, no verdict; issue 11
 * item 6), `redact` replaces it (each with `retract` first); an unreachable guardrail (connection
 * refused) ends the turn unless AGENT_RUNTIME_GUARDRAIL_FAIL_MODE is `open`.
 */
import { failTurn } from './deliver.js';
import type { ChatDeps, Turn, TurnOutcome } from './turn.js';

/** The answer to deliver, or the outcome of a turn that ended here. */
export type GuardedOutput = { content: string } | { outcome: TurnOutcome };

/** Check a non-empty answer against the user's text. */
export async function guardOutput(d: ChatDeps, turn: Turn, content: string, userText: string): Promise<GuardedOutput> {
  const { trace, sink } = turn;
  const noted = turn.journal?.begin('guard_output');
  // Issue 16 item 5: the system prompt goes along, so a disclosure of it is caught.
  const og = await d.guardrail.output(content, turn.scope, userText, turn.p.who.headers, turn.signal, { systemPrompt: d.settings.systemPrompt });
  noted?.(og.available ? og.decision : og.unreachable ? 'unavailable' : 'block', og.available ? { decision: og.decision, ...(og.reason ? { reason: og.reason } : {}) } : { reason: og.why });
  if (!og.available && !og.unreachable) {
    trace.guardrail.output = 'block';
    trace.guardrail.reason = `the output check could not finish (${og.why})`;
    sink('retract', { reason: 'the output check could not finish', original_length: content.length });
    return { content: 'The answer was withheld by the output guardrail.' };
  }
  if (!og.available) {
    trace.guardrail.output = 'unavailable';
    if (d.settings.guardrailFailMode === 'closed') {
      sink('retract', { reason: 'the output guardrail is unavailable', original_length: content.length });
      return { outcome: await failTurn(d, turn, 'guardrail_unavailable', 'the output guardrail is unavailable and the runtime fails closed') };
    }
    return { content };
  }
  trace.guardrail.output = og.decision;
  if (og.decision === 'block') {
    sink('retract', { reason: og.reason || 'blocked by the output guardrail', original_length: content.length });
    return { content: 'The answer was withheld by the output guardrail.' };
  }
  if (og.decision === 'redact' && og.rewritten_content !== null && og.rewritten_content !== content) {
    sink('retract', { reason: og.reason || 'redacted by the output guardrail', original_length: content.length });
    sink('token', { content: og.rewritten_content });
    return { content: og.rewritten_content };
  }
  return { content };
}
