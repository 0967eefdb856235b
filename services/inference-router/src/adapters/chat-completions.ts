/**
 * Adapter `chat_completions`: the provider speaks OpenAI `POST {base_url}/chat/completions`. Requests
 * pass through with `model` replaced; streams pass through event by event (the bytes of each event are
 * forwarded unchanged), with `stream_options.include_usage` turned on upstream so usage is captured;
 * the usage-only chunk is dropped again when the client did not ask for it.
 */
import { readText, send, splitSse, versionFromHeaders } from './http.js';
import {
  UpstreamError, type Backend, type ChatRequest, type CompleteResult, type StreamPiece, type StreamResult, type Usage,
} from '../domain/upstream.js';
import type { Adapter, CallOptions } from './adapter.js';

const MAX_JSON = 64 * 1024 * 1024;
const EVENT_END = Buffer.from('\n\n');
const USAGE = Buffer.from('"usage"');
const CONTENT_KEYS = [Buffer.from('"content":"'), Buffer.from('"reasoning_content":"')];
const TOOL_CALLS = Buffer.from('"tool_calls":[{');

/** Whether SSE bytes carry a non-empty content, reasoning or tool-call delta. */
export function hasContent(b: Buffer): boolean {
  for (const key of CONTENT_KEYS) {
    for (let i = b.indexOf(key); i >= 0; i = b.indexOf(key, i + 1)) {
      if (b[i + key.length] !== 0x22) return true;
    }
  }
  return b.indexOf(TOOL_CALLS) >= 0;
}

/** Normalise a usage object (OpenAI or Responses names) to OpenAI names; null when absent. */
export function toUsage(u: unknown): Usage | null {
  if (!u || typeof u !== 'object') return null;
  const o = u as Record<string, unknown>;
  const p = Number(o.prompt_tokens ?? o.input_tokens ?? 0);
  const c = Number(o.completion_tokens ?? o.output_tokens ?? 0);
  if (!Number.isFinite(p) || !Number.isFinite(c)) return null;
  const t = Number(o.total_tokens ?? p + c);
  return { prompt_tokens: p, completion_tokens: c, total_tokens: Number.isFinite(t) ? t : p + c };
}

/** The chat_completions adapter. */
export const chatCompletionsAdapter: Adapter = {
  async complete(b: Backend, req: ChatRequest, call: CallOptions): Promise<CompleteResult> {
    const body = JSON.stringify({ ...req, model: b.model, stream: false, stream_options: undefined });
    const res = await send(call.dispatcher, `${b.baseUrl}/chat/completions`, {
      method: 'POST', body, apiKey: b.apiKey, traceparent: call.traceparent, signal: call.signal, timeoutMs: call.timeoutMs,
    });
    let json: Record<string, unknown>;
    try { json = JSON.parse(await readText(res.body, MAX_JSON)) as Record<string, unknown>; } catch (err) {
      if (err instanceof UpstreamError) throw err;
      throw new UpstreamError(`${b.providerName} answered something other than JSON`, 'bad_response');
    }
    if (!Array.isArray(json.choices)) throw new UpstreamError(`${b.providerName} answered without choices`, 'bad_response');
    const fp = typeof json.system_fingerprint === 'string' ? json.system_fingerprint : null;
    return { body: json, usage: toUsage(json.usage), providerVersion: fp ?? versionFromHeaders(res.headers) };
  },

  async stream(b: Backend, req: ChatRequest, call: CallOptions): Promise<StreamResult> {
    const clientWantsUsage = req.stream_options?.include_usage === true;
    const body = JSON.stringify({ ...req, model: b.model, stream: true, stream_options: { ...(req.stream_options ?? {}), include_usage: true } });
    const res = await send(call.dispatcher, `${b.baseUrl}/chat/completions`, {
      method: 'POST', body, apiKey: b.apiKey, traceparent: call.traceparent, signal: call.signal, timeoutMs: call.timeoutMs, accept: 'text/event-stream',
    });
    const ct = String(res.headers['content-type'] ?? '');
    if (!ct.includes('text/event-stream')) {
      await res.body.dump();
      throw new UpstreamError(`${b.providerName} answered ${ct || 'no content type'} to a streaming request`, 'bad_response');
    }
    let version = versionFromHeaders(res.headers);
    async function* pieces(): AsyncIterable<StreamPiece> {
      // Hot path: complete events are forwarded as the very bytes received. Only a chunk holding
      // `"usage"` is parsed (to capture usage and drop the usage-only event the client did not ask for).
      let pending: Buffer | null = null;
      let seenContent = false;
      for await (const c of res.body as AsyncIterable<Buffer>) {
        const buf: Buffer = pending ? Buffer.concat([pending, c]) : c;
        const cr = buf.indexOf(13) >= 0;
        const end = cr ? -1 : buf.lastIndexOf(EVENT_END);
        if (cr) {
          // CRLF framing: normalise through the text path.
          const split = splitSse(buf.toString('utf8'));
          pending = split.rest ? Buffer.from(split.rest, 'utf8') : null;
          const out = handleEvents(split.events.map((e) => e.raw));
          if (out.sse || out.usage) yield out;
          continue;
        }
        if (end < 0) { pending = buf; continue; }
        const head = buf.subarray(0, end + 2);
        pending = end + 2 < buf.length ? buf.subarray(end + 2) : null;
        if (head.indexOf(USAGE) < 0) {
          const content = !seenContent && hasContent(head);
          if (content) seenContent = true;
          yield { sse: head, content, usage: null };
          continue;
        }
        const out = handleEvents(head.toString('utf8').split('\n\n').filter(Boolean));
        if (out.sse || out.usage) yield out;
      }

      function handleEvents(raws: string[]): StreamPiece {
        let out = ''; let usage: Usage | null = null; let content = false;
        for (const raw of raws) {
          const data = raw.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(l[5] === ' ' ? 6 : 5)).join('\n');
          if (!data) continue;
          if (data === '[DONE]') { out += 'data: [DONE]\n\n'; continue; }
          if (!seenContent && hasContent(Buffer.from(data))) { seenContent = true; content = true; }
          if (data.includes('"usage"') || data.includes('system_fingerprint')) {
            let j: { choices?: unknown[]; usage?: unknown; system_fingerprint?: unknown };
            try { j = JSON.parse(data) as typeof j; } catch { continue; }
            if (typeof j.system_fingerprint === 'string' && j.system_fingerprint) version = j.system_fingerprint;
            if (j.usage) usage = toUsage(j.usage) ?? usage;
            if (!clientWantsUsage && j.usage && (!j.choices || j.choices.length === 0)) continue;
          }
          out += `data: ${data}\n\n`;
        }
        return { sse: out, content, usage };
      }
    }
    return { get providerVersion() { return version; }, pieces: pieces() };
  },
};
