/**
 * The embedder: one model in one worker thread per service process, with dynamic batching across
 * callers (docs/decisions-knowledge.md "Embedder"). Requests queue while the worker is busy; when it
 * frees up, queued texts leave together in one model call of up to `maxBatch` texts. Query texts
 * (`priority: 'query'`) go ahead of bulk ingestion texts, so a search never waits behind an import.
 *
 * With no model on disk the embedder is `unavailable` and `embed` throws: callers turn dense
 * retrieval off and keep sparse retrieval.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { EmbedPriority, Embedder, EmbedderOptions, EmbedderStatus } from './contracts.js';
import { locateModel } from './locate.js';

interface Pending { texts: readonly string[]; offset: number; out: Float32Array[]; resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }
interface Slice { job: Pending; start: number; count: number }

const WORKER_FILE = fileURLToPath(new URL('./worker.js', import.meta.url));

class WorkerEmbedder implements Embedder {
  private readonly st: EmbedderStatus;
  private worker: Worker | null = null;
  private readonly queues: Record<EmbedPriority, Pending[]> = { query: [], bulk: [] };
  private inflight: { id: number; slices: Slice[] } | null = null;
  private nextId = 1;
  private readonly settled: Promise<EmbedderStatus>;
  private readonly maxBatch: number;

  constructor(opts: EmbedderOptions) {
    this.maxBatch = opts.maxBatch ?? 32;
    const model = opts.model ?? 'all-MiniLM-L6-v2';
    const found = locateModel(opts.modelDirs, model);
    this.st = { state: 'loading', model: found ? found.id : null, path: found?.path ?? null, dims: opts.dims, file: found?.file ?? null, reason: null, texts_embedded: 0 };
    if (!found) {
      this.st.state = 'unavailable';
      this.st.reason = `no embedding model "${model}" in ${opts.modelDirs.join(', ')}; dense retrieval is off, sparse (BM25) retrieval carries on (npm run models:fetch, or models:import <folder>)`;
      this.settled = Promise.resolve(this.st);
      return;
    }
    const w = new Worker(WORKER_FILE, { workerData: { root: found.root, id: found.id, dtype: found.dtype, threads: opts.threads ?? 1 } });
    w.unref();
    this.worker = w;
    this.settled = new Promise<EmbedderStatus>((resolve) => {
      const fail = (reason: string): void => {
        this.st.state = 'failed';
        this.st.reason = `embedding model could not be loaded (${reason}); dense retrieval is off, sparse (BM25) retrieval carries on`;
        this.failAll(new Error(this.st.reason));
        resolve(this.st);
      };
      w.on('message', (m: { type: string; id?: number; dims?: number; data?: Float32Array; message?: string }) => {
        if (m.type === 'ready') {
          if (m.dims !== opts.dims) {
            fail(`model produces ${m.dims}-d vectors but EMBEDDING_DIMS is ${opts.dims}`);
            void w.terminate();
            this.worker = null;
            return;
          }
          this.st.state = 'ready';
          resolve(this.st);
          this.pump();
        } else if (m.type === 'failed') {
          fail(m.message ?? 'unknown error');
          void w.terminate();
          this.worker = null;
        } else if (m.type === 'result' || m.type === 'error') {
          this.onResult(m.id!, m.data ?? null, m.dims ?? 0, m.message);
        }
      });
      w.on('error', (err) => { fail(err.message); this.worker = null; });
      w.on('exit', () => { if (this.st.state === 'loading') fail('worker exited'); this.worker = null; this.failAll(new Error('embedder worker exited')); });
    });
  }

  get available(): boolean { return this.st.state === 'ready' && this.worker !== null; }
  status(): EmbedderStatus { return { ...this.st }; }
  whenSettled(): Promise<EmbedderStatus> { return this.settled; }

  embed(texts: readonly string[], priority: EmbedPriority = 'query'): Promise<Float32Array[]> {
    if (this.st.state === 'unavailable' || this.st.state === 'failed') return Promise.reject(new Error(this.st.reason ?? 'embedder unavailable'));
    if (texts.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queues[priority].push({ texts, offset: 0, out: new Array(texts.length), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inflight || !this.available) return;
    const slices: Slice[] = [];
    let room = this.maxBatch;
    for (const q of [this.queues.query, this.queues.bulk]) {
      while (room > 0 && q.length > 0) {
        const job = q[0]!;
        const count = Math.min(room, job.texts.length - job.offset);
        slices.push({ job, start: job.offset, count });
        job.offset += count;
        room -= count;
        if (job.offset >= job.texts.length) q.shift();
      }
    }
    if (slices.length === 0) return;
    const texts = slices.flatMap((s) => s.job.texts.slice(s.start, s.start + s.count) as string[]);
    const id = this.nextId++;
    this.inflight = { id, slices };
    this.worker!.postMessage({ type: 'embed', id, texts });
  }

  private onResult(id: number, data: Float32Array | null, dims: number, message?: string): void {
    const batch = this.inflight;
    if (!batch || batch.id !== id) return;
    this.inflight = null;
    let k = 0;
    for (const s of batch.slices) {
      if (!data) { s.job.reject(new Error(message ?? 'embedding failed')); continue; }
      for (let i = 0; i < s.count; i++, k++) s.job.out[s.start + i] = data.slice(k * dims, (k + 1) * dims);
      if (s.start + s.count >= s.job.texts.length) s.job.resolve(s.job.out);
    }
    if (data) this.st.texts_embedded += k;
    this.pump();
  }

  private failAll(err: Error): void {
    for (const q of [this.queues.query, this.queues.bulk]) while (q.length) q.shift()!.reject(err);
    if (this.inflight) { for (const s of this.inflight.slices) s.job.reject(err); this.inflight = null; }
  }

  async close(): Promise<void> {
    this.failAll(new Error('embedder closed'));
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/**
 * Start the embedder: locate the model (no network, ever) and load it in a worker thread.
 * Never throws: a missing or broken model yields an embedder whose status says why.
 */
export function createEmbedder(opts: EmbedderOptions): Embedder {
  return new WorkerEmbedder(opts);
}
