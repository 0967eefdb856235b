/**
 * Indirect injection checked where it enters (issue 16 item 4): every retrieved chunk and memory
 * (`document`) and every tool result (`tool`) goes through the guardrail's input check before the
 * model sees it. The guardrail emits the `guardrail_verdict` turn event for each (with its source);
 * here the answer decides what the model gets:
 * - `allow`: the text as it came;
 * - `redact`: the guardrail's rewritten text (the injected spans replaced by a marker, secrets
 *   redacted);
 * - `block`: nothing of it, a notice in its place;
 * - the guardrail unreachable: the text in fail mode `open`, the notice in `closed`; a check that
 *   was sent but did not finish: the notice (content that could not be checked never reaches the
 *   model, issue 11 item 6).
 * A guardrail client without `content` (an older deployment) is not asked. Never throws.
 */
import type { GuardOutcome } from '../ports.js';
import type { ChatDeps, Turn } from './turn.js';

/** What stands for withheld content in the prompt. */
export const WITHHELD_NOTICE = '[withheld by the guardrail: this content carried instructions addressed to the AI or could not be checked]';

/** What the model gets of one piece of content, and what the guardrail said. */
export interface GuardedContent {
  /** The text for the prompt (the content, its rewritten form, or the notice). */
  text: string;
  /** `allow`, `redact`, `block`, `unavailable` (unreachable, fail open) or `unchecked` (no content check in this guardrail). */
  verdict: 'allow' | 'redact' | 'block' | 'unavailable' | 'unchecked';
}

/** The model's view of `content` by the guardrail's answer `g` (see module doc). */
export function contentByVerdict(content: string, g: GuardOutcome, failMode: 'open' | 'closed'): GuardedContent {
  if (!g.available) {
    if (g.unreachable && failMode === 'open') return { text: content, verdict: 'unavailable' };
    return { text: WITHHELD_NOTICE, verdict: 'block' };
  }
  if (g.decision === 'block') return { text: WITHHELD_NOTICE, verdict: 'block' };
  if (g.decision === 'redact' && g.rewritten_content !== null) return { text: g.rewritten_content, verdict: 'redact' };
  return { text: content, verdict: 'allow' };
}

/** Check one piece of entering content (see module doc). Never throws. */
export async function guardContent(d: Pick<ChatDeps, 'guardrail' | 'settings'>, turn: Turn, content: string, source: 'document' | 'tool'): Promise<GuardedContent> {
  if (!d.guardrail.content || content.trim() === '') return { text: content, verdict: 'unchecked' };
  const g = await d.guardrail.content(content, source, turn.scope, turn.p.who.headers, turn.signal);
  return contentByVerdict(content, g, d.settings.guardrailFailMode);
}
