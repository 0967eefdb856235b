/**
 * Encoder classifier worker thread (issue 16 item 1): loads a text-classification model through
 * transformers.js (onnxruntime-node) from local files only, like the embedder's worker, then
 * answers `{type: 'classify', id, texts}` with `{type: 'result', id, results: [{risk, label,
 * windows}]}` (or `{type: 'error', id, message}`).
 *
 * A text longer than the model's input (512 tokens) is read in windows of that size overlapping by
 * a quarter; past `maxWindows` windows only the first and the last ones are read (a text is also
 * cut to its first and last `maxWindows * 2048` characters before tokenizing, so an enormous text
 * costs no more than that). All windows of all texts of a message run batched, in length order,
 * up to `maxBatch` windows per model call. A text's risk is the highest over its windows
 * (`riskOf`: 1 - P(harmless labels)).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { env, pipeline, Tensor } from '@huggingface/transformers';
import { riskOf } from './encoder-layer.js';

/** Start data of the worker. */
export interface EncoderWorkerData { root: string; id: string; dtype: 'q8' | 'fp32'; threads: number; maxWindows: number; maxBatch?: number }
/** A request. */
export interface ClassifyMsg { type: 'classify'; id: number; texts: string[] }
/** One text's answer. */
export interface WindowedRisk { risk: number; label: string; windows: number }

const port = parentPort!;
const input = workerData as EncoderWorkerData;

interface TensorLike { data: Float32Array | BigInt64Array; dims: number[] }
interface Classifier {
  tokenizer: ((text: string, opts: { add_special_tokens: boolean; truncation: boolean }) => { input_ids: TensorLike }) & { model_max_length?: number };
  model: ((inputs: Record<string, unknown>) => Promise<Record<string, TensorLike | undefined>>) & { config: { id2label?: Record<string, string>; problem_type?: string } };
}

/** Windows of token ids (each with the text's own first and last special tokens). */
function windowsOf(ids: bigint[], maxLen: number, maxWindows: number): bigint[][] {
  if (ids.length <= maxLen) return [ids];
  const head = ids[0]!;
  const tail = ids[ids.length - 1]!;
  const body = ids.slice(1, -1);
  const w = maxLen - 2;
  const stride = Math.max(1, Math.floor((w * 3) / 4));
  const starts: number[] = [];
  for (let a = 0; ; a += stride) {
    if (a + w >= body.length) { starts.push(Math.max(0, body.length - w)); break; }
    starts.push(a);
  }
  const keep = starts.length <= maxWindows ? starts : [...starts.slice(0, Math.ceil(maxWindows / 2)), ...starts.slice(starts.length - Math.floor(maxWindows / 2))];
  return keep.map((a) => [head, ...body.slice(a, a + w), tail]);
}

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text || ' ';
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)} … ${text.slice(text.length - half)}`;
}

async function main(): Promise<void> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = input.root.endsWith('/') ? input.root : `${input.root}/`;
  env.useFSCache = false;
  let clf: Classifier;
  let labels: string[];
  let maxLen: number;
  try {
    clf = await pipeline('text-classification', input.id, {
      dtype: input.dtype, local_files_only: true,
      session_options: { intraOpNumThreads: input.threads, interOpNumThreads: 1 },
    }) as unknown as Classifier;
    const id2label = clf.model.config.id2label ?? {};
    const n = Object.keys(id2label).length;
    labels = Array.from({ length: n }, (_, i) => id2label[String(i)] ?? `LABEL_${i}`);
    const declared = Number(clf.tokenizer.model_max_length);
    maxLen = Number.isFinite(declared) && declared >= 8 ? Math.min(512, declared) : 512;
    await classify(clf, labels, maxLen, ['probe']);
    port.postMessage({ type: 'ready', labels });
  } catch (err) {
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  port.on('message', (msg: ClassifyMsg) => {
    if (msg.type !== 'classify') return;
    void classify(clf, labels, maxLen, msg.texts).then(
      (results) => port.postMessage({ type: 'result', id: msg.id, results }),
      (err: unknown) => port.postMessage({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) }),
    );
  });
}

/** Classify `texts` (see module doc). */
async function classify(clf: Classifier, labels: string[], maxLen: number, texts: string[]): Promise<WindowedRisk[]> {
  const maxWindows = input.maxWindows;
  const all: Array<{ text: number; ids: bigint[] }> = [];
  const counts: number[] = [];
  texts.forEach((t, i) => {
    const enc = clf.tokenizer(clip(t, maxWindows * 2048), { add_special_tokens: true, truncation: false });
    const ids = Array.from(enc.input_ids.data as BigInt64Array);
    const ws = windowsOf(ids, maxLen, maxWindows);
    counts.push(ws.length);
    for (const w of ws) all.push({ text: i, ids: w });
  });
  const out: WindowedRisk[] = texts.map((_, i) => ({ risk: 0, label: 'none', windows: counts[i]! }));
  const multi = clf.model.config.problem_type === 'multi_label_classification';
  all.sort((a, b) => a.ids.length - b.ids.length);
  const maxBatch = input.maxBatch ?? 8;
  for (let at = 0; at < all.length; at += maxBatch) {
    const batch = all.slice(at, at + maxBatch);
    const seq = batch[batch.length - 1]!.ids.length;
    const ids = new BigInt64Array(batch.length * seq);
    const mask = new BigInt64Array(batch.length * seq);
    batch.forEach((w, b) => { for (let k = 0; k < w.ids.length; k++) { ids[b * seq + k] = w.ids[k]!; mask[b * seq + k] = 1n; } });
    const res = await clf.model({ input_ids: new Tensor('int64', ids, [batch.length, seq]), attention_mask: new Tensor('int64', mask, [batch.length, seq]) });
    const logits = res.logits;
    if (!logits || !(logits.data instanceof Float32Array)) throw new Error('model gave no float logits');
    const k = logits.dims[1]!;
    batch.forEach((w, b) => {
      const row = Array.from(logits.data.subarray(b * k, (b + 1) * k) as Float32Array);
      const probs = multi ? row.map((z) => 1 / (1 + Math.exp(-z))) : softmax(row);
      const r = riskOf(probs, labels);
      const o = out[w.text]!;
      if (o.label === 'none' || r.risk > o.risk) { o.risk = r.risk; o.label = r.label; }
    });
  }
  return out;
}

function softmax(z: number[]): number[] {
  const m = Math.max(...z);
  const e = z.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

void main();
