/**
 * A random-weight ONNX graph with the exact architecture and shapes of the guardrail's default
 * encoder classifier, protectai/deberta-v3-base-prompt-injection-v2 (a DeBERTa-v3-base sequence
 * classifier; its weights cannot be brought onto these machines), to measure the classifier
 * layer's true cost (issue 16 item 1): same operators, same shapes, same FLOPs as the real graph.
 *
 * DeBERTa-v3-base as exported for transformers.js (inputs `input_ids`, `attention_mask` int64
 * [batch, seq] -> `logits` float [batch, 2]):
 *  - embeddings: word (128100 x 768, Gather), LayerNorm, times the mask (no absolute positions:
 *    position_biased_input false, no token types);
 *  - relative position embeddings 512 x 768 (2 x 256 buckets) with LayerNorm (norm_rel_ebd), the
 *    log-bucketed relative positions of every token pair (bucket size 256, max position 512);
 *  - 12 layers of disentangled self-attention, 12 heads of 64: query, key, value projections
 *    768 x 768 with biases; content-to-content scores Q·Kᵀ; content-to-position Q·(Wk·R)ᵀ and
 *    position-to-content K·(Wq·R)ᵀ (keys shared, share_att_key), each gathered at the pair's
 *    relative bucket (GatherElements) — scores scaled by 1/sqrt(64·3), additive mask, Softmax;
 *    output projection, residual + LayerNorm; FFN 768 -> 3072 -> 768 with GELU (Erf form),
 *    residual + LayerNorm;
 *  - pooler: the first token's state, dense 768 x 768 + GELU, then the 768 x 2 classifier.
 * The int8 variant is onnxruntime `quantize_dynamic`'s form of every Linear (DynamicQuantizeLinear ->
 * MatMulInteger with int8 per-tensor weights -> scales -> bias) and an int8 word table.
 * Seeded weights (std 0.02; LayerNorm gamma 1, beta 0). Written with protobufjs.
 */
import protobuf from 'protobufjs';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ONNX_PROTO, TOKENIZER_DIR } from '../embedder/make-test-model.js';

const FLOAT = 1;
const INT8 = 3;
const INT64 = 7;
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** DeBERTa-v3-base's shapes (its config.json). */
export const DEBERTA_V3_BASE = {
  hidden: 768, layers: 12, heads: 12, intermediate: 3072, vocab: 128100, positionBuckets: 256, maxRelativePositions: 512, labels: 2, eps: 1e-7,
} as const;

type Variant = 'fp32' | 'int8';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantize(w: Float32Array): { q: Int8Array; scale: number } {
  let m = 0;
  for (let i = 0; i < w.length; i++) m = Math.max(m, Math.abs(w[i]!));
  const scale = m > 0 ? m / 127 : 1;
  const q = new Int8Array(w.length);
  for (let i = 0; i < w.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(w[i]! / scale)));
  return { q, scale };
}

/** Build the graph's bytes. */
export function buildDebertaShaped(variant: Variant, seed = 768): Uint8Array {
  const rnd = mulberry32(seed);
  // Sum of two uniforms (triangular), scaled to std 0.02: the cost does not depend on the distribution.
  const k = 0.02 / Math.sqrt(2 / 12);
  const normal = (n: number): Float32Array => { const a = new Float32Array(n); for (let i = 0; i < n; i++) a[i] = (rnd() + rnd() - 1) * k; return a; };
  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const Model = root.lookupType('onnx.ModelProto');
  const { hidden: H, heads, intermediate: I, vocab, positionBuckets: B, maxRelativePositions: MAXP, labels, eps } = DEBERTA_V3_BASE;
  const d = H / heads;
  const initializer: object[] = [];
  const nodes: object[] = [];
  const raw = (a: Float32Array | BigInt64Array | Int8Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const init = (name: string, dt: number, dims: number[], data: Float32Array | BigInt64Array | Int8Array): string => { initializer.push({ name, data_type: dt, dims, raw_data: raw(data) }); return name; };
  const i64 = (name: string, vals: number[], scalar = false): string => init(name, INT64, scalar ? [] : [vals.length], BigInt64Array.from(vals.map(BigInt)));
  const f32 = (name: string, v: number): string => init(name, FLOAT, [], Float32Array.of(v));
  const node = (op: string, inputs: string[], output: string, attribute: object[] = []): string => { nodes.push({ op_type: op, input: inputs, output: [output], name: output, attribute }); return output; };
  const aInt = (name: string, i: number) => ({ name, type: ATTR_INT, i });
  const aInts = (name: string, ints: number[]) => ({ name, type: ATTR_INTS, ints });
  const aFloat = (name: string, f: number) => ({ name, type: ATTR_FLOAT, f });
  const vi = (name: string, elem: number, shape: Array<string | number>) => ({
    name, type: { tensor_type: { elem_type: elem, shape: { dim: shape.map((x) => (typeof x === 'string' ? { dim_param: x } : { dim_value: x })) } } },
  });
  const ones = init('ln_gamma', FLOAT, [H], new Float32Array(H).fill(1));
  const zeros = init('ln_beta', FLOAT, [H], new Float32Array(H));
  const layerNorm = (x: string, out: string): string => node('LayerNormalization', [x, ones, zeros], out, [aInt('axis', -1), aFloat('epsilon', eps)]);
  const dql = new Map<string, [string, string, string]>();
  /** A Linear's parameters (initializer names); `apply` may use them more than once (shared keys). */
  interface Lin { name: string; w: string; b: string; scale?: string; zp?: string }
  const param = (rows: number, cols: number, name: string): Lin => {
    const w = normal(rows * cols);
    const b = init(`${name}.bias`, FLOAT, [cols], normal(cols));
    if (variant === 'fp32') return { name, w: init(`${name}.weight`, FLOAT, [rows, cols], w), b };
    const { q, scale } = quantize(w);
    return { name, w: init(`${name}.weight_q`, INT8, [rows, cols], q), b, scale: f32(`${name}.weight_scale`, scale), zp: init(`${name}.weight_zp`, INT8, [], Int8Array.of(0)) };
  };
  const apply = (x: string, p: Lin, out: string): string => {
    if (variant === 'fp32') return node('Add', [node('MatMul', [x, p.w], `${out}.mm`), p.b], out);
    let qx = dql.get(x);
    if (!qx) {
      qx = [`${x}_q`, `${x}_scale`, `${x}_zp`];
      nodes.push({ op_type: 'DynamicQuantizeLinear', input: [x], output: qx, name: `${x}_dql` });
      dql.set(x, qx);
    }
    const mm = node('MatMulInteger', [qx[0], p.w, qx[2], p.zp!], `${out}.mmi`);
    const s = node('Mul', [qx[1], p.scale!], `${out}.scale`);
    return node('Add', [node('Mul', [node('Cast', [mm], `${out}.mmf`, [aInt('to', FLOAT)]), s], `${out}.mm`), p.b], out);
  };
  const linear = (x: string, rows: number, cols: number, name: string): string => apply(x, param(rows, cols, name), name);
  const sqrt2 = f32('sqrt2', Math.SQRT2);
  const half = f32('half', 0.5);
  const one = f32('one', 1);
  const gelu = (x: string, p: string): string => {
    const erf = node('Erf', [node('Div', [x, sqrt2], `${p}.gelu_div`)], `${p}.gelu_erf`);
    return node('Mul', [node('Mul', [x, node('Add', [erf, one], `${p}.gelu_add`)], `${p}.gelu_mul`), half], `${p}.gelu`);
  };

  // Embeddings.
  const wordW = normal(vocab * H);
  let word: string;
  if (variant === 'fp32') word = node('Gather', [init('word_embeddings', FLOAT, [vocab, H], wordW), 'input_ids'], 'emb_word', [aInt('axis', 0)]);
  else {
    const { q, scale } = quantize(wordW);
    const g = node('Gather', [init('word_embeddings_q', INT8, [vocab, H], q), 'input_ids'], 'emb_word_q', [aInt('axis', 0)]);
    word = node('DequantizeLinear', [g, f32('word_embeddings_scale', scale), init('word_embeddings_zp', INT8, [], Int8Array.of(0))], 'emb_word');
  }
  const maskF = node('Cast', ['attention_mask'], 'mask_f', [aInt('to', FLOAT)]);
  let h = node('Mul', [layerNorm(word, 'emb_ln'), node('Unsqueeze', [maskF, i64('axis_last', [2])], 'mask_f3')], 'emb');
  const bias = node('Unsqueeze', [node('Mul', [node('Sub', [one, maskF], 'mask_inv'), f32('neg_big', -10000)], 'mask_bias2'), i64('axes12', [1, 2])], 'mask_bias');

  // Relative position embeddings (LayerNorm) and the bucketed relative positions of all pairs.
  const rel = layerNorm(init('rel_embeddings', FLOAT, [2 * B, H], normal(2 * B * H)), 'rel_ln');
  const shape = node('Shape', ['input_ids'], 'ids_shape');
  const seqLen = node('Gather', [shape, i64('one_i', [1], true)], 'seq_len', [aInt('axis', 0)]);
  const batch = node('Gather', [shape, i64('zero_i', [0], true)], 'batch');
  const range = node('Range', [i64('r0', [0], true), seqLen, i64('r1', [1], true)], 'range');
  const relPos = node('Sub', [node('Unsqueeze', [range, i64('ax1', [1])], 'q_ids'), node('Unsqueeze', [range, i64('ax0', [0])], 'k_ids')], 'rel_pos');
  const mid = B / 2;
  const relF = node('Cast', [relPos], 'rel_f', [aInt('to', FLOAT)]);
  const sign = node('Sign', [relF], 'rel_sign');
  const inner = node('And', [node('Less', [relF, f32('mid', mid)], 'lt_mid'), node('Greater', [relF, f32('neg_mid', -mid)], 'gt_negmid')], 'inner');
  const absPos = node('Where', [inner, f32('mid_m1', mid - 1), node('Abs', [relF], 'rel_abs')], 'abs_pos');
  const logPos = node('Add', [node('Ceil', [node('Mul', [node('Div', [node('Log', [node('Div', [absPos, f32('mid2', mid)], 'abs_div')], 'abs_log'), f32('log_span', Math.log((MAXP - 1) / mid))], 'log_ratio'), f32('mid_m1b', mid - 1)], 'log_scaled')], 'log_ceil'), f32('mid3', mid)], 'log_pos');
  const bucket = node('Cast', [node('Where', [node('LessOrEqual', [absPos, f32('mid4', mid)], 'le_mid'), relF, node('Mul', [logPos, sign], 'log_signed')], 'bucket_f')], 'bucket', [aInt('to', INT64)]);
  const span = i64('span', [B], true);
  const lo = i64('lo', [0], true);
  const hi = i64('hi', [2 * B - 1], true);
  const full = node('Concat', [node('Unsqueeze', [batch, i64('ax0b', [0])], 'batch1'), i64('heads1', [heads]), node('Unsqueeze', [seqLen, i64('ax0c', [0])], 'seq1'), node('Unsqueeze', [seqLen, i64('ax0d', [0])], 'seq2')], 'idx_shape', [aInt('axis', 0)]);
  const c2pIdx = node('Expand', [node('Clip', [node('Add', [bucket, span], 'c2p_raw'), lo, hi], 'c2p_clip'), full], 'c2p_idx');
  const p2cIdx = node('Expand', [node('Clip', [node('Add', [node('Neg', [bucket], 'bucket_neg'), span], 'p2c_raw'), lo, hi], 'p2c_clip'), full], 'p2c_idx');

  const split = i64('split_heads', [0, 0, heads, d]);
  const splitRel = i64('split_rel', [2 * B, heads, d]);
  const merge = i64('merge_heads', [0, 0, H]);
  const scale = f32('att_scale', 1 / Math.sqrt(d * 3));
  for (let li = 0; li < DEBERTA_V3_BASE.layers; li++) {
    const p = `l${li}`;
    const heads4 = (x: string, n: string, perm: number[]) => node('Transpose', [node('Reshape', [x, split], `${n}_r`)], n, [aInts('perm', perm)]);
    const qLin = param(H, H, `${p}.q`);
    const kLin = param(H, H, `${p}.k`);
    const q = heads4(apply(h, qLin, `${p}.q`), `${p}.qh`, [0, 2, 1, 3]);
    const kT = heads4(apply(h, kLin, `${p}.k`), `${p}.khT`, [0, 2, 3, 1]);
    const kk = node('Transpose', [kT], `${p}.kh`, [aInts('perm', [0, 1, 3, 2])]);
    const v = heads4(linear(h, H, H, `${p}.v`), `${p}.vh`, [0, 2, 1, 3]);
    // Projections of the relative embeddings with the layer's own query and key weights (share_att_key).
    const relHeads = (x: string, n: string) => node('Transpose', [node('Reshape', [x, splitRel], `${n}_r`)], n, [aInts('perm', [1, 2, 0])]);
    const posK = relHeads(apply(rel, kLin, `${p}.pos_k`), `${p}.pos_kT`);
    const posQ = relHeads(apply(rel, qLin, `${p}.pos_q`), `${p}.pos_qT`);
    const c2c = node('MatMul', [q, kT], `${p}.c2c`);
    const c2p = node('GatherElements', [node('MatMul', [q, posK], `${p}.c2p_all`), c2pIdx], `${p}.c2p`, [aInt('axis', -1)]);
    const p2c = node('Transpose', [node('GatherElements', [node('MatMul', [kk, posQ], `${p}.p2c_all`), p2cIdx], `${p}.p2c_g`, [aInt('axis', -1)])], `${p}.p2c`, [aInts('perm', [0, 1, 3, 2])]);
    const scores = node('Add', [node('Mul', [node('Add', [node('Add', [c2c, c2p], `${p}.s1`), p2c], `${p}.s2`), scale], `${p}.s3`), bias], `${p}.scores`);
    const probs = node('Softmax', [scores], `${p}.probs`, [aInt('axis', -1)]);
    const ctx = node('Reshape', [node('Transpose', [node('MatMul', [probs, v], `${p}.ctx_h`)], `${p}.ctx_t`, [aInts('perm', [0, 2, 1, 3])]), merge], `${p}.ctx`);
    const h1 = layerNorm(node('Add', [linear(ctx, H, H, `${p}.o`), h], `${p}.res1`), `${p}.ln1`);
    const f2 = linear(gelu(linear(h1, H, I, `${p}.ff1`), p), I, H, `${p}.ff2`);
    h = layerNorm(node('Add', [f2, h1], `${p}.res2`), `${p}.ln2`);
  }
  // Pooler and classifier.
  const first = node('Gather', [h, i64('zero_tok', [0], true)], 'cls', [aInt('axis', 1)]);
  const pooled = gelu(linear(first, H, H, 'pooler'), 'pool');
  linear(pooled, H, labels, 'logits');

  const msg = Model.fromObject({
    ir_version: 8, producer_name: `svc-deberta-v3-base-shaped-${variant}`, opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: `deberta_v3_base_shaped_${variant}`, initializer, node: nodes,
      input: ['input_ids', 'attention_mask'].map((n) => vi(n, INT64, ['batch_size', 'sequence_length'])),
      output: [vi('logits', FLOAT, ['batch_size', labels])],
    },
  });
  return Model.encode(msg).finish();
}

/**
 * Write a models folder `<root>/<name>/` for the guardrail's encoder classifier: a DeBERTa-v2
 * config with the real model's labels, the shared WordPiece tokenizer (DeBERTa's SentencePiece files
 * are not here; token counts of English text are close), and `onnx/model.onnx` (fp32, the form the
 * real repository ships) or `onnx/model_quantized.onnx` (int8). Returns the folder paths.
 */
export function writeDebertaShaped(opts: { variant?: Variant; root?: string; name?: string } = {}): { root: string; dir: string; bytes: number } {
  const variant = opts.variant ?? 'fp32';
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'svc-deberta-shaped-'));
  const dir = join(root, opts.name ?? 'deberta-v3-base-prompt-injection-v2');
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt']) copyFileSync(join(TOKENIZER_DIR, f), join(dir, f));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    architectures: ['DebertaV2ForSequenceClassification'], model_type: 'deberta-v2', hidden_size: DEBERTA_V3_BASE.hidden, num_hidden_layers: DEBERTA_V3_BASE.layers,
    num_attention_heads: DEBERTA_V3_BASE.heads, intermediate_size: DEBERTA_V3_BASE.intermediate, vocab_size: DEBERTA_V3_BASE.vocab, max_position_embeddings: 512,
    position_buckets: DEBERTA_V3_BASE.positionBuckets, relative_attention: true, pos_att_type: ['p2c', 'c2p'], share_att_key: true, type_vocab_size: 0,
    id2label: { 0: 'SAFE', 1: 'INJECTION' }, label2id: { SAFE: 0, INJECTION: 1 },
  }, null, 2));
  const bytes = buildDebertaShaped(variant);
  writeFileSync(join(dir, 'onnx', variant === 'fp32' ? 'model.onnx' : 'model_quantized.onnx'), bytes);
  return { root, dir, bytes: bytes.length };
}
