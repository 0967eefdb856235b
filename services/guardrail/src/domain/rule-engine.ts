/**
 * The rule engine of the heuristic layer (issue 16 item 4 "Heuristic layer by attack class"). A
 * class is written as rules of two kinds over normalised text (text.ts `normalizeForScan`):
 * - a pattern rule: one bounded regular expression;
 * - a co-occurrence rule: two or three cues (each a bounded regular expression naming one element
 *   of the class's definition, e.g. "a persona or mode switch" and "a claim that the rules are
 *   lifted") whose matches lie within `within` characters of each other, in any order.
 * Cue positions are found once per text with one global pass each and combined with a two-pointer
 * walk, so a scan stays linear in the text whatever the window (issue 11 item 6). Hits name rules
 * and classes, never the matched text. Risks combine by noisy-OR. Pure: no I/O.
 */
import type { ContentSource } from '../contracts.js';

/** Where scanned text came from (contracts.ts). */
export type { ContentSource };

/** A rule that fired: its id, its class (`family`) and its weight; never the matched text. */
export interface RuleHit { id: string; family: string; weight: number }

/** One element of a class definition, as a bounded pattern over normalised text. */
export interface Cue { readonly id: string; readonly re: RegExp }

/** Fields every rule has. */
interface RuleBase {
  /** Stable id (reported in `scanner_results[].detail` and turn events). */
  readonly id: string;
  /** The attack class the rule belongs to. */
  readonly family: string;
  /** Risk 0..1 the rule contributes (noisy-OR). */
  readonly weight: number;
  /** Sources the rule applies to; default every source but `model`. */
  readonly sources?: readonly ContentSource[];
  /** Weight per source where it differs from `weight`. */
  readonly weightBySource?: Partial<Record<ContentSource, number>>;
  /** A cheap test the text must pass before the rule runs (e.g. "has an assignment sign"). */
  readonly gate?: RegExp;
}

/** A rule that fires when one bounded pattern matches. */
export interface PatternRule extends RuleBase { readonly re: RegExp }

/**
 * A rule that fires when every cue matches within `within` characters of the first cue's match
 * (`order` `after`: the other cues start after it; `before`: they start before it; default either
 * side), unless one of the `unless` cues starts in the `unlessWithin` characters before that match
 * (a defensive or educational framing, e.g. "how to protect against ...", "the history of ...").
 */
export interface NearRule extends RuleBase {
  readonly cues: readonly Cue[];
  readonly within: number;
  readonly order?: 'after' | 'before';
  readonly unless?: readonly Cue[];
  readonly unlessWithin?: number;
}

/** A rule of either kind. */
export type Rule = PatternRule | NearRule;

/** A class of attack or harm: its id, its definition (what the tests are written from) and its rules. */
export interface RuleClass {
  readonly id: string;
  /** One-paragraph definition of the class. */
  readonly definition: string;
  readonly rules: readonly Rule[];
}

/** Most positions recorded per cue and text (a text full of one cue needs no more to decide). */
const MAX_POSITIONS = 4096;

/** Noisy-OR of the hit weights: 1 - Π(1 - w). */
export function combine(weights: readonly number[]): number {
  let p = 1;
  for (const w of weights) p *= 1 - w;
  return 1 - p;
}

/** `(?:a|b|c)` of the alternatives. */
export function alt(...parts: readonly string[]): string {
  return `(?:${parts.join('|')})`;
}

/** A cue from a pattern source (word-bounded at both ends unless the source says otherwise). */
export function cue(id: string, source: string, bounded = true): Cue {
  return { id, re: new RegExp(bounded ? String.raw`\b(?:${source})\b` : source) };
}

/** A rule's weight for `source`. */
function weightFor(r: Rule, source: ContentSource): number {
  return r.weightBySource?.[source] ?? r.weight;
}

/** Whether a rule applies to `source`. */
export function appliesTo(r: Rule, source: ContentSource): boolean {
  return r.sources ? r.sources.includes(source) : source !== 'model';
}

/** The global twin of each cue's pattern, compiled once (scans are synchronous: one user at a time). */
const GLOBAL = new WeakMap<Cue, RegExp>();

/** The global twin of `c`. */
function globalOf(c: Cue): RegExp {
  let g = GLOBAL.get(c);
  if (!g) { g = new RegExp(c.re.source, c.re.flags.includes('g') ? c.re.flags : `${c.re.flags}g`); GLOBAL.set(c, g); }
  return g;
}

/** Start positions of a cue's matches in `text` (at most MAX_POSITIONS), memoised per scan. */
class CuePositions {
  private readonly memo = new Map<Cue, number[]>();
  constructor(private readonly text: string) {}

  of(c: Cue): number[] {
    let at = this.memo.get(c);
    if (at) return at;
    at = [];
    const g = globalOf(c);
    g.lastIndex = 0;
    for (let m = g.exec(this.text); m && at.length < MAX_POSITIONS; m = g.exec(this.text)) {
      at.push(m.index);
      if (m[0].length === 0) g.lastIndex++;
    }
    this.memo.set(c, at);
    return at;
  }
}

/** Whether sorted `xs` has a value within [lo, hi] (binary search). */
function hasIn(xs: readonly number[], lo: number, hi: number): boolean {
  let a = 0;
  let b = xs.length;
  while (a < b) { const m = (a + b) >> 1; if (xs[m]! < lo) a = m + 1; else b = m; }
  return a < xs.length && xs[a]! <= hi;
}

/** Position where a near rule holds (every cue within `within` of one match of the first), or -1. */
function nearAt(r: NearRule, pos: CuePositions): number {
  // Cue by cue, stopping at the first that does not occur (most texts carry no cue of most rules).
  const lists: number[][] = [];
  for (const c of r.cues) { const l = pos.of(c); if (l.length === 0) return -1; lists.push(l); }
  const [first, ...rest] = lists;
  const unless = r.unless?.map((c) => pos.of(c)) ?? [];
  const u = r.unlessWithin ?? 48;
  const lo = r.order === 'after' ? 0 : r.within;
  const hi = r.order === 'before' ? 0 : r.within;
  for (const p of first!) {
    if (!rest.every((l) => hasIn(l, p - lo, p + hi))) continue;
    if (unless.some((l) => hasIn(l, p - u, p + 2))) continue;
    return p;
  }
  return -1;
}

/** A hit with where it matched in the scanned (normalised) text. */
export interface LocatedHit extends RuleHit { at: number }

/**
 * Run `rules` that apply to `source` over normalised `text`.
 * @param only when given, only rules with these ids run.
 * @returns the hits, in rule order, each with its position in `text`.
 */
export function runRules(text: string, rules: readonly Rule[], source: ContentSource, only?: ReadonlySet<string>): LocatedHit[] {
  const pos = new CuePositions(text);
  const hits: LocatedHit[] = [];
  for (const r of rules) {
    if (only && !only.has(r.id)) continue;
    if (!appliesTo(r, source)) continue;
    if (r.gate && !r.gate.test(text)) continue;
    let at = -1;
    if ('re' in r) { const m = r.re.exec(text); if (m) at = m.index; } else at = nearAt(r, pos);
    if (at >= 0) hits.push({ id: r.id, family: r.family, weight: weightFor(r, source), at });
  }
  return hits;
}

/** The patterns of a rule list, for the linear-time tests: pattern rules and every cue of the near rules. */
export function rulePatterns(rules: readonly Rule[]): Array<{ id: string; re: RegExp }> {
  const out: Array<{ id: string; re: RegExp }> = [];
  const seen = new Set<Cue>();
  for (const r of rules) {
    if (r.gate) out.push({ id: `${r.id}/gate`, re: r.gate });
    if ('re' in r) { out.push({ id: r.id, re: r.re }); continue; }
    for (const c of [...r.cues, ...(r.unless ?? [])]) if (!seen.has(c)) { seen.add(c); out.push({ id: `${r.id}/${c.id}`, re: c.re }); }
  }
  return out;
}

/**
 * Compile every pattern of `rules` now (each pattern and cue run once on a one-byte and a two-byte
 * string: V8 compiles a regular expression on its first use, per string width). A scan worker calls
 * this before it says it is ready, so no check pays for compiling several hundred patterns (over a
 * second on a busy machine) inside its time budget (issue 11 item 6).
 */
export function warmUpRules(rules: readonly Rule[]): void {
  for (const sample of ['warm up text: you are now in a mode.', 'warm up text: you are now in a mode \u2014 \u00fcber \u4e2d.']) {
    for (const r of rules) {
      if (r.gate) r.gate.test(sample);
      if ('re' in r) { r.re.test(sample); continue; }
      for (const c of [...r.cues, ...(r.unless ?? [])]) { const g = globalOf(c); g.lastIndex = 0; g.exec(sample); }
    }
  }
}
