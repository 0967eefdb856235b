/**
 * The upstream port: what the domain needs from a provider (implemented by `adapters/`): the
 * resolved backend of one attempt, its answers, and the typed failure that drives fallback and
 * cooldown.
 */
import type { AdapterKind, ChatRequest, EmbeddingsRequest } from '../contracts.js';

export type { ChatMessage, ChatRequest } from '../contracts.js';

/** Token usage, OpenAI names. */
export interface Usage { prompt_tokens: number; completion_tokens: number; total_tokens: number }

/** A resolved backend: one provider model. */
export interface Backend {
  providerId: string;
  providerName: string;
  /** `local` for the embedded engine. */
  adapter: AdapterKind | 'local';
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** Local models: absolute GGUF path. */
  modelPath?: string;
}

/** Per-attempt settings of a chat call. */
export interface ChatAttempt {
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** W3C traceparent naming the attempt's client span. */
  traceparent: string;
}

/** A non-streamed answer, already in chat.completion form. */
export interface CompleteResult {
  body: Record<string, unknown>;
  usage: Usage | null;
  providerVersion: string | null;
}

/**
 * One streamed piece for the client: `sse` is ready-to-write SSE (`data: ...\n\n`, possibly several
 * events, as text or the upstream's own bytes); `content` is true when it carries the stream's first
 * content or tool-call delta (what time to first token measures).
 */
export interface StreamPiece { sse: string | Buffer; content: boolean; usage: Usage | null }

/** A stream whose upstream answered 200: the pieces, and the version seen in headers. */
export interface StreamResult {
  providerVersion: string | null;
  pieces: AsyncIterable<StreamPiece>;
}

/**
 * Why an attempt failed. `retryable` failures try the next target and cool the backend down.
 * `not_allowed`: the base URL reaches the workstation's own gateway or service ports, or a
 * link-local or unspecified address, and was not connected to (issue 11 item 8).
 */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'redirect' | 'auth' | 'key_missing' | 'rate_limited' | 'server' | 'model_missing' | 'rejected' | 'bad_response' | 'aborted' | 'not_allowed',
    readonly status: number | null = null,
  ) { super(message); this.name = 'UpstreamError'; }

  /** Whether the next target should be tried (client errors and aborts are not retried). */
  get retryable(): boolean { return this.kind !== 'rejected' && this.kind !== 'aborted'; }
}

/**
 * Providers as the domain calls them (adapters/upstream.ts picks the adapter of each backend).
 * Every method throws `UpstreamError` on a failure the fallback loop understands.
 */
export interface Upstream {
  /** A non-streamed chat completion. */
  complete(b: Backend, req: ChatRequest, attempt: ChatAttempt): Promise<CompleteResult>;
  /** A streamed chat completion, once the provider answered 200. */
  stream(b: Backend, req: ChatRequest, attempt: ChatAttempt): Promise<StreamResult>;
  /**
   * `POST {base_url}/embeddings` with `model` replaced (never the local engine); the parsed JSON
   * answer. `traceparent` names the attempt's client span.
   */
  embed(b: Backend, req: EmbeddingsRequest, traceparent: string): Promise<EmbeddingsResult>;
}

/** An embeddings answer: the provider's JSON body and its token usage. */
export interface EmbeddingsResult {
  body: Record<string, unknown>;
  usage: Usage;
}
