/**
 * Person-name recogniser: compromise (an offline NLP library) for its name lexicon and its
 * `people()` pass, plus our own evidence on runs of title-cased tokens: middle initials, honorifics
 * and cue phrases around the run ("my name is", "lives at", dialogue labels), lists of names, and
 * propagation of a recognised surname to its other mentions. Pure: no I/O.
 */
import { createRequire } from 'node:module';
import type nlpType from 'compromise';
import type { EntitySpan } from './entities.js';
import { DisjointSpans, SpanIndex } from './span-index.js';

type WordClass = 'first' | 'last' | 'person' | 'honorific' | 'place' | 'word' | 'unknown';

interface Lexicon { [word: string]: string | string[] }
// compromise (~35 MB of heap once its lexicon is built) loads on first use, not at service start,
// so an idle stack stays inside its memory budget. Its CommonJS build loads synchronously, which
// keeps the scanners synchronous.
let nlpFn: typeof nlpType | null = null;
let lexicon: Lexicon | null = null;
function nlp(text: string): ReturnType<typeof nlpType> {
  nlpFn ??= createRequire(import.meta.url)('compromise') as typeof nlpType;
  return nlpFn(text);
}
function lexiconOf(): Lexicon {
  if (!lexicon) {
    nlp('');
    lexicon = ((nlpFn!.model() as { one?: { lexicon?: Lexicon } }).one?.lexicon) ?? {};
  }
  return lexicon;
}

/** Capitalised words that are never names on their own (compromise leaves some untagged). */
const FUNCTION_WORDS = new Set(('a an the my your our his her their its this that these those i we you he she it they me us them what who whom whose '
  + 'where when why how which is are was were be been am do does did can could will would shall should may might must and or but nor if then so '
  + 'not no yes hello hi hey dear thanks thank please ok okay sorry welcome goodbye bye re fwd subject from to cc bcc date name phone email e-mail '
  + 'address website fax office mobile tel note notes summary question answer user bot assistant system agent customer client here there now today '
  + 'tomorrow yesterday also maybe just all any some every each both either neither none other another such only own same than too very one two three '
  + 'first second third new old good great best big small last next after before during about above below up down out over under again further once '
  + 'unlike like as at by for in of on with without into onto upon via per since until while because though although whether let lets let\'s '
  + 'write create generate explain describe give list tell make find show summarize summarise translate compare classify identify suggest provide '
  + 'rewrite edit convert calculate analyze analyse design develop imagine discuss evaluate predict name state define outline produce construct '
  + 'compose select choose rank rate sort add remove delete update use using based following given').split(/\s+/));

const PARTICLES = new Set(['van', 'von', 'de', 'da', 'di', 'del', 'della', 'der', 'den', 'du', 'le', 'la', 'al', 'el', 'bin', 'ibn', 'ter', 'ten', 'dos', 'das', 'do', 'y']);
const SUFFIXES = /^(?:Jr\.?|Sr\.?|II|III|IV)$/;
const HONORIFIC = /(?:\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Madam|Mme|Mlle|Herr|Frau|Sr|Sra|Srta)\.?\s+)$/;
const STRONG_BEFORE = /(?:\b(?:my name is|name is|name's|named|called|i'm|i am|this is|it's|its|is under|under|signed|regards,?|sincerely,?|dear|cheers,?|attn:?|attention:?|speak to|speak with|talk to|ask for|ask|contact|meet|met|married|says|said|given|gave|told|asked|thanked|and|between him and|between her and|kid|son|daughter|wife|husband|partner's name|partner|brother|sister|mother|father|grandfather|grandmother|friend|colleague|boss|manager|by|with|per|from|for|to|name:|name\s*:|last name\?|first name\?|surname:?|contact:?)\s*[:\-]?\s*)$/i;
const SENTENCE_START = /(?:^|[.!?]["')\]]?\s+|\n\s*|:\s+|["“]\s*)$/;
const AFTER_CUE = /^(?:\s*(?:'s|’s)\b|\s+(?:said|says|wrote|writes|lives|lived|is from|was born|were born|listed|had given|has given|gave|spent|will be|is a \d|was a|flew|grew|founded|joined|married|told|asked|replied|explained|shouted|yelled|whispered|smiled|laughed|is very|is so|was so|has been|had been|went|came|called|loves|likes|wants|needs|thinks|knows|from\s+\p{Lu}|and\s+\p{Lu}\p{Ll}+\s+(?:were|are|have|had)))/u;
const VERB_AFTER = /^\s+(?:is|was|has|had|will|would|can|could|shall|should|did|does|just|also|never|always|then)\b/;

const TOKEN_SRC = String.raw`\p{Lu}[\p{Ll}\p{M}]*(?:\p{Lu}[\p{Ll}\p{M}]+)?(?:(?:-\p{Lu}?|['’](?![sS]\b)\p{Lu}?)[\p{Ll}\p{M}]+)*`;
const RUN = new RegExp(String.raw`(?<![\p{L}\p{M}\d@._/-])${TOKEN_SRC}(?:[ ](?:\p{Lu}\.?(?=[ ])|(?:van|von|de|da|di|del|della|der|den|du|le|la|al|el|bin|ibn|dos|das|ten|ter|af)(?=[ ]\p{Lu})|${TOKEN_SRC}))*(?:[ ](?:Jr\.?|Sr\.?|II|III|IV)\b)?(?![\p{L}\p{M}\d@])`, 'gu');
const NAME_IS_LOWER = /\b(?:name is|named|called|surname is)\s+(\p{Ll}[\p{Ll}\p{M}]{2,20}(?:\s+\p{Ll}[\p{Ll}\p{M}]{2,20})?)(?=\s*[.,!?]|\s*$)/gu;
const LOWER_CUE = /(?:^|\b(?:my name is|i'm|i am|this is|follow up with|call|email|ask|tell)\s+)(\p{Ll}[\p{Ll}\p{M}]{1,20}\s+\p{Ll}[\p{Ll}\p{M}]{2,20})(?=\s+(?:lives|in|from|about|is|was|and|on)\b|[.,!?]|$)/gu;

function classify(word: string): WordClass {
  const w = word.toLowerCase().replace(/['’]s$/, '');
  if (FUNCTION_WORDS.has(w)) return 'word';
  const tag = lexiconOf()[w];
  if (tag === undefined) return 'unknown';
  const tags = Array.isArray(tag) ? tag : [tag];
  if (tags.some((t) => t === 'FirstName' || t === 'MaleName' || t === 'FemaleName')) return 'first';
  if (tags.includes('LastName')) return 'last';
  if (tags.includes('Person')) return 'person';
  if (tags.includes('Honorific')) return 'honorific';
  if (tags.some((t) => t === 'City' || t === 'Country' || t === 'Place' || t === 'Region' || t === 'Demonym' || t === 'Organization' || t === 'SportsTeam')) return 'place';
  return 'word';
}

interface Tok { text: string; start: number; end: number; kind: 'name' | 'initial' | 'particle' | 'suffix' }

function tokensOf(run: string, offset: number): Tok[] {
  const out: Tok[] = [];
  let pos = 0;
  for (const part of run.split(' ')) {
    const start = offset + pos;
    const end = start + part.length;
    pos += part.length + 1;
    if (SUFFIXES.test(part)) out.push({ text: part, start, end, kind: 'suffix' });
    else if (/^\p{Lu}\.?$/u.test(part)) out.push({ text: part, start, end, kind: 'initial' });
    else if (PARTICLES.has(part)) out.push({ text: part, start, end, kind: 'particle' });
    else out.push({ text: part, start, end, kind: 'name' });
  }
  return out;
}

const isAllCaps = (w: string) => w.length > 1 && w === w.toUpperCase() && w !== w.toLowerCase();
const wordish = (w: string): boolean => { const c = classify(w); return c === 'word' || c === 'honorific'; };
const firstOrLast = (c: WordClass | undefined): boolean => c === 'first' || c === 'last';

/** Whether the last token of `toks[lo, hi)` is trimmed (a particle, a lone initial, a trailing common word). */
function trimLast(toks: readonly Tok[], lo: number, hi: number): boolean {
  const last = toks[hi - 1]!;
  const len = hi - lo;
  return last.kind === 'particle' || (last.kind === 'initial' && len === 1)
    || (last.kind === 'name' && wordish(last.text) && (FUNCTION_WORDS.has(last.text.toLowerCase()) || len < 2 || classify(toks[hi - 2]!.text) !== 'first'));
}

// "A, B and C": at most 32 items and short gaps, so a comma list without "and" costs linear time
// instead of being rescanned from every item (issue 11 item 6).
const NAME_LIST = /(?:\p{Lu}[\p{Ll}\p{M}'’-]+)(?:,\s{0,16}\p{Lu}[\p{Ll}\p{M}'’-]+){0,30},?\s{1,16}(?:and|&)\s{1,16}\p{Lu}[\p{Ll}\p{M}'’-]+/gu;

/** The runs (sorted by start) lying within `[start, end)`, found by binary search. */
function runsWithin<R extends { start: number; end: number }>(runs: readonly R[], start: number, end: number): R[] {
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) { const mid = (lo + hi) >>> 1; if (runs[mid]!.start < start) lo = mid + 1; else hi = mid; }
  const out: R[] = [];
  for (let i = lo; i < runs.length && runs[i]!.start < end; i++) if (runs[i]!.end <= end) out.push(runs[i]!);
  return out;
}

const LETTER = /[\p{L}\p{M}]/u;
const TOKEN_CHAR = /[\p{L}\p{M}'’-]/u;
const UPPER = /\p{Lu}/u;
/** Longest name token propagated to its other mentions; longer "tokens" are not names. */
const MAX_MENTION = 64;

/**
 * Mentions of `words` in `text`, as `[start, end)`: the matches, left to right and non-overlapping,
 * of the alternation `(?<![\p{L}\p{M}])(?:w1|w2|...)(?![\p{L}\p{M}])` in the set's order. Done as
 * a bounded walk from each capitalised word start (a name token starts with a capital and holds
 * letters, marks, hyphens and apostrophes) with a map lookup per boundary, so the cost is linear in
 * the text whatever the number of words (a regex alternation of thousands of names is not).
 */
function findMentions(text: string, words: ReadonlySet<string>): Array<[number, number]> {
  const rank = new Map<string, number>();
  for (const w of words) if (w.length <= MAX_MENTION) rank.set(w, rank.size);
  const out: Array<[number, number]> = [];
  let prevLetter = false;
  let p = 0;
  while (p < text.length) {
    const ch = String.fromCodePoint(text.codePointAt(p)!);
    if (!prevLetter && UPPER.test(ch)) {
      let best = -1;
      let bestEnd = -1;
      let q = p;
      while (q < text.length && q - p < MAX_MENTION) {
        const c = String.fromCodePoint(text.codePointAt(q)!);
        if (!TOKEN_CHAR.test(c)) break;
        q += c.length;
        const next = q < text.length ? String.fromCodePoint(text.codePointAt(q)!) : '';
        if (next && LETTER.test(next)) continue;
        const r = rank.get(text.slice(p, q));
        if (r !== undefined && (best < 0 || r < best)) { best = r; bestEnd = q; }
      }
      if (best >= 0) {
        out.push([p, bestEnd]);
        const low = text.charCodeAt(bestEnd - 1);
        prevLetter = LETTER.test(text.slice(bestEnd - (low >= 0xdc00 && low <= 0xdfff && bestEnd >= 2 ? 2 : 1), bestEnd));
        p = bestEnd;
        continue;
      }
    }
    prevLetter = LETTER.test(ch);
    p += ch.length;
  }
  return out;
}

/** Options of `findPersonNames`. */
export interface NameOptions {
  /** Also run compromise's full `people()` pass (slower: a few ms per KB). Default true. */
  nlpPass?: boolean;
}

/** Find person names in `text`. */
export function findPersonNames(text: string, opts: NameOptions = {}): EntitySpan[] {
  const found: EntitySpan[] = [];
  const nlpHits: Array<[number, number]> = [];
  if (opts.nlpPass !== false && text.length <= 20_000) {
    try {
      const people = nlp(text).people().out('offset') as Array<{ offset: { start: number; length: number } }>;
      for (const p of people) nlpHits.push([p.offset.start, p.offset.start + p.offset.length]);
    } catch { /* the NLP pass is extra evidence only */ }
  }
  const nlpIndex = new SpanIndex(nlpHits.map(([start, end]) => ({ start, end })));
  const accepted = new Set<string>();
  const runs: Array<{ toks: Tok[]; classes: WordClass[]; start: number; end: number; score: number }> = [];
  for (const m of text.matchAll(RUN)) {
    const all = tokensOf(m[0], m.index);
    // Trim leading/trailing tokens that are not names (function words, honorifics, places).
    // Index arithmetic, not repeated slicing: a run may hold thousands of tokens.
    let lo = 0;
    let hi = all.length;
    while (lo < hi && (all[lo]!.kind !== 'name' || wordish(all[lo]!.text))) lo++;
    while (lo < hi && trimLast(all, lo, hi)) hi--;
    let toks = all.slice(lo, hi);
    if (!toks.length || !toks.some((t) => t.kind === 'name')) continue;
    // A common word inside the run splits it: keep the best side (approximation: cut at the first word).
    const nameNext = (j: number): boolean => j >= 0 && j < toks.length && toks[j]!.kind === 'name' && firstOrLast(classify(toks[j]!.text));
    const cut = toks.findIndex((t, i) => t.kind === 'name' && classify(t.text) === 'word'
      && (FUNCTION_WORDS.has(t.text.toLowerCase()) || !(nameNext(i - 1) || nameNext(i + 1))));
    if (cut > 0) toks = toks.slice(0, cut);
    if (!toks.length) continue;
    const nameToks = toks.filter((t) => t.kind === 'name');
    const classes = nameToks.map((t) => classify(t.text));
    const start = toks[0]!.start;
    const end = toks[toks.length - 1]!.end;
    let score = 0;
    for (let i = 0; i < nameToks.length; i++) {
      const c = classes[i]!;
      const w = nameToks[i]!.text;
      if (isAllCaps(w)) { score -= 1; continue; }
      const nextToName = firstOrLast(classes[i - 1]) || firstOrLast(classes[i + 1]);
      score += c === 'first' ? 2 : c === 'last' ? 1.5 : c === 'person' ? 2 : c === 'unknown' ? (/[^\x00-\x7F]/.test(w) ? 1.5 : 1) : c === 'place' ? -1.5 : nextToName ? 0 : -2;
    }
    if (toks.some((t) => t.kind === 'initial') && nameToks.length >= 2) score += 1.5;
    if (toks.some((t) => t.kind === 'suffix')) score += 1;
    if (nameToks.length >= 2) score += 0.5;
    const before = text.slice(Math.max(0, start - 40), start);
    const after = text.slice(end, end + 40);
    if (HONORIFIC.test(before)) score += 3;
    else if (STRONG_BEFORE.test(before)) score += /(?:name|called|named|dear|signed|regards|sincerely|i'm|i am)\W*$/i.test(before) ? 2.5 : 1;
    if (AFTER_CUE.test(after)) score += 1;
    if (/^:\s/.test(after) && /(?:^|\n)\s*$/.test(before)) score += 2; // dialogue label "Nicole: ..."
    if (/^,\s/.test(after) && /(?:^|\n)\s*$/.test(before) && nameToks.length === 1) score += 1; // "Leif, can I ..."
    if (SENTENCE_START.test(before) && nameToks.length === 1 && classes[0] !== 'first' && classes[0] !== 'person') {
      score -= 0.5;
      if (classes[0] === 'unknown' && (VERB_AFTER.test(after) || AFTER_CUE.test(after))) score += 1.5;
    }
    if (nlpIndex.overlaps(start, end)) score += 1.5;
    runs.push({ toks, classes, start, end, score });
  }
  // Lists of names: "A, B and C" where most items already look like names lifts the rest.
  for (const m of text.matchAll(NAME_LIST)) {
    const inList = runsWithin(runs, m.index, m.index + m[0].length);
    if (inList.length < 2) continue;
    const good = inList.filter((r) => r.score >= 2 || r.classes.some((c) => c === 'first' || c === 'last' || c === 'person')).length;
    const bad = inList.filter((r) => r.classes.some((c) => c === 'word' || c === 'place')).length;
    const verbAfter = /^\s+(?:were|are|have|had|founded|started|built|wrote|sang|played)\b/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 20));
    if ((good >= 1 || verbAfter) && bad === 0) for (const r of inList) r.score = Math.max(r.score, 2);
  }
  // Runs and compromise-only hits are pairwise disjoint: overlap tests are binary searches.
  const disjoint = new DisjointSpans<EntitySpan>();
  const keep = (span: EntitySpan): void => { found.push(span); disjoint.insert(span); };
  for (const r of runs) {
    if (r.score < 2) continue;
    keep({ type: 'PERSON', start: r.start, end: r.end, score: Math.min(0.95, 0.4 + r.score / 10), recognizer: 'name_heuristic' });
    let k = 0;
    for (const t of r.toks) {
      if (t.kind !== 'name') continue;
      if (r.classes[k] !== 'place') accepted.add(t.text);
      k++;
    }
  }
  // Compromise-only hits that our runs missed (lower-case names, odd casing).
  for (const [a, b] of nlpHits) {
    if (disjoint.overlaps(a, b)) continue;
    const v = text.slice(a, b).replace(/^(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?\s+/, '');
    if (v.length >= 3 && !/^\p{Ll}+$/u.test(v) && classify(v) !== 'word') keep({ type: 'PERSON', start: b - v.length, end: b, score: 0.6, recognizer: 'name_nlp' });
  }
  for (const m of text.matchAll(LOWER_CUE)) {
    const v = m[1]!;
    const at = m.index + m[0].lastIndexOf(v);
    const words = v.split(/\s+/);
    if (words.some((w) => classify(w) === 'first' || classify(w) === 'last')) found.push({ type: 'PERSON', start: at, end: at + v.length, score: 0.6, recognizer: 'name_lowercase' });
  }
  for (const m of text.matchAll(NAME_IS_LOWER)) {
    const v = m[1]!;
    const at = m.index + m[0].lastIndexOf(v);
    if (!v.split(/\s+/).some((w) => FUNCTION_WORDS.has(w))) found.push({ type: 'PERSON', start: at, end: at + v.length, score: 0.6, recognizer: 'name_lowercase' });
  }
  // Propagate: other mentions of a recognised name token are the same person. Mentions do not
  // overlap each other, so only the spans found before this pass need testing.
  if (accepted.size) {
    const before = new SpanIndex(found);
    for (const [s, e] of findMentions(text, accepted)) {
      if (!before.overlaps(s, e)) found.push({ type: 'PERSON', start: s, end: e, score: 0.6, recognizer: 'name_propagated' });
    }
  }
  return found;
}
