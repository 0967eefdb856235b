/**
 * The `Upstream` port over real providers: picks the adapter of each backend (`chat_completions`,
 * `responses`, or the embedded engine), and sends embeddings requests, all through one keep-alive
 * dispatcher that never follows redirects, with the upstream timeout of the router's settings.
 */
import type { Dispatcher } from 'undici';
import type { EmbeddingsRequest } from '../contracts.js';
import { UpstreamError, type Backend, type EmbeddingsResult, type Upstream } from '../domain/upstream.js';
import type { Adapter } from './adapter.js';
import { chatCompletionsAdapter } from './chat-completions.js';
import { readText, send } from './http.js';
import { responsesAdapter } from './responses.js';

/** Largest embeddings answer read, bytes. */
const MAX_EMBEDDINGS_JSON = 256 * 1024 * 1024;

/** What `createUpstream` needs. */
export interface UpstreamOptions {
  dispatcher: Dispatcher;
  /** Time to response headers from a provider, ms. */
  timeoutMs: number;
  /** The embedded engine's adapter. */
  local: Adapter;
}

/**
 * `POST {base_url}/embeddings` with `model` replaced. Usage is the answer's `prompt_tokens`
 * (else `total_tokens`, else 0).
 * @throws UpstreamError (a body that is not JSON is `bad_response`).
 */
export async function postEmbeddings(dispatcher: Dispatcher, timeoutMs: number, b: Backend, req: EmbeddingsRequest, traceparent: string): Promise<EmbeddingsResult> {
  const res = await send(dispatcher, `${b.baseUrl}/embeddings`, {
    method: 'POST', body: JSON.stringify({ ...req, model: b.model }), apiKey: b.apiKey, traceparent, timeoutMs,
  });
  let json: { usage?: { prompt_tokens?: number; total_tokens?: number } };
  try { json = JSON.parse(await readText(res.body, MAX_EMBEDDINGS_JSON)) as typeof json; } catch (err) {
    if (err instanceof SyntaxError) throw new UpstreamError(`${b.providerName} answered something other than JSON`, 'bad_response');
    throw err;
  }
  const pt = Number(json.usage?.prompt_tokens ?? json.usage?.total_tokens ?? 0) || 0;
  return { body: json as Record<string, unknown>, usage: { prompt_tokens: pt, completion_tokens: 0, total_tokens: pt } };
}

/** The router's `Upstream`. */
export function createUpstream(opts: UpstreamOptions): Upstream {
  const adapters: Record<Backend['adapter'], Adapter> = { chat_completions: chatCompletionsAdapter, responses: responsesAdapter, local: opts.local };
  const call = (signal: AbortSignal, traceparent: string) => ({ signal, traceparent, timeoutMs: opts.timeoutMs, dispatcher: opts.dispatcher });
  return {
    complete: (b, req, a) => adapters[b.adapter].complete(b, req, call(a.signal, a.traceparent)),
    stream: (b, req, a) => adapters[b.adapter].stream(b, req, call(a.signal, a.traceparent)),
    embed: (b, req, traceparent) => postEmbeddings(opts.dispatcher, opts.timeoutMs, b, req, traceparent),
  };
}
