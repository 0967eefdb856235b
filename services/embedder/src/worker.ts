/**
 * Embedder worker thread: loads the model through transformers.js (onnxruntime-node) from local
 * files only, then answers `{type: 'embed', id, texts}` with `{type: 'result', id, data, dims}`
 * (mean-pooled, L2-normalised, row-major Float32Array transferred). Texts of a batch are run in
 * length order so padding stays small, and answered in the caller's order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { env, pipeline } from '@huggingface/transformers';

interface Input { root: string; id: string; dtype: 'q8' | 'fp32'; threads: number }
interface EmbedMsg { type: 'embed'; id: number; texts: string[] }

const port = parentPort!;
const input = workerData as Input;

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

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
    const probe = await extractor(['probe'], { pooling: 'mean', normalize: true });
    port.postMessage({ type: 'ready', dims: probe.dims[probe.dims.length - 1] });
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
        const out = await extractor(sorted, { pooling: 'mean', normalize: true });
        const dims = out.dims[out.dims.length - 1]!;
        const data = new Float32Array(msg.texts.length * dims);
        order.forEach((orig, k) => data.set(out.data.subarray(k * dims, (k + 1) * dims), orig * dims));
        port.postMessage({ type: 'result', id: msg.id, data, dims }, [data.buffer]);
      } catch (err) {
        port.postMessage({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
}

void main();
