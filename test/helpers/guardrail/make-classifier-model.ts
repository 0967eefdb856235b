/**
 * The project's own tiny text-classification model for the guardrail's encoder-classifier tests
 * (issue 16 item 1; real classifier weights cannot be brought onto these machines). It is shaped
 * like a BERT sequence classifier for transformers.js: inputs `input_ids`, `attention_mask` (int64
 * [batch, seq]) -> `logits` float [batch, 2], labels `SAFE` / `INJECTION` in config.json, the real
 * WordPiece tokenizer from the shared assets.
 *
 * Each token id has a fixed pair of logit contributions (Gather from a [vocab, 2] table, times the
 * attention mask, summed over the sequence, plus a bias): the word pieces of `TRIGGER_WORDS` add
 * `weight` to the INJECTION logit, every other piece adds nothing, and the bias starts it at
 * `-bias`. So a text with two or more trigger words scores as an injection, a text with none as
 * safe, through the real pipeline, tokenizer and windowing. Written with protobufjs.
 */
import protobuf from 'protobufjs';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ONNX_PROTO, TOKENIZER_DIR } from '../embedder/make-test-model.js';

const FLOAT = 1;
const INT64 = 7;

/** Words whose pieces push the INJECTION logit (whole-word WordPiece ids of the real vocabulary). */
export const TRIGGER_WORDS = ['ignore', 'disregard', 'bypass', 'forget', 'previous', 'instructions', 'rules'] as const;

/** Folder name the tests install the model under (the service looks for SVC_GUARDRAIL_CLASSIFIER_MODEL). */
export const TEST_CLASSIFIER_NAME = 'tiny-injection-classifier';

/** Build the ONNX model bytes. */
export function buildClassifierModel(opts: { weight?: number; bias?: number; tokenizerDir?: string } = {}): Uint8Array {
  const weight = opts.weight ?? 3;
  const bias = opts.bias ?? 4;
  const vocab = readFileSync(join(opts.tokenizerDir ?? TOKENIZER_DIR, 'vocab.txt'), 'utf8').split('\n');
  const table = new Float32Array(vocab.length * 2);
  for (const w of TRIGGER_WORDS) {
    const id = vocab.indexOf(w);
    if (id < 0) throw new Error(`"${w}" is not a whole word of the vocabulary`);
    table[id * 2 + 1] = weight;
  }
  const root = protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  const Model = root.lookupType('onnx.ModelProto');
  const raw = (a: Float32Array | BigInt64Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const tensor = (name: string, dt: number, dims: number[], data: Float32Array | BigInt64Array) => ({ name, data_type: dt, dims, raw_data: raw(data) });
  const vi = (name: string, elem: number, shape: Array<string | number>) => ({
    name, type: { tensor_type: { elem_type: elem, shape: { dim: shape.map((d) => (typeof d === 'string' ? { dim_param: d } : { dim_value: d })) } } },
  });
  const node = (op: string, inputs: string[], outputs: string[], attribute: object[] = []) => ({ op_type: op, input: inputs, output: outputs, name: outputs[0], attribute });
  const msg = Model.fromObject({
    ir_version: 8,
    producer_name: 'svc-test-classifier',
    opset_import: [{ domain: '', version: 17 }],
    graph: {
      name: 'bag_of_trigger_pieces',
      initializer: [
        tensor('table', FLOAT, [vocab.length, 2], table),
        tensor('bias', FLOAT, [2], Float32Array.of(0, -bias)),
        tensor('axis1', INT64, [1], BigInt64Array.from([1n])),
        tensor('axis2', INT64, [1], BigInt64Array.from([2n])),
      ],
      node: [
        node('Gather', ['table', 'input_ids'], ['per_token'], [{ name: 'axis', type: 2, i: 0 }]),
        node('Cast', ['attention_mask'], ['mask'], [{ name: 'to', type: 2, i: FLOAT }]),
        node('Unsqueeze', ['mask', 'axis2'], ['mask3']),
        node('Mul', ['per_token', 'mask3'], ['masked']),
        node('ReduceSum', ['masked', 'axis1'], ['summed'], [{ name: 'keepdims', type: 2, i: 0 }]),
        node('Add', ['summed', 'bias'], ['logits']),
      ],
      input: [vi('input_ids', INT64, ['batch_size', 'sequence_length']), vi('attention_mask', INT64, ['batch_size', 'sequence_length'])],
      output: [vi('logits', FLOAT, ['batch_size', 2])],
    },
  });
  return Model.encode(msg).finish();
}

/**
 * Write a complete classifier folder `<root>/<name>/` (config with the labels, tokenizer files from
 * the shared assets, `onnx/model.onnx`) and return `root`, ready to be a models folder (SVC_MODELS_DIR).
 */
export function writeClassifierModel(opts: { root?: string; name?: string; weight?: number; bias?: number } = {}): string {
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'svc-test-classifier-'));
  const dir = join(root, opts.name ?? TEST_CLASSIFIER_NAME);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt']) copyFileSync(join(TOKENIZER_DIR, f), join(dir, f));
  const config = {
    architectures: ['BertForSequenceClassification'], model_type: 'bert', hidden_size: 2, num_attention_heads: 1, num_hidden_layers: 0, vocab_size: 30522,
    max_position_embeddings: 512, id2label: { 0: 'SAFE', 1: 'INJECTION' }, label2id: { SAFE: 0, INJECTION: 1 }, problem_type: 'single_label_classification',
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 2));
  writeFileSync(join(dir, 'onnx', 'model.onnx'), buildClassifierModel(opts));
  return root;
}
