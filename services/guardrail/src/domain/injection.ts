/**
 * Prompt-injection scanner, organised by attack class (issue 16 item 4; classes in
 * `attack-classes/`, each with its definition): instruction override, persona and mode switches
 * that lift the rules, authority and authorisation claims, instructions addressed to the AI inside
 * processed content (indirect injection), configuration and role overrides written as key-value
 * pairs or code, role-play that extracts secrets or files, role and delimiter injection, system
 * prompt extraction, output hijacking, and encoded payloads (base64 / hex / ROT13 decoded and
 * rescanned). Rules run over normalised text and combine by noisy-OR into a 0..1 risk.
 *
 * For retrieved documents and tool results, `findInjectedSpans` also says WHICH parts of the text
 * carry the injection, so the check can drop those spans and keep the rest (issue 16 item 4 "mark
 * or drop the offending span"). Pure: no I/O.
 */
import type { ContentSource } from '../contracts.js';
import { AUTHORITY_CLASS } from './attack-classes/authority.js';
import { CONFIG_CLASS } from './attack-classes/config.js';
import { ENCODED_CLASS, EXTRACTION_CLASS, HIJACK_CLASS, ROLE_INJECTION_CLASS } from './attack-classes/extraction.js';
import { INDIRECT_CLASS } from './attack-classes/indirect.js';
import { OVERRIDE_CLASS } from './attack-classes/override.js';
import { PERSONA_CLASS } from './attack-classes/persona.js';
import { SECRET_ROLEPLAY_CLASS } from './attack-classes/secret-roleplay.js';
import { combine, rulePatterns, runRules, warmUpRules, type Rule, type RuleClass, type RuleHit } from './rule-engine.js';
import { decodeCandidates, normalizeForScan, rot13 } from './text.js';

/** Where the scanned text came from (contracts.ts). */
export type { ContentSource };
/** A rule that fired (id and class; never the matched text). */
export type { RuleHit };
/** Noisy-OR of hit weights (rule-engine.ts). */
export { combine };

/** Result of the injection scan. */
export interface InjectionScan { risk: number; hits: RuleHit[] }

/** The injection classes, in report order. */
export const INJECTION_CLASSES: readonly RuleClass[] = [
  OVERRIDE_CLASS, PERSONA_CLASS, AUTHORITY_CLASS, INDIRECT_CLASS, CONFIG_CLASS, SECRET_ROLEPLAY_CLASS,
  ROLE_INJECTION_CLASS, EXTRACTION_CLASS, HIJACK_CLASS, ENCODED_CLASS,
];

const RULES: readonly Rule[] = INJECTION_CLASSES.flatMap((c) => c.rules);

/** Every pattern the injection classes run (id, pattern), read by the linear-time tests (issue 11 item 6). */
export const INJECTION_RULES: ReadonlyArray<{ readonly id: string; readonly re: RegExp }> = rulePatterns(RULES);

/** Compile every injection pattern now (scan workers, before they take checks). */
export function warmUpInjection(): void { warmUpRules(RULES); }

/** Rules rerun on the ROT13 of the text (only the strongest: a cheap pass). */
const ROT13_RULE_IDS: ReadonlySet<string> = new Set(['override_prior_instructions', 'override_all_instructions', 'forget_everything', 'reveal_system_prompt', 'do_anything_now', 'no_rules_named', 'persona_lifts_rules']);

/** Words at least one ROT13 rule needs; a ROT13 view without any of them is not scanned. */
const ROT13_GATE = /\b(?:ignore|disregard|forget|override|bypass|instructions?|prompt|rules|restrictions|filters|ethic\w{0,8}|censorship|guidelines|anything now|mode|you are|pretend|become|act as)\b/;

/** A decoded payload counts when its own risk reaches this. */
const ENCODED_MIN_RISK = 0.3;

/**
 * Scan `raw` for injection and jailbreak attempts.
 * @param source where the text came from: documents and tool results also get the indirect rules
 *   at their stronger weights; `model` output gets only the exfiltration rule.
 */
export function scanInjection(raw: string, source: ContentSource = 'user'): InjectionScan {
  const hits = new Map<string, RuleHit>();
  for (const h of runRules(normalizeForScan(raw), RULES, source)) hits.set(h.id, { id: h.id, family: h.family, weight: h.weight });
  // ROT13-obfuscated overrides (only when the decoded text names what those rules look for).
  const rotated = normalizeForScan(rot13(raw));
  if (ROT13_GATE.test(rotated)) for (const h of runRules(rotated, RULES, source, ROT13_RULE_IDS)) {
    const id = `rot13:${h.id}`;
    if (!hits.has(h.id)) hits.set(id, { id, family: 'rot13', weight: h.weight });
  }
  // Encoded payloads that decode to an injection are injections.
  for (const dec of decodeCandidates(raw)) {
    const inner = runRules(normalizeForScan(dec), RULES, source);
    const risk = combine(inner.map((h) => h.weight));
    if (risk >= ENCODED_MIN_RISK) hits.set('encoded_injection', { id: 'encoded_injection', family: 'encoded_payload', weight: Math.min(0.95, risk + 0.2) });
  }
  const list = [...hits.values()];
  return { risk: combine(list.map((h) => h.weight)), hits: list };
}

/** A span of raw text that carries an injection, and the rules that fired on it. */
export interface InjectedSpan { start: number; end: number; rules: string[] }

/** Where the injection in a document or tool result sits. `whole`: it cannot be cut out. */
export interface InjectedSpans { spans: InjectedSpan[]; whole: boolean }

/** Most segments examined one by one; a longer text with an injection is refused whole. */
const MAX_SEGMENTS = 4000;

/** Where sentences and lines end in raw text: line breaks, escaped `\n` in JSON, and sentence ends before a space or a quote. */
const BOUNDARY = /\n|\\n|[.!?]{1,8}(?=[\s"'\\]|$)/g;

/**
 * Segments of raw text: markup comments on their own (an unclosed one runs to the end), the rest cut
 * at line breaks (also escaped ones inside JSON) and sentence ends; at most 2,000 characters each.
 */
function segments(raw: string): Array<{ start: number; end: number }> {
  const marks: Array<{ start: number; end: number }> = [];
  for (let at = raw.indexOf('<!--'); at >= 0; at = raw.indexOf('<!--', at)) {
    const close = raw.indexOf('-->', at + 4);
    const end = close < 0 ? raw.length : close + 3;
    marks.push({ start: at, end });
    at = end;
  }
  const out: Array<{ start: number; end: number }> = [];
  const plain = (start: number, end: number): void => {
    const text = raw.slice(start, end);
    let from = 0;
    const cut = (to: number): void => {
      for (let a = from; a < to; a += 2000) out.push({ start: start + a, end: start + Math.min(to, a + 2000) });
      from = to;
    };
    for (const m of text.matchAll(BOUNDARY)) cut(m.index + m[0].length);
    cut(text.length);
  };
  let at = 0;
  for (const m of marks) { plain(at, m.start); out.push(m); at = m.end; }
  plain(at, raw.length);
  return out.filter((s) => /[\p{L}\p{N}]/u.test(raw.slice(s.start, s.end)));
}

/**
 * The parts of a document or tool result that carry an injection (issue 16 item 4). Segments that
 * reach `threshold` alone are dropped, then adjacent pairs that reach it together; if what remains
 * still reaches it (or the text has too many segments), `whole` is true.
 */
export function findInjectedSpans(raw: string, source: ContentSource, threshold: number): InjectedSpans {
  const segs = segments(raw);
  if (segs.length > MAX_SEGMENTS) return { spans: [], whole: true };
  const scans = segs.map((s) => scanInjection(raw.slice(s.start, s.end), source));
  const dropped = scans.map((s) => s.risk >= threshold);
  for (let i = 0; i + 1 < segs.length; i++) {
    if (dropped[i] || dropped[i + 1]) continue;
    const pair = scanInjection(raw.slice(segs[i]!.start, segs[i + 1]!.end), source);
    if (pair.risk >= threshold) { dropped[i] = true; dropped[i + 1] = true; scans[i] = pair; }
  }
  const spans: InjectedSpan[] = [];
  segs.forEach((s, i) => { if (dropped[i]) spans.push({ start: s.start, end: s.end, rules: scans[i]!.hits.map((h) => h.id) }); });
  // Nothing localised, or nothing left: the injection is the content.
  if (!spans.length || spans.length === segs.length) return { spans, whole: true };
  const rest = segs.filter((_, i) => !dropped[i]).map((s) => raw.slice(s.start, s.end)).join('\n');
  return { spans, whole: scanInjection(rest, source).risk >= threshold };
}
