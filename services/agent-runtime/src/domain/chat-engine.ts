/**
 * One chat turn, end to end (DESIGN.md "Chat turn, end to end"; spec "Chat", "Chat stream events",
 * "Turn events"; issue 5 items 1-4), as its named steps (`chat/`):
 *
 *   (attach: fetch the documents of file parts) -> guard input -> copy attachments into the sandbox
 *   workspace -> persist input -> prefetch context -> build prompt -> model and tool loop
 *   (tool calls: policy auto / ask / deny; `ask` parks the run until the owner decides; up to the
 *   step limit) -> guard output -> persist output (receipt) -> deliver (`done`).
 *
 * Stream events go to an `EventSink` in the spec's order; the JSON route collects them. Turn events
 * `prompt_generated`, `model_invoked`, `model_response`, `tool_called`, `tool_returned` and
 * `turn_failed` go to audit with the prompt, model and tool bodies captured as artifacts (the event
 * payload carries each body's sha256, so the sealed receipt commits to it).
 *
 * Inference failures never throw out of `run`: they end the turn with an `error` event whose code is
 * the router's (or one derived from the text), `backend_unavailable` when no provider answers.
 */
import type { AgentRuntimeErrorCode, ChatRequest, ChatResponse } from '../contracts.js';
import { copyAttachments, resolveAttachments } from './chat/attach-files.js';
import { buildPrompt } from './chat/build-prompt.js';
import { deliverAnswer, deliverBlocked, failTurn } from './chat/deliver.js';
import { guardInput } from './chat/guard-input.js';
import { guardOutput } from './chat/guard-output.js';
import { modelAndToolLoop } from './chat/model-loop.js';
import { persistInput } from './chat/persist-input.js';
import { assistantRow, persistOutput, settleReceipt } from './chat/persist-output.js';
import { prefetchContext, wantsContext } from './chat/prefetch-context.js';
import { prepareTurn } from './chat/prepare.js';
import { runtimeError } from './errors.js';
import { beginTurn, endTurn, nextId, round, type ChatDeps, type EventSink, type PreparedTurn, type Turn, type TurnIdentity, type TurnOutcome } from './chat/turn.js';

export type { ChatDeps, EventSink, PreparedTurn, TurnIdentity, TurnOutcome } from './chat/turn.js';

/** The notice stored and answered for a turn whose input was blocked. */
const BLOCKED_NOTICE = 'This request was blocked by the input guardrail.';

/** What the engine tells when a turn ended (titles of new sessions). */
export interface TurnListener {
  afterTurn(p: PreparedTurn, o: TurnOutcome): void;
}

/** Runs chat turns. */
export class ChatEngine {
  constructor(private readonly d: ChatDeps, private readonly listener: TurnListener | null = null) {}

  /**
   * Validate a request against the caller's sessions and resolve the session (created when absent).
   * Nothing is written yet.
   * @throws DomainError `invalid_request` (last message not the user's, empty text), `session_not_found`.
   */
  prepare(req: ChatRequest, who: TurnIdentity): Promise<PreparedTurn> {
    return prepareTurn(this.d, req, who);
  }

  /**
   * Fetch, as the user, the knowledge documents the turn's file parts name (issue 12 item 7), before
   * the turn starts; the run copies them into the chat's sandbox workspace. A turn without file
   * parts is returned as it is.
   * @throws DomainError `document_not_found` (404), `forbidden`, `payload_too_large`, `service_unavailable`, `invalid_request`.
   */
  async attach(p: PreparedTurn, signal?: AbortSignal): Promise<PreparedTurn> {
    return resolveAttachments(this.d, p, signal);
  }

  /**
   * Run a prepared turn, emitting stream events to `sink`.
   * @param signal aborts the run (client gone): the model call stops, parked approvals are cancelled.
   * @returns the outcome (also for failures, which were emitted as `error`).
   */
  async run(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Promise<TurnOutcome> {
    const o = await this.steps(p, sink, signal);
    if (p.conversation) await this.d.conversations?.record(p, o);
    await this.d.contextRecords?.record(p, o);
    this.listener?.afterTurn(p, o);
    return o;
  }

  /**
   * Run a prepared turn for a JSON answer (no stream events).
   * @returns the `POST /v1/chat` body.
   * @throws DomainError with the failure's code (`client_closed` when `signal` aborted).
   */
  async answer(p: PreparedTurn, signal: AbortSignal): Promise<ChatResponse> {
    const o = await this.run(p, () => {}, signal);
    if (o.status === 'failed') throw runtimeError((o.error?.code ?? 'inference_error') as AgentRuntimeErrorCode, o.error?.message ?? 'chat failed');
    return {
      message: { role: 'assistant', content: o.content, processing_trace: o.trace, receipt: o.receipt },
      session_id: o.sessionId, agent_id: o.agentId, receipt: o.receipt, assistant_message_id: o.assistantMessageId, user_message_id: o.userMessageId,
      ...(p.conversation ? { conversation_id: p.conversation.id } : {}),
    };
  }

  /** The steps of a turn, in order. */
  private async steps(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Promise<TurnOutcome> {
    const d = this.d;
    const turn = beginTurn(p, sink, signal);
    if (p.isNew) sink('session_created', { session_id: p.session.id });
    if (p.conversation?.created) {
      await d.conversations?.open(p);
      sink('conversation_created', { conversation_id: p.conversation.id });
    }

    const guarded = await guardInput(d, turn);
    if (guarded.excluded === null) await copyAttachments(d, turn, guarded.input);
    const history = await persistInput(d, turn, guarded);
    if (guarded.unreachable && d.settings.guardrailFailMode === 'closed') {
      return failTurn(d, turn, 'guardrail_unavailable', 'the input guardrail is unavailable and the runtime fails closed');
    }
    if (guarded.excluded !== null) return this.blocked(turn, guarded.excluded);

    const context = wantsContext(d, guarded.userText) ? await prefetchContext(d, turn, guarded.userText) : null;
    const prompt = await buildPrompt(d, turn, history, guarded.input, context);

    const loop = await modelAndToolLoop(d, turn, prompt);
    if ('outcome' in loop) return loop.outcome;

    let content = loop.final?.content ?? '';
    if (content) {
      const out = await guardOutput(d, turn, content, guarded.userText);
      if ('outcome' in out) return out.outcome;
      content = out.content;
    }

    const receipt = await settleReceipt(d, turn);
    turn.trace.timings.total_ms = round(performance.now() - turn.t0);
    const assistantId = nextId();
    await persistOutput(d, turn, [...loop.persist, assistantRow(turn, assistantId, content, JSON.stringify(turn.trace), receipt)]);
    deliverAnswer(turn, assistantId, receipt, prompt.role);
    return endTurn(turn, 'completed', content, { assistantMessageId: assistantId, receipt });
  }

  /** End a turn whose input the guardrail excluded: store a notice in its place and deliver it. */
  private async blocked(turn: Turn, reason: string): Promise<TurnOutcome> {
    turn.sink('blocked', { reason });
    const assistantId = nextId();
    const receipt = await settleReceipt(this.d, turn);
    turn.trace.timings.total_ms = round(performance.now() - turn.t0);
    await persistOutput(this.d, turn, [assistantRow(turn, assistantId, BLOCKED_NOTICE, JSON.stringify({ ...turn.trace, excluded: true }), receipt)]);
    deliverBlocked(turn, assistantId, receipt);
    return endTurn(turn, 'blocked', BLOCKED_NOTICE, { assistantMessageId: assistantId, receipt });
  }
}
