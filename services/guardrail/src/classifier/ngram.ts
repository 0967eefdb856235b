/**
 * The guardrail's own trained classifier (issue 16 item 2): a linear model over hashed word and
 * character n-grams, one logistic head per class (`injection`, `harmful`), scored over windows of
 * words so a short attack inside long harmless text is not diluted. Its weights are trained by
 * `scripts/guard-train.ts` and shipped as `assets/guardrail/ngram-guard.json` (no training text in
 * it: bucket indices and quantised weights only). Pure and Node-free (the training script and the
 * service share these exact features).
 *
 * Features of a text (after `normalizeNgramText`: NFKC, invisible characters removed, lower case):
 *  - per word: the word stem (`w:`), the character 3-, 4- and 5-grams of `<word>` (`c:`, words cut
 *    to 40 characters first);
 *  - per adjacent pair of words: the stem bigram (`b:`);
 * each hashed (FNV-1a, 32-bit, one seed per kind) into `buckets` buckets. A window's vector holds
 * the feature counts divided by the square root of its total count, or of `minCount` when that is
 * larger (a two-word message carries little evidence and must not be decided by one shared
 * character n-gram); a head's score is
 * `bias + w·x`, its probability the logistic of that. The text's probability per head is the
 * highest over its windows (`window` words, every `stride` words, the last window ending at the text's end).
 */

/** A decoded model: weights interleaved per bucket (`table[bucket * heads.length + h]`). */
export interface NgramModel {
  name: string;
  version: string;
  buckets: number;
  window: number;
  stride: number;
  /** Smallest feature count a window is normalised by (short texts carry less evidence; 0: none). */
  minCount: number;
  heads: ReadonlyArray<{ name: string; bias: number }>;
  table: Float32Array;
}

/** The weights file (assets/guardrail/ngram-guard.json) as written by scripts/guard-train.ts. */
export interface NgramModelFile {
  format: 'svc-ngram-guard/1';
  name: string;
  version: string;
  buckets: number;
  window: number;
  stride: number;
  /** Smallest feature count a window is normalised by (absent: 0). */
  min_count?: number;
  /** Per head: name, bias, and the int8 scale (weight = q * scale). */
  heads: Array<{ name: string; bias: number; scale: number }>;
  /** base64 of the sorted non-zero bucket ids, each as a LEB128 varint of its gap to the previous one. */
  index: string;
  /** Per head, base64 of one int8 per bucket id of `index`. */
  weights: string[];
  /** How it was trained (counts, seed, split, held-out figures); informative only. */
  training?: Record<string, unknown>;
}

/** Probability per head (0..1): the highest over the text's windows. */
export interface NgramScore { [head: string]: number }

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Seeds per feature kind (FNV offset xor a kind byte). */
const SEED_WORD = FNV_OFFSET ^ 0x77;
const SEED_CHAR = FNV_OFFSET ^ 0x63;
const SEED_BIGRAM = FNV_OFFSET ^ 0x62;
const MAX_WORD_FOR_CHARS = 40;
const INVISIBLE = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF]/g;
const WORD = /[\p{L}\p{N}]+/gu;

function step(h: number, c: number): number { return Math.imul(h ^ c, FNV_PRIME) >>> 0; }

function hashStr(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = step(h, s.charCodeAt(i));
  return h;
}

/** NFKC, invisible and bidi control characters removed, typographic apostrophes folded, lower case. */
export function normalizeNgramText(s: string): string {
  return s.normalize('NFKC').replace(INVISIBLE, '').replace(/[\u2018\u2019\u201B]/g, "'").toLowerCase();
}

/**
 * A light English stem: common inflection suffixes removed (`ignoring`, `ignored`, `ignores` ->
 * `ignor`), keeping at least three letters. Deterministic and cheap; not a full Porter stemmer.
 */
export function stem(w: string): string {
  if (w.length <= 4) return w;
  for (const suf of ['ations', 'ation', 'ings', 'ing', 'edly', 'ed', 'ies', 'es', 'ly', 's', 'e']) {
    if (w.endsWith(suf) && w.length - suf.length >= 3) return w.slice(0, w.length - suf.length);
  }
  return w;
}

/**
 * Walk the features of `text` (already normalised): `word(i, bucket)` for each feature of word i
 * (stem and character n-grams), `pair(i, bucket)` for the bigram of words i and i+1.
 * @returns the number of words.
 */
export function forEachFeature(text: string, buckets: number, word: (i: number, bucket: number) => void, pair: (i: number, bucket: number) => void): number {
  let i = 0;
  let prev = -1;
  for (const m of text.matchAll(WORD)) {
    const w = m[0];
    const s = stem(w);
    const hs = hashStr(s, SEED_WORD);
    word(i, hs % buckets);
    if (prev >= 0) pair(i - 1, hashStr(s, step(prev, 0x20)) % buckets);
    prev = hashStr(s, SEED_BIGRAM);
    // Character n-grams of "<w>", n = 3..5.
    const n = Math.min(w.length, MAX_WORD_FOR_CHARS) + 2;
    for (let a = 0; a + 3 <= n; a++) {
      let h = SEED_CHAR;
      for (let b = a; b < n && b < a + 5; b++) {
        const c = b === 0 ? 0x3c : b === n - 1 ? 0x3e : w.charCodeAt(b - 1);
        h = step(h, c);
        if (b - a >= 2) word(i, h % buckets);
      }
    }
    i++;
  }
  return i;
}

/** Word windows `[start, end)` of a text of `n` words (one window when `n <= window`). */
export function windowsOf(n: number, window: number, stride: number): Array<[number, number]> {
  if (n <= window) return [[0, n]];
  const out: Array<[number, number]> = [];
  for (let a = 0; ; a += stride) {
    if (a + window >= n) { out.push([n - window, n]); break; }
    out.push([a, a + window]);
  }
  return out;
}

/**
 * The sparse vectors of a text's windows (training): per window, bucket -> value (count divided by
 * the square root of the window's total count).
 */
export function windowVectors(text: string, buckets: number, window: number, stride: number, minCount = 0): Array<Map<number, number>> {
  const perWord: number[][] = [];
  const perPair: number[] = [];
  const n = forEachFeature(normalizeNgramText(text), buckets, (i, b) => { (perWord[i] ??= []).push(b); }, (i, b) => { perPair[i] = b; });
  return windowsOf(n, window, stride).map(([a, z]) => {
    const m = new Map<number, number>();
    let total = 0;
    for (let i = a; i < z; i++) {
      for (const b of perWord[i] ?? []) { m.set(b, (m.get(b) ?? 0) + 1); total++; }
      if (i + 1 < z && perPair[i] !== undefined) { m.set(perPair[i]!, (m.get(perPair[i]!) ?? 0) + 1); total++; }
    }
    const k = total ? 1 / Math.sqrt(Math.max(total, minCount)) : 0;
    for (const [b, v] of m) m.set(b, v * k);
    return m;
  });
}

function sigmoid(z: number): number { return 1 / (1 + Math.exp(-z)); }

/**
 * Score `text` with `model`: per head, the highest probability over the text's windows (0 for a
 * text without words). Linear in the text's length: each feature is looked up once, windows are
 * summed from prefix sums.
 */
export function scoreNgram(model: NgramModel, text: string): NgramScore {
  const H = model.heads.length;
  const { table, buckets } = model;
  const wordSum: number[] = [];
  const wordCount: number[] = [];
  const pairSum: number[] = [];
  const n = forEachFeature(normalizeNgramText(text), buckets,
    (i, b) => {
      if (wordCount[i] === undefined) { wordCount[i] = 0; for (let h = 0; h < H; h++) wordSum[i * H + h] = 0; }
      wordCount[i]!++;
      for (let h = 0; h < H; h++) wordSum[i * H + h]! += table[b * H + h]!;
    },
    (i, b) => { for (let h = 0; h < H; h++) pairSum[i * H + h] = table[b * H + h]!; });
  const out: NgramScore = {};
  for (const head of model.heads) out[head.name] = 0;
  if (n === 0) return out;
  // Prefix sums over words (their own features) and over pairs (pair i joins words i and i+1).
  const pw = new Float64Array((n + 1) * H);
  const pp = new Float64Array((n + 1) * H);
  const pc = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    pc[i + 1] = pc[i]! + (wordCount[i] ?? 0) + (i + 1 < n ? 1 : 0);
    for (let h = 0; h < H; h++) {
      pw[(i + 1) * H + h] = pw[i * H + h]! + (wordSum[i * H + h] ?? 0);
      pp[(i + 1) * H + h] = pp[i * H + h]! + (i + 1 < n ? (pairSum[i * H + h] ?? 0) : 0);
    }
  }
  for (const [a, z] of windowsOf(n, model.window, model.stride)) {
    // Count: the words' features plus the z-a-1 pairs inside the window.
    const count = (pc[z]! - pc[a]!) - (z < n ? 1 : 0);
    const inv = count > 0 ? 1 / Math.sqrt(Math.max(count, model.minCount)) : 0;
    for (let h = 0; h < H; h++) {
      const s = (pw[z * H + h]! - pw[a * H + h]!) + (pp[(z - 1) * H + h]! - pp[a * H + h]!);
      const p = sigmoid(model.heads[h]!.bias + s * inv);
      const name = model.heads[h]!.name;
      if (p > out[name]!) out[name] = p;
    }
  }
  return out;
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Decode a weights file. @throws Error naming what is wrong (format, sizes, a bucket out of range).
 */
export function decodeNgramModel(f: NgramModelFile): NgramModel {
  if (f.format !== 'svc-ngram-guard/1') throw new Error(`unknown weights format ${String(f.format)}`);
  if (!Number.isInteger(f.buckets) || f.buckets < 1024 || f.buckets > 1 << 24) throw new Error('buckets out of range');
  if (!Number.isInteger(f.window) || f.window < 4 || !Number.isInteger(f.stride) || f.stride < 1 || f.stride > f.window) throw new Error('window or stride out of range');
  if (!Array.isArray(f.heads) || !f.heads.length || f.weights.length !== f.heads.length) throw new Error('heads and weights do not match');
  const H = f.heads.length;
  const idx = fromBase64(f.index);
  const ids: number[] = [];
  let at = 0;
  let prev = -1;
  while (at < idx.length) {
    let v = 0;
    let shift = 0;
    for (;;) {
      const byte = idx[at++];
      if (byte === undefined) throw new Error('truncated index');
      v += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) break;
      shift += 7;
    }
    prev += v + 1;
    if (prev >= f.buckets) throw new Error('bucket out of range');
    ids.push(prev);
  }
  const table = new Float32Array(f.buckets * H);
  f.heads.forEach((head, h) => {
    const q = fromBase64(f.weights[h]!);
    if (q.length !== ids.length) throw new Error(`head ${head.name}: ${q.length} weights for ${ids.length} buckets`);
    for (let k = 0; k < ids.length; k++) table[ids[k]! * H + h] = ((q[k]! << 24) >> 24) * head.scale;
  });
  const minCount = f.min_count ?? 0;
  if (!Number.isFinite(minCount) || minCount < 0 || minCount > 10_000) throw new Error('min_count out of range');
  return { name: f.name, version: f.version, buckets: f.buckets, window: f.window, stride: f.stride, minCount, heads: f.heads.map((h) => ({ name: h.name, bias: h.bias })), table };
}
