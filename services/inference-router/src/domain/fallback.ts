/**
 * The one fallback loop of the router (issue 4: roles with fallback and cooldown), shared by chat
 * completions and embeddings: the candidates are tried in order, each attempt in its own client
 * span; a retryable failure cools the backend down and tries the next; a client error or an abort
 * ends the loop at once; a backend that serves has its cooldown cleared.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { InferenceErrorCode } from '../contracts.js';
import type { CallState } from './generation.js';
import type { DomainLog, SpanAttributes, TraceSpan } from './ports.js';
import type { Cooldowns } from './snapshot.js';
import { UpstreamError, type Backend } from './upstream.js';

/** One run of the loop. */
export interface FallbackPlan<R> {
  /** `chat` or `embeddings`: the attempt spans are named `<op> <provider>/<model>`. */
  op: string;
  /** Backends in try order (already ordered by cooldown). */
  candidates: Backend[];
  /** The call's state: `attempts` and `backend` follow the loop. */
  state: CallState;
  /** Parent of the attempt spans: the request span, else a new root span per attempt. */
  parent: () => TraceSpan;
  /** Attributes set on each attempt span when it starts. */
  attemptAttributes?: (b: Backend, attempt: number) => SpanAttributes;
  /** Record a failed attempt's error on its span and log it (chat does; embeddings do not). */
  reportFailures: boolean;
  /** Run one attempt; throws `UpstreamError` on a failure the loop understands. */
  run: (b: Backend, span: TraceSpan) => Promise<R>;
}

/** How the loop ended. The span of a served attempt is still open (the caller ends it). */
export type FallbackOutcome<R> =
  | { kind: 'served'; backend: Backend; value: R; span: TraceSpan }
  | { kind: 'aborted'; error: UpstreamError }
  | { kind: 'rejected'; error: UpstreamError }
  | { kind: 'exhausted'; errors: UpstreamError[] };

/** What the loop needs. */
export interface FallbackDeps {
  cooldowns: Cooldowns;
  log: DomainLog;
}

/**
 * Try the candidates in order.
 * @throws whatever an attempt throws that is not an `UpstreamError` (its span ends `error`).
 */
export async function tryInOrder<R>(d: FallbackDeps, plan: FallbackPlan<R>): Promise<FallbackOutcome<R>> {
  const st = plan.state;
  const errors: UpstreamError[] = [];
  for (const b of plan.candidates) {
    st.attempts++;
    st.backend = b;
    const span = plan.parent().child(`${plan.op} ${b.providerName}/${b.model}`, 'client');
    if (plan.attemptAttributes) span.set(plan.attemptAttributes(b, st.attempts));
    try {
      const value = await plan.run(b, span);
      d.cooldowns.ok(b);
      return { kind: 'served', backend: b, value, span };
    } catch (err) {
      if (!(err instanceof UpstreamError)) { span.end('error'); throw err; }
      if (plan.reportFailures) span.end('error', { error: err.message, 'error.kind': err.kind }); else span.end('error');
      if (err.kind === 'aborted') return { kind: 'aborted', error: err };
      if (!err.retryable) return { kind: 'rejected', error: err };
      if (plan.reportFailures) d.log.warn({ provider: b.providerName, model: b.model, kind: err.kind, err: err.message }, 'backend failed; trying the next');
      d.cooldowns.fail(b);
      errors.push(err);
    }
  }
  return { kind: 'exhausted', errors };
}

/**
 * The error of a loop in which every candidate failed: `provider_key_missing` (its `chat`
 * situation) when every backend wanted a key it does not have, else `backend_unavailable`.
 * @param what what could not be served, e.g. `model "default"`.
 */
export function exhaustedError(errors: UpstreamError[], what: string): DomainError<InferenceErrorCode> {
  const detail = errors.map((e) => e.message).join('; ');
  if (errors.length > 0 && errors.every((e) => e.kind === 'key_missing')) {
    return new DomainError<InferenceErrorCode>('provider_key_missing', `${what}: ${detail}`, { situation: 'chat' });
  }
  return new DomainError<InferenceErrorCode>('backend_unavailable', `no backend could serve ${what}: ${detail}`);
}
