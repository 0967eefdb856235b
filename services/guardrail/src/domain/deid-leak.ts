/**
 * De-identification failures in model output (issue 16 item 5): when a turn's input was
 * de-identified (`POST /v1/guard/deidentify` gave placeholders such as `<PERSON_1>`), the model's
 * answer must not carry the real values back. The output check looks for every value the turn
 * de-identified for the acting user and puts its placeholder back (the owner's client restores it
 * with `/v1/guard/reidentify`): the policy's `pii.output` action `flag` or `redact` redacts, `block`
 * blocks, `off` skips. Reports counts and placeholder kinds, never values. Pure: no I/O.
 */
import type { GuardPolicy } from '../contracts.js';
import type { CheckOutcome } from './ports.js';

/** `scanner_results[].scanner_name` of this check. */
export const DEID_LEAK_SCANNER = 'deidentification';

/** Escape `s` for a regular expression. */
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replace every value of `values` (placeholder -> value) found in `text` by its placeholder (whole
 * words, case-insensitive, longest values first). @returns the text and the placeholders put back.
 */
export function restorePlaceholders(text: string, values: ReadonlyMap<string, string>): { text: string; placeholders: string[] } {
  const placed: string[] = [];
  let out = text;
  for (const [placeholder, value] of [...values].sort((a, b) => b[1].length - a[1].length)) {
    if (value.trim().length < 3) continue;
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${escape(value)}(?![\\p{L}\\p{N}])`, 'giu');
    if (!re.test(out)) continue;
    out = out.replace(re, placeholder);
    placed.push(placeholder);
  }
  return { text: out, placeholders: placed };
}

/**
 * Fold the turn's de-identified values into an output check's outcome (see module doc). No values,
 * or none found: nothing changes (no scanner result either, so outputs of turns without
 * de-identification read as before).
 */
export function applyDeidLeak(res: CheckOutcome, content: string, values: ReadonlyMap<string, string>, policy: GuardPolicy): void {
  const action = policy.pii.output;
  if (action === 'off' || values.size === 0) return;
  const base = res.result.rewritten_content ?? content;
  const found = restorePlaceholders(base, values);
  if (!found.placeholders.length) return;
  const kinds = [...new Set(found.placeholders.map((p) => p.replace(/^<|_\d+>$/g, '')))];
  res.result.scanner_results.push({
    scanner_name: DEID_LEAK_SCANNER, is_safe: false, risk_score: 1,
    detail: `${found.placeholders.length} value${found.placeholders.length === 1 ? '' : 's'} the turn de-identified (${kinds.join(', ')}) in the output`,
  });
  res.verdict.fired.push(DEID_LEAK_SCANNER);
  const what = `de-identification failure (${kinds.join(', ')})`;
  if (action === 'block') {
    res.verdict.blocked_by.push(DEID_LEAK_SCANNER);
    res.result.reason = res.result.decision === 'block' ? `${res.result.reason}; ${what}` : `blocked: ${what}`;
    res.result.decision = 'block';
    res.result.rewritten_content = null;
    return;
  }
  if (res.result.decision === 'block') return;
  res.result.reason = res.result.decision === 'redact' ? `${res.result.reason}; ${what}` : `redacted: ${what}`;
  res.result.decision = 'redact';
  res.result.rewritten_content = found.text;
}
