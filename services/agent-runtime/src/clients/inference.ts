/**
 * Client of the inference router (issue 4): OpenAI-compatible `POST /v1/chat/completions` with
 * `stream: true`, SSE `data:` chunks ending in `[DONE]`, tool calls in OpenAI's delta format.
 * `model` is a role alias (`default`, `title`, `vision`, ...) or a model id. The caller's stamped
 * headers travel along so the router attributes the generation to the turn.
 *
 * Errors: `InferenceError` with the router's code when present, else one derived from the text
 * (domain/inference-errors.ts).
 */
import { request } from 'undici';
import { classifyHttpError, classifyThrown, InferenceError } from '../domain/inference-errors.js';
import type { ModelPort, ModelRequest, ModelResult, ModelStreamHandlers, ModelToolCall } from '../domain/ports.js';

interface ChunkChoice {
  delta?: {
    content?: string | null; reasoning_content?: string | null; reasoning?: string | null;
    tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
  };
  finish_reason?: string | null;
}

/** Router client bound to a base URL. */
export class InferenceClient implements ModelPort {
  constructor(private readonly baseUrl: string, private readonly timeoutMs: number) {}

  /**
   * Stream one chat completion, calling `handlers` per delta.
   * @throws InferenceError (router code, or derived) on HTTP errors, transport failures, in-stream
   *   errors and timeouts; an `AbortError` when `signal` aborts.
   */
  async stream(body: ModelRequest, headers: Record<string, string>, handlers: ModelStreamHandlers = {}, signal?: AbortSignal): Promise<ModelResult> {
    const t0 = performance.now();
    const signals = [AbortSignal.timeout(this.timeoutMs)];
    if (signal) signals.push(signal);
    const payload: Record<string, unknown> = { ...body, stream: true, stream_options: { include_usage: true } };
    if (!body.tools?.length) delete payload.tools;
    let res;
    try {
      res = await request(`${this.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify(payload),
        signal: AbortSignal.any(signals),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw classifyThrown(err);
    }
    if (res.statusCode >= 400) {
      const text = await res.body.text().catch(() => '');
      let parsed: unknown = null;
      try { parsed = JSON.parse(text); } catch { parsed = text ? { error: text.slice(0, 500) } : null; }
      throw classifyHttpError(res.statusCode, parsed);
    }
    const out: ModelResult = { content: '', reasoning: '', toolCalls: [], finishReason: null, model: null, usage: null, ttftMs: null, latencyMs: 0 };
    const calls = new Map<number, ModelToolCall>();
    const contentType = String(res.headers['content-type'] ?? '');
    try {
      if (!contentType.includes('text/event-stream')) {
        // A server that ignored `stream: true` and answered one JSON completion.
        const json = JSON.parse(await res.body.text()) as { model?: string; choices?: Array<{ message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> }; finish_reason?: string }>; usage?: ModelResult['usage'] };
        const msg = json.choices?.[0]?.message;
        out.model = json.model ?? null;
        out.content = msg?.content ?? '';
        if (out.content) { out.ttftMs = performance.now() - t0; handlers.onToken?.(out.content); }
        out.toolCalls = (msg?.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments }));
        out.finishReason = json.choices?.[0]?.finish_reason ?? null;
        out.usage = json.usage ?? null;
      } else {
        let buf = '';
        let data: string[] = [];
        let done = false;
        const dispatch = (): void => {
          if (data.length === 0) return;
          const text = data.join('\n');
          data = [];
          if (text === '[DONE]') { done = true; return; }
          let chunk: { model?: string; choices?: ChunkChoice[]; usage?: ModelResult['usage']; error?: unknown; code?: unknown };
          try { chunk = JSON.parse(text) as typeof chunk; } catch { return; }
          if (chunk.error !== undefined) throw classifyHttpError(502, chunk);
          if (chunk.model) out.model = chunk.model;
          if (chunk.usage) out.usage = { prompt_tokens: chunk.usage.prompt_tokens ?? 0, completion_tokens: chunk.usage.completion_tokens ?? 0 };
          for (const choice of chunk.choices ?? []) {
            const d = choice.delta ?? {};
            const thinking = d.reasoning_content ?? d.reasoning;
            if (thinking) {
              out.ttftMs ??= performance.now() - t0;
              out.reasoning += thinking;
              handlers.onThinking?.(thinking);
            }
            if (d.content) {
              out.ttftMs ??= performance.now() - t0;
              out.content += d.content;
              handlers.onToken?.(d.content);
            }
            for (const tc of d.tool_calls ?? []) {
              const idx = tc.index ?? 0;
              let call = calls.get(idx);
              if (!call) { call = { id: tc.id ?? `call_${idx}`, name: '', arguments: '' }; calls.set(idx, call); }
              if (tc.id) call.id = tc.id;
              if (tc.function?.name) call.name += tc.function.name;
              if (tc.function?.arguments) call.arguments += tc.function.arguments;
            }
            if (choice.finish_reason) out.finishReason = choice.finish_reason;
          }
        };
        for await (const piece of res.body) {
          buf += typeof piece === 'string' ? piece : (piece as Buffer).toString('utf8');
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).replace(/\r$/, '');
            buf = buf.slice(nl + 1);
            if (line === '') dispatch();
            else if (line.startsWith('data:')) data.push(line.slice(line.charAt(5) === ' ' ? 6 : 5));
            // `event:`, `id:`, comments: not used by the chat-completions stream.
          }
          if (done) break;
        }
        if (!done) dispatch();
        if (!done && out.finishReason === null) {
          throw new InferenceError('backend_unavailable', 'the model stream ended before it finished');
        }
      }
    } catch (err) {
      res.body.destroy();
      if (signal?.aborted) throw err;
      throw classifyThrown(err);
    }
    out.toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c).filter((c) => c.name);
    out.latencyMs = performance.now() - t0;
    return out;
  }
}
