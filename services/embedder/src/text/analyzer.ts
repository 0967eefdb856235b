/**
 * Text analysis for sparse (BM25) retrieval, shared by knowledge and memory: Unicode folding,
 * word splitting, English stopwords and Porter stemming. The analysed form is what the FTS5 tables
 * index (their own tokenizer then only splits on spaces), so indexing and querying agree exactly.
 *
 * Decisions (docs/decisions-knowledge.md): Lucene-like behaviour of the published BEIR BM25 baseline
 * (lower case, stopwords, Porter), plus splitting on hyphens and keeping numbers, which scientific
 * text needs ("IL-6", "5-HT").
 */
import { porterStem } from './porter.js';

/** English stopwords: Lucene's classic set plus frequent function words. */
export const STOPWORDS: ReadonlySet<string> = new Set(`a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him
himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other our ours ourselves out over
own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours yourself yourselves also may might must shall
upon via within without whether yet however thus therefore although though whereas`.split(/\s+/));

const WORD = /[\p{L}\p{N}]+/gu;
const COMBINING = /[\u0300-\u036f]/g;
const stemCache = new Map<string, string>();

/** Lower-case, accent-folded words of `text` (no stopword removal, no stemming). */
export function words(text: string): string[] {
  const folded = text.normalize('NFKD').replace(COMBINING, '').toLowerCase();
  return folded.match(WORD) ?? [];
}

/** Stem one folded word, cached (the vocabulary of a corpus is small next to its token count). */
export function stem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = /^[a-z]+$/.test(word) ? porterStem(word) : word;
    if (stemCache.size > 200_000) stemCache.clear();
    stemCache.set(word, s);
  }
  return s;
}

/** Analysed terms of `text`, in order, duplicates kept: what gets indexed. */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (STOPWORDS.has(w)) continue;
    if (w.length === 1 && !/\d/.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

/** Distinct analysed terms of a query, in first-seen order. */
export function queryTerms(text: string): string[] {
  return [...new Set(analyze(text))];
}

/**
 * An FTS5 MATCH expression that ORs the quoted terms (quoting keeps FTS5 operators and column
 * filters in user text inert). Null when the query has no indexable term.
 */
export function ftsOrQuery(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}
