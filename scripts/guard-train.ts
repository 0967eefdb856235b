/**
 * `node <outDir>/scripts/guard-train.js [--out assets/guardrail/ngram-guard.json] [--seed 16]`:
 * train the guardrail's n-gram classifier (issue 16 item 2) reproducibly and write its weights.
 *
 * Data: the TUNING part only of the shared sets (bench/support/guard-sets.ts: a fixed hash split;
 * the held-out part is never read for training or for any choice made here), plus the project's
 * own class-written sentences (scripts/guard-corpus.ts). Labels: injection (giskard, own injection
 * classes), harmful (HarmBench behaviours, own harmful requests), benign (Alpaca instructions, own
 * benign and hard-negative sentences). A text is cut into the same word windows the classifier
 * scores; each window carries its text's labels and 1/windows of its weight.
 *
 * Model: one logistic head per class over hashed word and character n-grams
 * (services/guardrail/src/classifier/ngram.ts), AdaGrad with L2, class-balanced weights, fixed
 * seed and order. The operating point: 5-fold cross-validation over the training texts gives
 * out-of-fold scores; each head's threshold is the lowest score that keeps the out-of-fold
 * false-positive rate on the shared benign texts (tuning part) at or under `--max-fp-injection` /
 * `--max-fp-harmful` (defaults 0.004 and 0.0075), and the bias is
 * shifted so that this threshold reads as probability 0.5 (the policy's default threshold). Where
 * recall is saturated there, the threshold is raised further while the out-of-fold recall over all
 * positives drops by at most `--recall-slack` (default 0.005): a margin against false positives.
 * Weights under 1% of the largest are dropped, the rest quantised to int8 per head.
 *
 * Prints the training counts, out-of-fold rates, and then the rates on the held-out part (measured
 * once, after everything is fixed) beside the tuning part, and writes them into the file's
 * `training` record. No sentence of any set is written.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeNgramModel, scoreNgram, windowVectors, type NgramModelFile } from '../services/guardrail/src/classifier/ngram.js';
import { loadGuardSets } from '../bench/support/guard-sets.js';
import { generateCorpus, rng } from './guard-corpus.js';

const argv = process.argv.slice(2);
const arg = (name: string, def: string): string => { const i = argv.indexOf(name); return i >= 0 && argv[i + 1] ? argv[i + 1]! : def; };
/** The project folder: dist/scripts/ (or <outDir>/scripts/) is one level under it. */
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const OUT = resolve(arg('--out', resolve(ROOT, 'assets/guardrail/ngram-guard.json')));
const SEED = Number(arg('--seed', '16'));
/** Highest out-of-fold benign false-positive rate per head (the operating point). */
const MAX_FP: Record<string, number> = { injection: Number(arg('--max-fp-injection', '0.004')), harmful: Number(arg('--max-fp-harmful', '0.0075')) };
const EPOCHS = Number(arg('--epochs', '12'));
/** Out-of-fold recall (all positives) a head may give up to move its threshold above the false-positive budget. */
const RECALL_SLACK = Number(arg('--recall-slack', '0.005'));
const BUCKETS = 1 << 18;
const WINDOW = 48;
/** Windows are normalised by at least this many features (about ten words): short texts carry less evidence. */
const MIN_COUNT = Number(arg('--min-count', '150'));
const STRIDE = 24;
const HEADS = ['injection', 'harmful'] as const;
const L2 = Number(arg('--l2', '1e-5'));
const LR = Number(arg('--lr', '0.4'));

interface Doc { text: string; y: [number, number]; kind: 'injection' | 'harmful' | 'benign'; shared: boolean }
interface Example { x: Map<number, number>; y: [number, number]; w: number; doc: number }

/** The training texts: tuning part of the shared sets and the own corpus. */
function trainingDocs(): { docs: Doc[]; counts: Record<string, number> } {
  const sets = loadGuardSets();
  const own = generateCorpus(SEED);
  const docs: Doc[] = [];
  const add = (texts: string[], kind: Doc['kind'], shared = false) => {
    for (const text of texts) docs.push({ text, kind, shared, y: [kind === 'injection' ? 1 : 0, kind === 'harmful' ? 1 : 0] });
  };
  const tune = <T extends { part: string; text: string }>(xs: T[]): string[] => xs.filter((s) => s.part === 'tune').map((s) => s.text);
  add(tune(sets.injections), 'injection', true);
  add(tune(sets.harmful), 'harmful', true);
  add(tune(sets.benign), 'benign', true);
  const shared = { injection: tune(sets.injections).length, harmful: tune(sets.harmful).length, benign: tune(sets.benign).length };
  add(own.injection, 'injection');
  add(own.harmful, 'harmful');
  add(own.benign, 'benign');
  return {
    docs,
    counts: {
      shared_injection: shared.injection, shared_harmful: shared.harmful, shared_benign: shared.benign,
      own_injection: own.injection.length, own_harmful: own.harmful.length, own_benign: own.benign.length,
    },
  };
}

function examplesOf(docs: Doc[]): Example[] {
  const out: Example[] = [];
  docs.forEach((d, doc) => {
    const ws = windowVectors(d.text, BUCKETS, WINDOW, STRIDE, MIN_COUNT);
    for (const x of ws) out.push({ x, y: d.y, w: 1 / ws.length, doc });
  });
  return out;
}

/** Train both heads on `ex`. @returns weights (interleaved per bucket) and biases. */
function train(ex: Example[], seed: number): { table: Float64Array; bias: number[] } {
  const H = HEADS.length;
  const table = new Float64Array(BUCKETS * H);
  const g2 = new Float64Array(BUCKETS * H).fill(1e-8);
  const bias = new Array<number>(H).fill(0);
  const bg2 = new Array<number>(H).fill(1e-8);
  // Class balance per head: positives and negatives weigh the same in total.
  const cw = HEADS.map((_, h) => {
    let pos = 0; let neg = 0;
    for (const e of ex) { if (e.y[h]) pos += e.w; else neg += e.w; }
    return { pos: (pos + neg) / (2 * Math.max(pos, 1e-9)), neg: (pos + neg) / (2 * Math.max(neg, 1e-9)) };
  });
  const r = rng(seed);
  const order = ex.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    for (let i = order.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [order[i], order[j]] = [order[j]!, order[i]!]; }
    for (const k of order) {
      const e = ex[k]!;
      for (let h = 0; h < H; h++) {
        let z = bias[h]!;
        for (const [b, v] of e.x) z += table[b * H + h]! * v;
        const p = 1 / (1 + Math.exp(-z));
        const g = (p - e.y[h]!) * e.w * (e.y[h] ? cw[h]!.pos : cw[h]!.neg);
        for (const [b, v] of e.x) {
          const i = b * H + h;
          const gi = g * v + L2 * table[i]!;
          g2[i]! += gi * gi;
          table[i]! -= (LR * gi) / Math.sqrt(g2[i]!);
        }
        bg2[h]! += g * g;
        bias[h]! -= (LR * g) / Math.sqrt(bg2[h]!);
      }
    }
  }
  return { table, bias };
}

/** Text-level score per head: the highest window logit. */
function scoreDocs(ex: Example[], nDocs: number, m: { table: Float64Array; bias: number[] }): Float64Array[] {
  const H = HEADS.length;
  const out = HEADS.map(() => new Float64Array(nDocs).fill(-Infinity));
  for (const e of ex) {
    for (let h = 0; h < H; h++) {
      let z = m.bias[h]!;
      for (const [b, v] of e.x) z += m.table[b * H + h]! * v;
      if (z > out[h]![e.doc]!) out[h]![e.doc] = z;
    }
  }
  return out;
}

function main(): void {
  const t0 = Date.now();
  const { docs, counts } = trainingDocs();
  const ex = examplesOf(docs);
  console.error(`guard-train: ${docs.length} texts (${JSON.stringify(counts)}), ${ex.length} windows, seed ${SEED}`);

  // 5-fold cross-validation over texts for the operating point.
  const FOLDS = 5;
  const foldOf = docs.map((_, i) => i % FOLDS);
  const oof = HEADS.map(() => new Float64Array(docs.length));
  for (let f = 0; f < FOLDS; f++) {
    const m = train(ex.filter((e) => foldOf[e.doc] !== f), SEED + f + 1);
    const s = scoreDocs(ex.filter((e) => foldOf[e.doc] === f), docs.length, m);
    for (let i = 0; i < docs.length; i++) if (foldOf[i] === f) for (let h = 0; h < HEADS.length; h++) oof[h]![i] = s[h]![i]!;
  }
  const thresholds = HEADS.map((head, h) => {
    // Ordinary instructions (the shared benign set's tuning part) set the false-positive rate: the
    // own benign sentences are easier and would make it look better than it is.
    const neg = docs.map((d, i) => (d.kind === 'benign' && d.shared ? oof[h]![i]! : NaN)).filter((x) => !Number.isNaN(x)).sort((a, b) => b - a);
    const k = Math.floor(MAX_FP[head]! * neg.length);
    const atBudget = Math.max(neg[k] ?? 0, 0) + 1e-6;
    // Where recall is saturated, raise the threshold as far as it costs at most RECALL_SLACK of the
    // out-of-fold recall on all positives: a margin against false positives the budget alone leaves.
    const allPos = docs.map((d, i) => (d.y[h] ? oof[h]![i]! : NaN)).filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
    const recallAt = (t: number) => allPos.filter((x) => x >= t).length / allPos.length;
    const floor = recallAt(atBudget) - RECALL_SLACK;
    let thr = atBudget;
    for (const x of allPos) if (x > thr && recallAt(x) >= floor) thr = x;
    const posOf = (shared: boolean) => docs.map((d, i) => (d.y[h] && d.shared === shared ? oof[h]![i]! : NaN)).filter((x) => !Number.isNaN(x));
    const recall = (xs: number[]) => (xs.length ? xs.filter((x) => x >= thr).length / xs.length : NaN);
    const rec = recall(posOf(true));
    const fp = neg.filter((x) => x >= thr).length / neg.length;
    const ownNeg = docs.map((d, i) => (d.kind === 'benign' && !d.shared ? oof[h]![i]! : NaN)).filter((x) => !Number.isNaN(x));
    console.error(`  ${head}: out-of-fold recall ${rec.toFixed(3)} (shared tuning texts), ${recall(posOf(false)).toFixed(3)} (own); benign FP ${fp.toFixed(4)} (shared), ${recall(ownNeg).toFixed(4)} (own); logit threshold ${thr.toFixed(3)}`);
    if (argv.includes('--show-oof')) {
      // Tuning texts only (never the held-out part): the benign texts over the threshold, the positives under it.
      docs.forEach((d, i) => {
        if (d.shared && ((d.kind === 'benign' && oof[h]![i]! >= thr) || (d.y[h] && oof[h]![i]! < thr))) console.error(`    ${d.kind === 'benign' ? 'FP' : 'FN'} ${oof[h]![i]!.toFixed(2)} ${d.text.slice(0, 110).replace(/\s+/g, ' ')}`);
      });
    }
    return { thr, rec, fp };
  });

  const m = train(ex, SEED);
  const H = HEADS.length;
  // Prune and quantise.
  const maxAbs = HEADS.map((_, h) => { let x = 0; for (let b = 0; b < BUCKETS; b++) x = Math.max(x, Math.abs(m.table[b * H + h]!)); return x; });
  const keep: number[] = [];
  for (let b = 0; b < BUCKETS; b++) if (HEADS.some((_, h) => Math.abs(m.table[b * H + h]!) >= 0.01 * maxAbs[h]!)) keep.push(b);
  const idx: number[] = [];
  let prev = -1;
  for (const b of keep) {
    let gap = b - prev - 1;
    prev = b;
    do { let byte = gap & 0x7f; gap = Math.floor(gap / 128); if (gap) byte |= 0x80; idx.push(byte); } while (gap);
  }
  const scales = maxAbs.map((x) => x / 127);
  const weights = HEADS.map((_, h) => Buffer.from(Int8Array.from(keep, (b) => Math.max(-127, Math.min(127, Math.round(m.table[b * H + h]! / scales[h]!))))).toString('base64'));
  const file: NgramModelFile = {
    format: 'svc-ngram-guard/1', name: 'ngram-guard', version: `1-seed${SEED}`, buckets: BUCKETS, window: WINDOW, stride: STRIDE, min_count: MIN_COUNT,
    heads: HEADS.map((name, h) => ({ name, bias: m.bias[h]! - thresholds[h]!.thr, scale: scales[h]! })),
    index: Buffer.from(idx).toString('base64'), weights,
    training: {
      script: 'scripts/guard-train.ts', seed: SEED, epochs: EPOCHS, max_benign_fp: MAX_FP, recall_slack: RECALL_SLACK, split: 'bench/support/guard-sets.ts (tuning part only)', counts,
      out_of_fold: Object.fromEntries(HEADS.map((h, i) => [h, { recall: round(thresholds[i]!.rec), benign_fp: round(thresholds[i]!.fp) }])),
      buckets_kept: keep.length,
    },
  };
  // Measure the written model on both parts of the shared sets (after every choice is made).
  const model = decodeNgramModel(file);
  const sets = loadGuardSets();
  const rate = (xs: Array<{ text: string; part: string }>, part: string, head: string) => {
    const p = xs.filter((s) => s.part === part);
    return round(p.filter((s) => scoreNgram(model, s.text)[head]! >= 0.5).length / p.length);
  };
  const anyHead = (xs: Array<{ text: string; part: string }>, part: string) => {
    const p = xs.filter((s) => s.part === part);
    return round(p.filter((s) => { const sc = scoreNgram(model, s.text); return HEADS.some((h) => sc[h]! >= 0.5); }).length / p.length);
  };
  const parts = argv.includes('--skip-heldout') ? ['tune'] as const : ['tune', 'heldout'] as const;
  const figures: Record<string, unknown> = Object.fromEntries(parts.map((part) => [part, {
    injection_recall: rate(sets.injections, part, 'injection'), harmful_recall: rate(sets.harmful, part, 'harmful'),
    injection_or_harmful_on_injections: anyHead(sets.injections, part), injection_or_harmful_on_harmful: anyHead(sets.harmful, part),
    benign_fp: anyHead(sets.benign, part),
  }]));
  file.training!.shared_sets = figures;
  writeFileSync(OUT, `${JSON.stringify(file)}\n`);
  console.error(`  shared sets, tuning part:  ${JSON.stringify(figures.tune)}`);
  if (figures.heldout) console.error(`  shared sets, held-out part: ${JSON.stringify(figures.heldout)}`);
  console.error(`wrote ${OUT} (${keep.length} buckets, ${(JSON.stringify(file).length / 1024).toFixed(0)} KiB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function round(x: number): number { return Math.round(x * 1000) / 1000; }

main();
