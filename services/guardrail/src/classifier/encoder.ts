/**
 * The imported encoder classifier (issue 16 item 1): a prompt-injection / jailbreak
 * text-classification model (for example protectai/deberta-v3-base-prompt-injection-v2, Apache-2.0,
 * in ONNX form) found in the same folders and the same order as the embedding model
 * (SVC_MODELS_DIR, `<repo>/assets/models`, `<dataDir>/models`; `locateModel`), run by
 * transformers.js in one worker thread (encoder-worker.ts) with batching across checks: while the
 * worker is busy, checks queue; when it frees up, the queued texts leave together in one message.
 *
 * Each `classify` waits at most `timeoutMs`; past it, or with more than `maxQueue` texts waiting,
 * it answers `timeout` / `busy` and the other layers decide (encoder-layer.ts). Without the model,
 * or while it still loads, it answers `unavailable` at once and `status()` says why, for /readyz
 * and the admin UI.
 *
 * The files' sha256 are recorded by `models:import` / `models:fetch` in `<model>/svc-model.json`;
 * the recorded ONNX hash is reported, and a file whose size no longer matches its record is
 * refused (`failed`) rather than loaded.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { locateModel } from '../../../embedder/src/index.js';
import type { EncoderAnswer, EncoderClassifierPort, EncoderStatus } from './encoder-layer.js';
import type { EncoderWorkerData, WindowedRisk } from './encoder-worker.js';

const WORKER_FILE = fileURLToPath(new URL('./encoder-worker.js', import.meta.url));

/** The record `models:import` / `models:fetch` write next to a model's files. */
export const MODEL_RECORD = 'svc-model.json';

/** Options of `createEncoderClassifier`. */
export interface EncoderOptions {
  /** Folders searched in order (as the embedding model's). */
  modelDirs: readonly string[];
  /** Model folder name. */
  model: string;
  /** Longest wait for one answer, ms. */
  timeoutMs: number;
  /** Most windows read of one text. */
  maxWindows: number;
  /** onnxruntime intra-op threads. */
  threads: number;
  /** Texts allowed to wait; more answer `busy` at once (default 64). */
  maxQueue?: number;
  /** Texts sent to the worker in one message (default 16). */
  maxBatchTexts?: number;
}

/** The encoder classifier as the service holds it. */
export interface EncoderClassifier extends EncoderClassifierPort {
  /** Resolves once loading ended (ready, unavailable or failed). */
  whenSettled(): Promise<EncoderStatus>;
  close(): Promise<void>;
}

interface Job { text: string; at: number; done: boolean; resolve(a: EncoderAnswer): void; timer: NodeJS.Timeout | null }

/** The ONNX file's recorded sha256, or null; throws when the file's size no longer matches its record. */
function recordedHash(dir: string, file: string): string | null {
  const rec = join(dir, MODEL_RECORD);
  if (!existsSync(rec)) return null;
  let parsed: { files?: Array<{ path?: string; bytes?: number; sha256?: string }> };
  try { parsed = JSON.parse(readFileSync(rec, 'utf8')) as typeof parsed; } catch { throw new Error(`${MODEL_RECORD} is not JSON`); }
  const entry = parsed.files?.find((f) => f.path === `onnx/${file}`);
  if (!entry) return null;
  if (typeof entry.bytes === 'number' && statSync(join(dir, 'onnx', file)).size !== entry.bytes) throw new Error(`onnx/${file} changed since it was imported (size differs from ${MODEL_RECORD}); import it again`);
  return typeof entry.sha256 === 'string' ? entry.sha256 : null;
}

class WorkerEncoder implements EncoderClassifier {
  private readonly st: EncoderStatus;
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  private inflight: { id: number; jobs: Job[] } | null = null;
  private nextId = 1;
  private readonly settled: Promise<EncoderStatus>;

  constructor(private readonly o: EncoderOptions) {
    const found = locateModel(o.modelDirs, o.model);
    this.st = { state: 'loading', model: found?.id ?? o.model, path: found?.path ?? null, file: found?.file ?? null, sha256: null, labels: [], reason: null, texts_classified: 0 };
    if (!found) {
      this.st.state = 'unavailable';
      this.st.reason = `no classifier model "${o.model}" in ${o.modelDirs.join(', ')}; the heuristic and n-gram layers carry on (npm run models:import -- --guard <folder>)`;
      this.settled = Promise.resolve(this.st);
      return;
    }
    try {
      this.st.sha256 = recordedHash(found.path, found.file);
    } catch (err) {
      this.st.state = 'failed';
      this.st.reason = `classifier model refused: ${err instanceof Error ? err.message : String(err)}; the other layers carry on`;
      this.settled = Promise.resolve(this.st);
      return;
    }
    const data: EncoderWorkerData = { root: found.root, id: found.id, dtype: found.dtype, threads: o.threads, maxWindows: o.maxWindows };
    const w = new Worker(WORKER_FILE, { workerData: data });
    w.unref();
    this.worker = w;
    this.settled = new Promise<EncoderStatus>((resolve) => {
      const fail = (reason: string): void => {
        if (this.st.state === 'failed') return;
        this.st.state = 'failed';
        this.st.reason = `classifier model could not be loaded (${reason}); the other layers carry on`;
        this.failAll(this.st.reason);
        resolve(this.st);
      };
      w.on('message', (m: { type: string; id?: number; labels?: string[]; results?: WindowedRisk[]; message?: string }) => {
        if (m.type === 'ready') {
          this.st.state = 'ready';
          this.st.labels = m.labels ?? [];
          resolve(this.st);
          this.pump();
        } else if (m.type === 'failed') {
          fail(m.message ?? 'unknown error');
          void w.terminate();
          this.worker = null;
        } else if (m.type === 'result' || m.type === 'error') {
          this.onResult(m.id!, m.results ?? null, m.message);
        }
      });
      w.on('error', (err) => { fail(err.message); this.worker = null; });
      w.on('exit', () => { if (this.st.state === 'loading') fail('worker exited'); this.worker = null; this.failAll('the classifier worker stopped'); });
    });
  }

  status(): EncoderStatus { return { ...this.st, labels: [...this.st.labels] }; }
  whenSettled(): Promise<EncoderStatus> { return this.settled; }

  classify(content: string): Promise<EncoderAnswer> {
    const at = performance.now();
    // While the model loads (seconds for a large graph) checks do not wait for it: the other layers decide.
    if (this.st.state !== 'ready' || !this.worker) {
      const reason = this.st.state === 'loading' ? 'model still loading' : this.st.state === 'unavailable' ? 'no model installed' : 'model failed to load';
      return Promise.resolve({ state: 'unavailable', reason, ms: 0 });
    }
    if (this.queue.length >= (this.o.maxQueue ?? 64)) return Promise.resolve({ state: 'busy', reason: 'too many checks waiting for the classifier', ms: 0 });
    return new Promise((resolve) => {
      const job: Job = { text: content, at, done: false, resolve, timer: null };
      job.timer = setTimeout(() => this.finish(job, { state: 'timeout', reason: `no answer within ${this.o.timeoutMs} ms`, ms: performance.now() - at }), this.o.timeoutMs);
      this.queue.push(job);
      this.pump();
    });
  }

  private finish(job: Job, a: EncoderAnswer): void {
    if (job.done) return;
    job.done = true;
    if (job.timer) clearTimeout(job.timer);
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    job.resolve(a);
  }

  private pump(): void {
    if (this.inflight || this.st.state !== 'ready' || !this.worker) return;
    const jobs = this.queue.splice(0, this.o.maxBatchTexts ?? 16).filter((j) => !j.done);
    if (!jobs.length) return;
    const id = this.nextId++;
    this.inflight = { id, jobs };
    this.worker.postMessage({ type: 'classify', id, texts: jobs.map((j) => j.text) });
  }

  private onResult(id: number, results: WindowedRisk[] | null, message?: string): void {
    const batch = this.inflight;
    if (!batch || batch.id !== id) return;
    this.inflight = null;
    batch.jobs.forEach((job, i) => {
      const r = results?.[i];
      const ms = performance.now() - job.at;
      // An answer that arrives past the limit is a timeout even when its timer has not run yet (a busy
      // event loop can deliver the worker's message before an expired timer): it never decides.
      if (ms > this.o.timeoutMs) { this.finish(job, { state: 'timeout', reason: `no answer within ${this.o.timeoutMs} ms`, ms }); return; }
      if (r) { this.st.texts_classified++; this.finish(job, { state: 'ok', risk: r.risk, label: r.label, windows: r.windows, ms: performance.now() - job.at }); }
      else this.finish(job, { state: 'error', reason: message ?? 'the classifier failed', ms: performance.now() - job.at });
    });
    this.pump();
  }

  private failAll(reason: string): void {
    for (const j of [...this.queue]) this.finish(j, { state: 'unavailable', reason, ms: performance.now() - j.at });
    if (this.inflight) { for (const j of this.inflight.jobs) this.finish(j, { state: 'error', reason, ms: performance.now() - j.at }); this.inflight = null; }
  }

  async close(): Promise<void> {
    this.failAll('the guardrail is shutting down');
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/**
 * Start the encoder classifier: locate the model (no network, ever) and load it in a worker
 * thread. Never throws: a missing or broken model yields a classifier whose status says why.
 */
export function createEncoderClassifier(o: EncoderOptions): EncoderClassifier {
  return new WorkerEncoder(o);
}

/**
 * What an unauthenticated reader (`/readyz`) or a non-admin may see: no folder, and a reason in
 * plain words (the full reason names the folders searched).
 */
export function publicEncoderStatus(st: EncoderStatus): EncoderStatus {
  const reason = st.state === 'ready' ? null
    : st.state === 'loading' ? 'the classifier model is still loading; the other layers decide meanwhile'
      : st.state === 'unavailable' ? 'no classifier model installed; the heuristic and n-gram layers carry on'
        : 'the classifier model could not be loaded; the heuristic and n-gram layers carry on';
  return { ...st, path: null, reason };
}
