/**
 * Step 1 of a turn: the guardrail's input check on the text of the user's message (spec
 * "Guardrail"). `block` excludes the message from the model, and so does a check that was sent but
 * could not finish (timeout, 5xx, no verdict: the turn is `blocked` with that reason, whatever
 * AGENT_RUNTIME_GUARDRAIL_FAIL_MODE says; issue 11 item 6). An unreachable guardrail (connection
 * refused) passes the message only in fail mode `open`; `redact` rewrites the message and tells the
 * user (`user_redaction`).
 */
import type { ChatMessageInput } from '../../contracts.js';
import { partsText } from '../history.js';
import type { ChatDeps, Turn } from './turn.js';

/** What the input check decided. */
export interface GuardedInput {
  /** This turn's messages, the last one possibly redacted. */
  input: ChatMessageInput[];
  /** Text of the user's message as it came (before redaction). */
  userText: string;
  /** Why the user's message is kept from the model, or null. */
  excluded: string | null;
  /** Whether the guardrail answered. */
  available: boolean;
  /** Whether the guardrail could not be connected to at all (the fail mode decides). */
  unreachable: boolean;
}

/** Why a turn whose input check could not finish is refused (the `blocked` reason the user sees). */
export const INPUT_CHECK_UNFINISHED = 'blocked: the input check could not finish, so the message was not sent to the model';

/** Check the user's message. Never throws (an unreachable guardrail is recorded in the trace). */
export async function guardInput(d: Pick<ChatDeps, 'guardrail' | 'settings'>, turn: Turn): Promise<GuardedInput> {
  const { trace, sink } = turn;
  const input = turn.p.input.map((m) => ({ ...m }));
  const last = input[input.length - 1]!;
  const userText = partsText(last.content);
  let excluded: string | null = null;
  const noted = turn.journal?.begin('guard_input');
  const g = await d.guardrail.input(userText, turn.scope, turn.p.who.headers, turn.signal);
  if (!g.available && g.unreachable) {
    trace.guardrail.input = 'unavailable';
    if (d.settings.guardrailFailMode === 'closed') excluded = 'the input guardrail is unavailable';
  } else if (!g.available) {
    // Sent but not finished: refused, never sent on (issue 11 item 6).
    trace.guardrail.input = 'block';
    trace.guardrail.reason = `the input check could not finish (${g.why})`;
    excluded = INPUT_CHECK_UNFINISHED;
  } else {
    trace.guardrail.input = g.decision;
    if (g.decision === 'block') {
      trace.guardrail.reason = g.reason;
      excluded = g.reason || 'blocked by the input guardrail';
    } else if (g.decision === 'redact' && g.rewritten_content !== null && g.rewritten_content !== userText) {
      const categories = [...new Set(g.scanner_results.filter((r) => !r.is_safe).map((r) => r.scanner_name))];
      const placeholders = g.rewritten_content.match(/<[A-Z][A-Z0-9_]*>/g)?.length ?? 0;
      last.content = typeof last.content === 'string'
        ? g.rewritten_content
        : [{ type: 'text', text: g.rewritten_content }, ...last.content.filter((x) => x.type !== 'text')];
      sink('user_redaction', { display_content: g.rewritten_content, categories_scrubbed: categories, entities_redacted: Math.max(placeholders, categories.length) });
    }
  }
  noted?.(trace.guardrail.input, { decision: trace.guardrail.input, ...(excluded !== null ? { reason: trace.guardrail.reason ?? excluded } : {}) });
  return { input, userText, excluded, available: g.available, unreachable: !g.available && g.unreachable === true };
}
