/**
 * Shared types of the upstream adapters: the OpenAI chat request as the router receives it, the
 * resolved backend of one attempt, and the typed failure that drives fallback and cooldown.
 */
import type { Dispatcher } from 'undici';
import type { AdapterKind } from '../contracts.js';

/** OpenAI chat message (content may be a string or typed parts). */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | Array<{ type: string; text?: string; image_url?: unknown }> | null;
  name?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The OpenAI chat completion request (fields the router reads; others pass through). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  seed?: number | null;
  stop?: string | string[] | null;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown; strict?: boolean } }>;
  tool_choice?: unknown;
  [k: string]: unknown;
}

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

/** Per-attempt call settings. */
export interface CallOptions {
  signal: AbortSignal;
  /** W3C traceparent naming the attempt's client span. */
  traceparent: string;
  /** Time to response headers, ms. */
  timeoutMs: number;
  dispatcher: Dispatcher;
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

/** Why an attempt failed. `retryable` failures try the next target and cool the backend down. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly kind: 'unreachable' | 'timeout' | 'redirect' | 'auth' | 'key_missing' | 'rate_limited' | 'server' | 'model_missing' | 'rejected' | 'bad_response' | 'aborted',
    readonly status: number | null = null,
  ) { super(message); this.name = 'UpstreamError'; }

  /** Whether the next target should be tried (client errors and aborts are not retried). */
  get retryable(): boolean { return this.kind !== 'rejected' && this.kind !== 'aborted'; }
}

/** What each adapter implements. */
export interface Adapter {
  complete(b: Backend, req: ChatRequest, call: CallOptions): Promise<CompleteResult>;
  stream(b: Backend, req: ChatRequest, call: CallOptions): Promise<StreamResult>;
}
