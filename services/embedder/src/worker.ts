/**
 * Embedder worker thread: loads the model through transformers.js (onnxruntime-node) from local
 * files only, then answers `{type: 'embed', id, texts}` with `{type: 'result', id, data, dims}`
 * (mean-pooled, L2-normalised, row-major Float32Array transferred). Texts of a batch are run in
 * length order so padding stays small, and answered in the caller's order.
 *
 * The feature-extraction pipeline's tokenizer and model run each batch; pooling is done here, in one
 * pass over the hidden states straight into the answer (docs/decisions-knowledge.md "Embedder
 * throughput"): transformers.js's own mean pooling reads the hidden states column-wise and converts
 * the BigInt mask once per element, and its normalisation indexes generically, which cost about 20%
 * of an int8 MiniLM-shaped model's run time on short texts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { env, pipeline } from '@huggingface/transformers';

interface Input { root: string; id: string; dtype: 'q8' | 'fp32'; threads: number }
interface EmbedMsg { type: 'embed'; id: number; texts: string[] }

const port = parentPort!;
const input = workerData as Input;

interface TensorLike { data: Float32Array | BigInt64Array; dims: number[] }
interface Extractor {
  tokenizer: (texts: string[], opts: { padding: boolean; truncation: boolean }) => Record<string, TensorLike> & { attention_mask: TensorLike };
  model: (inputs: Record<string, TensorLike>) => Promise<Record<string, TensorLike | undefined>>;
}

/**
 * Tokenize and run `texts`, then mean-pool over the attention mask and L2-normalise each vector into
 * `out` at row `rows[k]` for the k-th text. @returns the vector width.
 */
async function embedInto(extractor: Extractor, texts: string[], rows: readonly number[] | null, out: (dims: number) => Float32Array): Promise<number> {
  const inputs = extractor.tokenizer(texts, { padding: true, truncation: true });
  const outputs = await extractor.model(inputs);
  const hidden = outputs.last_hidden_state ?? outputs.token_embeddings ?? outputs.logits;
  if (!hidden || !(hidden.data instanceof Float32Array) || hidden.dims.length !== 3) throw new Error('model gave no float [batch, seq, dims] hidden states');
  const [batch, seq, dims] = hidden.dims as [number, number, number];
  const h = hidden.data;
  const mask = inputs.attention_mask.data as BigInt64Array;
  const data = out(dims);
  for (let b = 0; b < batch; b++) {
    const o = (rows ? rows[b]! : b) * dims;
    const v = data.subarray(o, o + dims);
    // Sum the attended token vectors (rows of the hidden states, read in memory order). The mean's
    // division by the token count cancels in the normalisation below.
    for (let t = 0; t < seq; t++) {
      if (mask[b * seq + t] === 0n) continue;
      const base = (b * seq + t) * dims;
      for (let k = 0; k < dims; k++) v[k]! += h[base + k]!;
    }
    let ss = 0;
    for (let k = 0; k < dims; k++) ss += v[k]! * v[k]!;
    if (ss > 0) { const inv = 1 / Math.sqrt(ss); for (let k = 0; k < dims; k++) v[k]! *= inv; }
  }
  return dims;
}

async function main(): Promise<void> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = input.root.endsWith('/') ? input.root : `${input.root}/`;
  env.useFSCache = false;
  let extractor: Extractor;
  try {
    extractor = await pipeline('feature-extraction', input.id, {
      dtype: input.dtype,
      local_files_only: true,
      session_options: { intraOpNumThreads: input.threads, interOpNumThreads: 1 },
    }) as unknown as Extractor;
    const dims = await embedInto(extractor, ['probe'], null, (d) => new Float32Array(d));
    port.postMessage({ type: 'ready', dims });
  } catch (err) {
    port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    return;
  }
  port.on('message', (msg: EmbedMsg) => {
    if (msg.type !== 'embed') return;
    void (async () => {
      try {
        const order = msg.texts.map((t, i) => [t.length, i] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
        const sorted = order.map((i) => msg.texts[i] || ' ');
        let data = new Float32Array(0);
        const dims = await embedInto(extractor, sorted, order, (d) => (data = new Float32Array(msg.texts.length * d)));
        port.postMessage({ type: 'result', id: msg.id, data, dims }, [data.buffer]);
      } catch (err) {
        port.postMessage({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
}

void main();
