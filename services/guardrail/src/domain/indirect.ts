/**
 * Indirect injection where it enters (issue 16 item 4): a retrieved chunk, a tool result or an
 * uploaded document that carries instructions addressed to the AI keeps its useful text, and loses
 * the offending spans, each replaced by a visible marker, so the model sees neither the planted
 * instruction nor a silent gap. When the injection cannot be cut out (it is the whole text, or what
 * remains still reads as one), the check blocks the content instead. Pure: no I/O.
 */
import type { EntitySpan } from './entities.js';
import { findInjectedSpans } from './injection.js';

/** What replaces a dropped span: tells the model (and a reader of the prompt) that text was removed and why. */
export const INJECTION_MARK = '[removed by the guardrail: instructions addressed to the AI]';

/** A span of raw text to replace, and with what. */
export interface Edit { start: number; end: number; text: string }

/**
 * The edits that drop the injected spans of a document or tool result, or null when they cannot be
 * cut out (`whole`: block instead). @param threshold the injection scanner's threshold.
 */
export function injectionEdits(content: string, source: 'document' | 'tool', threshold: number): { edits: Edit[]; rules: string[] } | null {
  const found = findInjectedSpans(content, source, threshold);
  if (found.whole) return null;
  return { edits: found.spans.map((s) => ({ start: s.start, end: s.end, text: INJECTION_MARK })), rules: [...new Set(found.spans.flatMap((s) => s.rules))] };
}

/** Entity spans as edits: `[REDACTED_<TYPE>]`. */
export function entityEdits(spans: readonly EntitySpan[]): Edit[] {
  return spans.map((s) => ({ start: s.start, end: s.end, text: `[REDACTED_${s.type}]` }));
}

/** Apply non-overlapping edits (an edit overlapping an earlier one is skipped), in order of start. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = '';
  let at = 0;
  for (const e of [...edits].sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (e.start < at) continue;
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}
