/**
 * Adapter for provider `local`: chat requests served by the embedded engine, answered in OpenAI
 * chat.completion / chat.completion.chunk form. Tools are not supported by the local engine (the
 * request is served as plain text generation).
 */
import type { LocalEngine } from '../engine/local-engine.js';
import {
  UpstreamError, type Backend, type ChatMessage, type ChatRequest, type StreamPiece, type Usage,
} from '../domain/upstream.js';
import type { Adapter, CallOptions } from './adapter.js';

/** Version string recorded as `provider_version` for local generations. */
export const LOCAL_ENGINE_VERSION = 'node-llama-cpp@3';

/** Render chat messages as the completion prompt: the message texts, one per paragraph. Pure. */
export function renderPrompt(messages: ChatMessage[]): string {
  const texts = messages
    .filter((m) => m.role !== 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('') : ''))
    .filter((t) => t.length > 0);
  return texts.join('\n\n');
}

/** Build the local adapter over an engine; `defaultMaxTokens` applies when the request sets none. */
export function localAdapter(engine: LocalEngine, defaultMaxTokens: number): Adapter {
  const params = (b: Backend, req: ChatRequest) => {
    const stop = req.stop === undefined || req.stop === null ? [] : Array.isArray(req.stop) ? req.stop : [req.stop];
    return {
      modelPath: b.modelPath!, prompt: renderPrompt(req.messages), maxTokens: req.max_completion_tokens ?? req.max_tokens ?? defaultMaxTokens,
      temperature: typeof req.temperature === 'number' ? req.temperature : 0, topP: typeof req.top_p === 'number' ? req.top_p : null,
      seed: typeof req.seed === 'number' ? req.seed : null, stop,
    };
  };
  const fail = (err: unknown): never => {
    throw new UpstreamError(`local engine failed: ${err instanceof Error ? err.message : String(err)}`, 'server');
  };
  return {
    async complete(b, req, call: CallOptions) {
      let text = '';
      const r = await engine.generate(params(b, req), (t) => { text += t; }, call.signal).catch(fail);
      if (r.finishReason === 'abort') throw new UpstreamError('client closed the request', 'aborted');
      const usage: Usage = { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.promptTokens + r.completionTokens };
      return {
        body: {
          id: `chatcmpl-local-${Date.now()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: b.model,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: r.finishReason }], usage,
        },
        usage, providerVersion: LOCAL_ENGINE_VERSION,
      };
    },

    async stream(b, req, call: CallOptions) {
      const id = `chatcmpl-local-${Date.now()}`;
      const created = Math.floor(Date.now() / 1000);
      const wantsUsage = req.stream_options?.include_usage === true;
      const chunk = (delta: object, finish: string | null = null): string =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: b.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const queue: StreamPiece[] = [];
      let wake: (() => void) | null = null;
      let finished = false;
      let failure: unknown = null;
      const push = (p: StreamPiece): void => { queue.push(p); wake?.(); };
      let ready!: () => void;
      const readyP = new Promise<void>((r) => { ready = r; });
      push({ sse: chunk({ role: 'assistant', content: '' }), content: false, usage: null });
      engine.generate(params(b, req), (t) => { push({ sse: chunk({ content: t }), content: true, usage: null }); ready(); }, call.signal).then((r) => {
        const usage: Usage = { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.promptTokens + r.completionTokens };
        let tail = chunk({}, r.finishReason === 'abort' ? 'stop' : r.finishReason);
        if (wantsUsage) tail += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: b.model, choices: [], usage })}\n\n`;
        push({ sse: `${tail}data: [DONE]\n\n`, content: false, usage });
        finished = true; ready(); wake?.();
      }, (err: unknown) => { failure = err; finished = true; ready(); wake?.(); });
      // Wait for the first token (or the end) so a model that fails to load can still fail over.
      await readyP;
      if (failure && queue.every((q) => !q.content)) fail(failure);
      async function* pieces(): AsyncIterable<StreamPiece> {
        for (;;) {
          while (queue.length) yield queue.shift()!;
          if (finished) {
            while (queue.length) yield queue.shift()!;
            if (failure) fail(failure);
            return;
          }
          await new Promise<void>((r) => { wake = r; });
          wake = null;
        }
      }
      return { providerVersion: LOCAL_ENGINE_VERSION, pieces: pieces() };
    },
  };
}
