/**
 * Router side of the embedded engine: starts the worker thread on first use, sends generations,
 * relays streamed text, and aborts a generation when its client goes away. The engine serves
 * one generation at a time (in its own thread); others wait in its queue.
 */
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { EngineReply, EngineRequest, EngineSettings } from './protocol.js';

/** Parameters of one generation. */
export interface GenerateParams {
  modelPath: string;
  prompt: string;
  maxTokens: number;
  temperature: number;
  topP: number | null;
  seed: number | null;
  stop: string[];
}

/** Outcome of one generation. */
export interface GenerateResult {
  promptTokens: number;
  completionTokens: number;
  finishReason: 'stop' | 'length' | 'abort';
  /** Time spent loading the model for this call, ms (0 when it was loaded). */
  loadMs: number;
}

interface Pending { onText: (t: string) => void; resolve: (r: GenerateResult) => void; reject: (e: Error) => void }

const WORKER = fileURLToPath(new URL('./engine-worker.js', import.meta.url));

/** The embedded engine (node-llama-cpp in a worker thread). */
export class LocalEngine {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly settings: EngineSettings) {}

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER, { workerData: this.settings });
    w.on('message', (m: EngineReply) => {
      if (m.type === 'closed') return;
      const p = this.pending.get(m.id);
      if (!p) return;
      if (m.type === 'text') p.onText(m.text);
      else if (m.type === 'done') { this.pending.delete(m.id); p.resolve({ promptTokens: m.promptTokens, completionTokens: m.completionTokens, finishReason: m.finishReason, loadMs: m.loadMs }); }
      else { this.pending.delete(m.id); p.reject(new Error(m.message)); }
    });
    const fail = (err: Error): void => {
      this.worker = null;
      for (const [id, p] of this.pending) { this.pending.delete(id); p.reject(err); }
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`local engine exited (code ${code})`)));
    w.unref();
    this.worker = w;
    return w;
  }

  /**
   * Generate; `onText` receives text pieces as they come. Aborting `signal` stops the generation
   * (the promise then resolves with finishReason `abort`).
   * @throws Error when the model cannot be loaded or the engine fails.
   */
  generate(p: GenerateParams, onText: (t: string) => void, signal: AbortSignal): Promise<GenerateResult> {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise<GenerateResult>((resolve, reject) => {
      this.pending.set(id, { onText, resolve, reject });
      const msg: EngineRequest = { type: 'generate', id, ...p };
      w.postMessage(msg);
      const onAbort = (): void => { w.postMessage({ type: 'abort', id } satisfies EngineRequest); };
      if (signal.aborted) onAbort(); else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stop the worker (pending generations fail). */
  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.worker = null;
    w.removeAllListeners('exit');
    const exited = new Promise<void>((r) => w.once('exit', () => r()));
    w.postMessage({ type: 'shutdown' } satisfies EngineRequest);
    const timer = setTimeout(() => { void w.terminate(); }, 3000);
    await exited;
    clearTimeout(timer);
    for (const [id, p] of this.pending) { this.pending.delete(id); p.reject(new Error('local engine closed')); }
  }
}
