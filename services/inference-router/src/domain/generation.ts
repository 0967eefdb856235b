/**
 * Generation records (spec "Other resources": generation record; issue 4): the state of one
 * inference call while it runs, and the record posted to observability when it ends (in the
 * background; the weight hash of a local model is awaited first). Each record names its route
 * metadata: backend, provider version, deterministic capability, weight hash, latency, time to first
 * token, tokens and attempts.
 */
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { GenerationInput } from '../../../observability/src/contracts.js';
import type { BudgetSource, GenerationSink, LocalModelFile, TraceSpan, WeightHashes } from './ports.js';
import type { Backend, Usage } from './upstream.js';

const nextEventId = ulidFactory();

/** Who made a call and the request span it runs under. */
export interface Caller {
  /** Principal id, or null. */
  userId: string | null;
  /** X-Svc-Turn-Id of the request, or null. */
  turnId: string | null;
  /** The request's server span, or null when the request is not traced. */
  span: TraceSpan | null;
}

/** State of one call while it runs, for its generation record. */
export interface CallState {
  /** ULID of the generation record (answered as `x-svc-generation-id`). */
  eventId: string;
  /** RFC 3339 start. */
  createdAt: string;
  /** `performance.now()` at the start. */
  t0: number;
  requestedModel: string;
  /** The role alias, when `model` named one. */
  role: string | null;
  stream: boolean;
  /** Backends tried so far. */
  attempts: number;
  /** The backend of the last attempt. */
  backend: Backend | null;
  providerVersion: string | null;
  /** Start to first content token, ms. */
  ttftMs: number | null;
  usage: Usage | null;
  /** Whether the local engine would replay this call exactly. */
  deterministic: boolean;
}

/** A new call state, started now. */
export function startCall(requestedModel: string, stream: boolean, deterministic: boolean): CallState {
  return {
    eventId: nextEventId(), createdAt: new Date().toISOString(), t0: performance.now(), requestedModel, role: null, stream,
    attempts: 0, backend: null, providerVersion: null, ttftMs: null, usage: null, deterministic,
  };
}

/** Milliseconds since `t0` (a `performance.now()`), to the microsecond. */
export function elapsedMs(t0: number): number { return Math.round((performance.now() - t0) * 1000) / 1000; }

/** How a call ended. */
export type CallStatus = GenerationInput['status'];

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * The generation record of a call. Pure.
 * @param weightHash sha256 of the local weights, or null.
 */
export function generationRecord(caller: Caller, st: CallState, status: CallStatus, httpStatus: number, errorCode: string | null, latencyMs: number, weightHash: string | null): GenerationInput {
  const b = st.backend;
  const u = st.usage ?? NO_USAGE;
  const span = caller.span;
  return {
    event_id: st.eventId, created_at: st.createdAt, user_id: caller.userId, turn_id: caller.turnId, trace_id: span?.traceId ?? null, span_id: span?.spanId ?? null,
    role: st.role, requested_model: st.requestedModel, model: b?.model ?? st.requestedModel, provider_id: b?.providerId ?? 'none', provider_name: b?.providerName ?? 'none',
    backend: b ? (b.adapter === 'local' ? 'local_llama_cpp' : b.adapter) : 'none', provider_version: st.providerVersion,
    deterministic: b?.adapter === 'local' ? st.deterministic : false, weight_hash: weightHash, stream: st.stream, status, error_code: errorCode,
    http_status: httpStatus, latency_ms: latencyMs, ttft_ms: st.ttftMs, prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens, attempts: st.attempts,
  };
}

/** What the recorder needs. */
export interface RecorderDeps {
  sink: GenerationSink;
  budget: BudgetSource;
  /** Local GGUF files as of the last registry refresh. */
  localModels: () => LocalModelFile[];
  hashes: WeightHashes;
}

/** Posts one generation record per call. */
export class GenerationRecorder {
  constructor(private readonly d: RecorderDeps) {}

  /**
   * Post the call's record (background; never throws). Latency is measured now; for a local model
   * the weight hash is awaited first. A call that reported usage drops the cached budget answer.
   */
  record(caller: Caller, st: CallState, status: CallStatus, httpStatus: number, errorCode: string | null): void {
    const latency = elapsedMs(st.t0);
    const b = st.backend;
    const post = (weightHash: string | null): void => {
      this.d.sink.report(generationRecord(caller, st, status, httpStatus, errorCode, latency, weightHash), caller.span ? caller.span.traceparent() : null);
      if (st.usage) this.d.budget.invalidate();
    };
    if (b?.adapter === 'local' && b.modelPath) {
      const f = this.d.localModels().find((x) => x.path === b.modelPath);
      if (f) { void this.d.hashes.hash(f).catch(() => null).then(post); return; }
    }
    post(null);
  }
}
