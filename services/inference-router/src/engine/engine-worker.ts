/**
 * The local engine's worker thread: node-llama-cpp with its bundled CPU binaries (never builds,
 * never downloads: `getLlama({build: 'never', gpu: false})`). Models load lazily on first use; one
 * model is kept loaded (a different one replaces it). Generations run one at a time on one context
 * sequence, so a long generation only ever blocks this thread, never the router.
 *
 * Chat is served as plain completion of the rendered messages (no chat template): the GGUF files
 * this build is tested with are base models.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getLlama, LlamaCompletion, LlamaLogLevel, type Llama, type LlamaContext, type LlamaContextSequence, type LlamaModel } from 'node-llama-cpp';
import type { EngineReply, EngineRequest, EngineSettings } from './protocol.js';

const settings = workerData as EngineSettings;
const port = parentPort!;
let llama: Llama | null = null;
let loaded: { path: string; model: LlamaModel; ctx: LlamaContext; seq: LlamaContextSequence; completion: LlamaCompletion } | null = null;
const queue: Array<Extract<EngineRequest, { type: 'generate' }>> = [];
const aborts = new Map<number, AbortController>();
let busy = false;

function post(m: EngineReply): void { port.postMessage(m); }

async function ensure(path: string): Promise<number> {
  if (loaded?.path === path) return 0;
  const t0 = performance.now();
  llama ??= await getLlama({ build: 'never', gpu: false, logLevel: LlamaLogLevel.error, progressLogs: false });
  if (loaded) {
    const old = loaded; loaded = null;
    await old.ctx.dispose(); await old.model.dispose();
  }
  const model = await llama.loadModel({ modelPath: path });
  const contextSize = Math.min(settings.contextSize, model.trainContextSize || settings.contextSize);
  const ctx = await model.createContext({ contextSize, threads: settings.threads });
  const seq = ctx.getSequence();
  loaded = { path, model, ctx, seq, completion: new LlamaCompletion({ contextSequence: seq }) };
  return performance.now() - t0;
}

async function run(req: Extract<EngineRequest, { type: 'generate' }>): Promise<void> {
  const ac = aborts.get(req.id) ?? new AbortController();
  aborts.set(req.id, ac);
  try {
    if (ac.signal.aborted) { post({ type: 'done', id: req.id, promptTokens: 0, completionTokens: 0, finishReason: 'abort', loadMs: 0 }); return; }
    const loadMs = await ensure(req.modelPath);
    const l = loaded!;
    await l.seq.clearHistory();
    const promptTokens = l.model.tokenize(req.prompt).length;
    const room = Math.max(1, l.ctx.contextSize - promptTokens - 1);
    const maxTokens = Math.min(req.maxTokens, room);
    let completionTokens = 0;
    const res = await l.completion.generateCompletionWithMeta(req.prompt, {
      maxTokens, temperature: req.temperature, ...(req.topP !== null ? { topP: req.topP } : {}), ...(req.seed !== null ? { seed: req.seed } : {}),
      ...(req.stop.length ? { customStopTriggers: req.stop } : {}),
      signal: ac.signal, stopOnAbortSignal: true,
      onToken: (tokens) => { completionTokens += tokens.length; },
      onTextChunk: (text) => { post({ type: 'text', id: req.id, text, tokens: completionTokens }); },
    });
    const finishReason = ac.signal.aborted ? 'abort' : res.metadata.stopReason === 'maxTokens' ? 'length' : 'stop';
    post({ type: 'done', id: req.id, promptTokens, completionTokens, finishReason, loadMs });
  } catch (err) {
    post({ type: 'error', id: req.id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    aborts.delete(req.id);
  }
}

async function pump(): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    for (let next = queue.shift(); next; next = queue.shift()) await run(next);
  } finally { busy = false; }
}

port.on('message', (m: EngineRequest) => {
  if (m.type === 'generate') { aborts.set(m.id, new AbortController()); queue.push(m); void pump(); }
  else if (m.type === 'abort') aborts.get(m.id)?.abort();
  else if (m.type === 'shutdown') {
    void (async () => {
      for (const a of aborts.values()) a.abort();
      try { await loaded?.ctx.dispose(); await loaded?.model.dispose(); await llama?.dispose(); } catch { /* exiting */ }
      post({ type: 'closed' });
      process.exit(0);
    })();
  }
});
