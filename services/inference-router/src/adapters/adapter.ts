/**
 * What each chat adapter implements (`chat_completions`, `responses`, `local`), with the per-call
 * settings of the HTTP layer (dispatcher, timeout) that the domain never sees.
 */
import type { Dispatcher } from 'undici';
import type { Backend, ChatRequest, CompleteResult, StreamResult } from '../domain/upstream.js';

/** Per-attempt call settings. */
export interface CallOptions {
  signal: AbortSignal;
  /** W3C traceparent naming the attempt's client span. */
  traceparent: string;
  /** Time to response headers, ms. */
  timeoutMs: number;
  dispatcher: Dispatcher;
}

/** One upstream API shape. */
export interface Adapter {
  complete(b: Backend, req: ChatRequest, call: CallOptions): Promise<CompleteResult>;
  stream(b: Backend, req: ChatRequest, call: CallOptions): Promise<StreamResult>;
}
