/**
 * The inference use cases (spec "Inference router"; issue 4): chat completions (plain or streamed)
 * and embeddings. Each call passes the budget gate, resolves `model` (a role alias, `provider/model`
 * or a bare model id) to ordered backends, runs the one fallback loop, and posts a generation record
 * however it ends. Errors are `DomainError`s of the router's table, recorded before they are thrown.
 * A stream is handed to the HTTP layer as pieces plus a `ChatStream` that records its end.
 */
import { DomainError, isDomainError } from '../../../shared/kit/domain-error.js';
import type { ChatRequest, EmbeddingsRequest } from '../contracts.js';
import { budgetGate } from './budget.js';
import { exhaustedError, tryInOrder } from './fallback.js';
import { elapsedMs, startCall, type Caller, type CallState, type GenerationRecorder } from './generation.js';
import type { BudgetSource, DomainLog, Tracer, TraceSpan } from './ports.js';
import type { Cooldowns, Snapshot } from './snapshot.js';
import type { Backend, CompleteResult, StreamPiece, StreamResult, Upstream } from './upstream.js';

/** What the HTTP layer answers beside the body. */
export interface AnswerMeta {
  /** The generation record's id. */
  generationId: string;
  /** `<provider name>/<model>` of the backend that served, or null. */
  route: string | null;
  /** The soft-budget warning, or null. */
  budgetWarning: string | null;
}

/** A streamed chat answer whose provider answered 200. */
export interface ChatStream {
  /** SSE pieces to write as they come (time to first token and usage are taken as they pass). */
  pieces: AsyncIterable<StreamPiece>;
  /**
   * The stream broke after it started: cool the backend down.
   * @returns the final SSE error event's payload `{message, code}`.
   */
  broke(err: unknown): { message: string; code: 'backend_unavailable' };
  /** The stream ended (`ok`, `aborted` by the client, or `error` after `broke`): end its spans and record it. */
  end(status: 'ok' | 'aborted' | 'error'): void;
}

/** How a chat call answered. */
export type ChatOutcome =
  | { kind: 'completion'; meta: AnswerMeta; body: Record<string, unknown> }
  | { kind: 'stream'; meta: AnswerMeta; stream: ChatStream }
  /** The client went away before an answer: 499, no body. */
  | { kind: 'aborted' };

/** What one chat attempt gives back: the stream once the provider answered 200, or the whole completion. */
type ChatServed = { stream: StreamResult } | { complete: CompleteResult };

/** A chat caller: who, plus the abort signal of the client connection (asked for once backends are resolved). */
export interface ChatCaller extends Caller {
  clientSignal: () => AbortSignal;
}

/** What the use cases need. */
export interface InferenceDeps {
  /** The registry snapshot requests are served from. */
  snapshot: () => Snapshot;
  cooldowns: Cooldowns;
  upstream: Upstream;
  budget: BudgetSource;
  recorder: GenerationRecorder;
  tracer: Tracer;
  log: DomainLog;
  /** The status a domain error answers with (the router's error table), for the generation record. */
  statusOf: (err: DomainError) => number;
}

/** Whether a request on the local engine replays exactly (greedy decoding, or a fixed seed). */
export function localDeterministic(req: ChatRequest): boolean {
  return req.temperature === undefined || req.temperature === null || req.temperature === 0 || typeof req.seed === 'number';
}

/** The OpenAI-compatible use cases. */
export class InferenceService {
  constructor(private readonly d: InferenceDeps) {}

  /** Record a failed call and hand back the error to throw. */
  private failed(caller: Caller, st: CallState, err: DomainError): DomainError {
    this.d.recorder.record(caller, st, 'error', this.d.statusOf(err), err.code);
    return err;
  }

  /**
   * Budget gate and model resolution; records and rethrows a `DomainError`.
   * @returns the budget warning and the backends in try order.
   */
  private async prepare(caller: Caller, st: CallState, model: string, filter?: (b: Backend[]) => Backend[]): Promise<{ warning: string | null; candidates: Backend[] }> {
    try {
      const warning = await budgetGate(this.d.budget);
      const r = this.d.snapshot().resolve(model);
      st.role = r.role;
      const ordered = this.d.cooldowns.order(r.backends);
      return { warning, candidates: filter ? filter(ordered) : ordered };
    } catch (err) {
      if (isDomainError(err)) throw this.failed(caller, st, err);
      throw err;
    }
  }

  private parentOf(caller: Caller, op: string): () => TraceSpan {
    return () => caller.span ?? this.d.tracer.start(op, 'server', null);
  }

  private meta(st: CallState, warning: string | null): AnswerMeta {
    return { generationId: st.eventId, route: st.backend ? `${st.backend.providerName}/${st.backend.model}` : null, budgetWarning: warning };
  }

  /** The request the provider refused (not retried): `invalid_request`, keeping a provider's 413 when `keep413`. */
  private refused(err: { message: string; status: number | null }, keep413: boolean): DomainError {
    return new DomainError('invalid_request', err.message, keep413 && err.status === 413 ? { situation: 'upstream_payload_too_large' } : {});
  }

  /**
   * `POST /v1/chat/completions`.
   * @throws DomainError `budget_exceeded`, `role_not_configured`, `role_no_backend`, `model_unknown`,
   *   `provider_key_missing`, `backend_unavailable`, `invalid_request` (the provider refused the request).
   */
  async chat(body: ChatRequest, caller: ChatCaller): Promise<ChatOutcome> {
    const st = startCall(body.model, body.stream === true, localDeterministic(body));
    caller.span?.set({ 'gen_ai.request.model': body.model, stream: st.stream, 'svc.generation_id': st.eventId });
    const { warning, candidates } = await this.prepare(caller, st, body.model);
    const signal = caller.clientSignal();
    const out = await tryInOrder(this.d, {
      op: 'chat', candidates, state: st, parent: this.parentOf(caller, 'chat'), reportFailures: true,
      attemptAttributes: (b, attempt) => ({ 'gen_ai.system': b.adapter, 'gen_ai.request.model': b.model, 'svc.provider_id': b.providerId, attempt }),
      run: (b, span): Promise<ChatServed> => {
        const a = { signal, traceparent: span.traceparent() };
        return st.stream ? this.d.upstream.stream(b, body, a).then((s) => ({ stream: s })) : this.d.upstream.complete(b, body, a).then((c) => ({ complete: c }));
      },
    });
    if (out.kind === 'aborted') { this.d.recorder.record(caller, st, 'aborted', 499, 'client_closed'); return { kind: 'aborted' }; }
    if (out.kind === 'rejected') throw this.failed(caller, st, this.refused(out.error, true));
    if (out.kind === 'exhausted') throw this.failed(caller, st, exhaustedError(out.errors, `model "${body.model}"`));
    const { value, span } = out;
    if ('stream' in value) {
      st.providerVersion = value.stream.providerVersion;
      return { kind: 'stream', meta: this.meta(st, warning), stream: this.streamOf(caller, st, value.stream.pieces, span) };
    }
    const cr = value.complete;
    st.providerVersion = cr.providerVersion; st.usage = cr.usage; st.ttftMs = elapsedMs(st.t0);
    span.end('ok', { 'gen_ai.usage.input_tokens': cr.usage?.prompt_tokens ?? null, 'gen_ai.usage.output_tokens': cr.usage?.completion_tokens ?? null });
    this.d.recorder.record(caller, st, 'ok', 200, null);
    return { kind: 'completion', meta: this.meta(st, warning), body: cr.body };
  }

  private streamOf(caller: Caller, st: CallState, source: AsyncIterable<StreamPiece>, attempt: TraceSpan): ChatStream {
    async function* pieces(): AsyncIterable<StreamPiece> {
      for await (const p of source) {
        if (p.content && st.ttftMs === null) st.ttftMs = elapsedMs(st.t0);
        if (p.usage) st.usage = p.usage;
        yield p;
      }
    }
    return {
      pieces: pieces(),
      broke: (err) => {
        this.d.cooldowns.fail(st.backend!);
        const msg = err instanceof Error ? err.message : String(err);
        return { message: `the stream from ${st.backend!.providerName} broke: ${msg}`, code: 'backend_unavailable' };
      },
      end: (status) => {
        attempt.end(status === 'error' ? 'error' : 'ok', { 'gen_ai.usage.input_tokens': st.usage?.prompt_tokens ?? null, 'gen_ai.usage.output_tokens': st.usage?.completion_tokens ?? null, outcome: status });
        caller.span?.end(status === 'error' ? 'error' : 'ok', { 'http.status_code': 200, outcome: status });
        const code = status === 'aborted' ? 'client_closed' : status === 'error' ? 'backend_unavailable' : null;
        this.d.recorder.record(caller, st, status, 200, code);
      },
    };
  }

  /**
   * `POST /v1/embeddings` (never served by the local engine).
   * @throws DomainError as `chat`; `invalid_request` when only the local engine serves the model.
   */
  async embeddings(body: EmbeddingsRequest, caller: Caller): Promise<{ meta: AnswerMeta; body: Record<string, unknown> }> {
    const st = startCall(body.model, false, false);
    const { warning, candidates } = await this.prepare(caller, st, body.model, (bs) => {
      const remote = bs.filter((b) => b.adapter !== 'local');
      if (remote.length === 0) throw new DomainError('invalid_request', `model "${body.model}" is served by the local engine, which does not compute embeddings`);
      return remote;
    });
    const out = await tryInOrder(this.d, {
      op: 'embeddings', candidates, state: st, parent: this.parentOf(caller, 'embeddings'), reportFailures: false,
      run: (b, span) => this.d.upstream.embed(b, body, span.traceparent()),
    });
    // Embeddings carry no client signal, so an abort is only ever a refused request here.
    if (out.kind === 'aborted' || out.kind === 'rejected') throw this.failed(caller, st, this.refused(out.error, false));
    if (out.kind === 'exhausted') throw this.failed(caller, st, exhaustedError(out.errors, `embeddings model "${body.model}"`));
    st.usage = out.value.usage;
    st.ttftMs = elapsedMs(st.t0);
    out.span.end('ok');
    this.d.recorder.record(caller, st, 'ok', 200, null);
    return { meta: this.meta(st, warning), body: out.value.body };
  }
}
