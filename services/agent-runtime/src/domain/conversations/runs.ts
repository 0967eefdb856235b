/**
 * Runs over a durable conversation (issue 13 item 4): `POST /v1/conversations/{id}/runs` runs one
 * chat turn over the conversation through the chat engine (guardrails, context, tools, approvals,
 * turn events and receipt as `POST /v1/chat`), with the conversation's trailing user messages as
 * the turn's input and the items before them as its history; the answer, tool calls and tool
 * results are appended as items (`output`). One run per conversation at a time (409 `conversation_busy`).
 *
 * A run executes within its request, so its turn (the request's `X-Svc-Turn-Id`, stamps and
 * capability token) stays open until it ended and audit seals a receipt that holds all of it;
 * the request answers the run in its final state. Meanwhile `GET .../runs/{run_id}` shows it
 * `in_progress` and `POST .../runs/{run_id}/cancel` (from any request of the owner) stops it:
 * the model call is aborted, parked approvals are cancelled, and the run ends `cancelled`. A client
 * that goes away cancels its run. Runs alive when the runtime stopped are `failed` with
 * `runtime_restarted` at the next start.
 */
import type { ChatRequest, ConversationRun, ConversationRunPage, RunCreate } from '../../contracts.js';
import { CONVERSATION_PAGE_DEFAULT } from '../../contracts.js';
import type { EventSink, PreparedTurn, TurnIdentity, TurnOutcome } from '../chat/turn.js';
import { invalidField, runtimeError } from '../errors.js';
import type { SessionStore } from '../ports.js';
import type { Owner } from '../sessions.js';
import { itemsFromInput, itemsToHistory, itemToChatInput, newId, runView, splitForRun } from './items.js';
import type { ConversationStore, RunEnd, RunRow } from './ports.js';
import type { ActiveRun, ActiveRuns, ConversationService } from './service.js';

/** How long a cancel waits for the run to end before it records `cancelled` itself, ms. */
const CANCEL_WAIT_MS = 5000;

/** The chat engine as runs use it. */
export interface RunEngine {
  prepare(req: ChatRequest, who: TurnIdentity): Promise<PreparedTurn>;
  attach(p: PreparedTurn, signal?: AbortSignal): Promise<PreparedTurn>;
  run(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Promise<TurnOutcome>;
}

/** What runs need. */
export interface RunDeps {
  conversations: ConversationService;
  store: ConversationStore;
  sessions: Pick<SessionStore, 'get'>;
  active: ActiveRuns;
  engine: RunEngine;
  log: { warn(obj: object, msg: string): void };
}

/** The final state of a run from the turn's outcome. */
export function runEnd(o: TurnOutcome, cancelled: boolean): RunEnd {
  const base = {
    model: o.trace.model, usage: JSON.stringify(o.trace.usage), receipt: o.receipt ? JSON.stringify(o.receipt) : null, completed_at: new Date().toISOString(),
  };
  if (o.status === 'completed') return { ...base, status: 'completed', error_code: null, error_message: null };
  if (o.status === 'blocked') return { ...base, status: 'failed', error_code: 'input_blocked', error_message: o.trace.guardrail.reason ?? 'the input guardrail blocked the message' };
  if (cancelled || o.error?.code === 'client_closed') return { ...base, status: 'cancelled', error_code: null, error_message: null };
  return { ...base, status: 'failed', error_code: o.error?.code ?? 'inference_error', error_message: o.error?.message ?? 'the run failed' };
}

/** Start, read and cancel runs. */
export class ConversationRuns {
  constructor(private readonly d: RunDeps) {}

  private async view(r: RunRow): Promise<ConversationRun> {
    return runView(r, await this.d.store.itemsOfRun(r.conversation_id, r.id));
  }

  private async row(conversationId: string, runId: string): Promise<RunRow> {
    const r = await this.d.store.run(conversationId, runId);
    if (!r) throw runtimeError('conversation_run_not_found', `no run ${runId} in conversation ${conversationId}`);
    return r;
  }

  /**
   * Run one turn over the conversation (after appending `body.items`) and answer its final state.
   * @param signal aborts the run (the client went away): it ends `cancelled`.
   * @throws DomainError `conversation_not_found`, `conversation_busy`, `invalid_request` (the
   *   conversation does not end with a user message), `session_not_found`, `document_not_found` ...
   *   (request errors of the chat, before the run exists).
   */
  async start(who: TurnIdentity, conversationId: string, body: RunCreate, signal: AbortSignal): Promise<ConversationRun> {
    const o: Owner = { tenantId: who.tenantId, userId: who.userId };
    const c = await this.d.conversations.conversation(conversationId, o);
    // Reserved up to the claim, so two requests cannot both start a run (the store's awaits may yield).
    this.d.active.reserve(c.id);
    let prepared: PreparedTurn;
    const runId = newId('run');
    // Several runtimes (issue 21): the conversation is also taken in the shared registry, or busy.
    const shared = this.d.active.shared;
    let sharedHeld = false;
    try {
      if (shared && !(sharedHeld = await shared.claim(c.id, runId))) throw runtimeError('conversation_busy', `a run is in progress on conversation ${c.id}`);
      if (body.items?.length) {
        const now = new Date().toISOString();
        await this.d.store.appendItems(c.id, itemsFromInput(body.items, now, 'body.items', { turn_id: who.turnId }), now);
      }
      const split = splitForRun(await this.d.store.items(c.id));
      if (split.input.length === 0) throw invalidField('the conversation must end with a user message to run', 'body.items');
      const sessionId = c.session_id && await this.d.sessions.get(c.session_id, o.tenantId, o.userId) ? c.session_id : undefined;
      const req: ChatRequest = { messages: split.input.map(itemToChatInput), ...(sessionId ? { session_id: sessionId } : {}), ...(body.agent_id ? { agent_id: body.agent_id } : {}) };
      prepared = {
        ...await this.d.engine.prepare(req, who),
        conversation: { id: c.id, created: false, history: itemsToHistory(split.history), run: { id: runId, inputItemIds: split.input.map((i) => i.id) } },
      };
    } catch (err) {
      if (sharedHeld) await shared!.release(c.id, runId).catch(() => undefined);
      throw err;
    } finally {
      this.d.active.unreserve(c.id);
    }
    let finish!: () => void;
    const active: ActiveRun = { runId, conversationId: c.id, abort: new AbortController(), done: new Promise<void>((r) => { finish = r; }) };
    const onClientGone = (): void => active.abort.abort();
    this.d.active.claim(active);
    const renewal = shared ? setInterval(() => { void shared.renew(c.id, runId).catch(() => undefined); }, shared.renewMs) : null;
    renewal?.unref();
    try {
      signal.addEventListener('abort', onClientGone, { once: true });
      if (signal.aborted) active.abort.abort();
      const p = await this.d.engine.attach(prepared, active.abort.signal);
      const now = new Date().toISOString();
      await this.d.store.insertRun({
        id: runId, conversation_id: c.id, tenant_id: o.tenantId, user_id: o.userId, agent_id: p.agentId, status: 'in_progress', turn_id: who.turnId,
        model: null, usage: null, receipt: null, error_code: null, error_message: null, created_at: now, started_at: now, completed_at: null,
      });
      await this.execute(p, active);
      return await this.view(await this.row(c.id, runId));
    } finally {
      signal.removeEventListener('abort', onClientGone);
      this.d.active.release(active);
      if (renewal) clearInterval(renewal);
      if (shared) await shared.release(c.id, runId).catch(() => undefined);
      finish();
    }
  }

  /** Run the turn and record how it ended. Never throws. */
  private async execute(p: PreparedTurn, active: ActiveRun): Promise<void> {
    let end: RunEnd;
    try {
      const o = await this.d.engine.run(p, () => {}, active.abort.signal);
      end = runEnd(o, active.abort.signal.aborted);
    } catch (err) {
      this.d.log.warn({ err, run_id: active.runId }, 'a conversation run failed');
      end = { status: 'failed', model: null, usage: null, receipt: null, error_code: 'internal_error', error_message: 'the run failed', completed_at: new Date().toISOString() };
    }
    await this.d.store.finishRun(active.runId, end);
  }

  /** One run. @throws DomainError `conversation_not_found`, `conversation_run_not_found`. */
  async get(o: Owner, conversationId: string, runId: string): Promise<ConversationRun> {
    const c = await this.d.conversations.conversation(conversationId, o);
    return this.view(await this.row(c.id, runId));
  }

  /** Runs of a conversation, newest first. */
  async list(o: Owner, conversationId: string, limit = CONVERSATION_PAGE_DEFAULT): Promise<ConversationRunPage> {
    const c = await this.d.conversations.conversation(conversationId, o);
    const items: ConversationRun[] = [];
    for (const r of await this.d.store.runs(c.id, limit)) items.push(await this.view(r));
    return { items };
  }

  /**
   * Cancel a run in progress and answer it once it ended (`cancelled`; a run that finished in the
   * meantime answers as it ended). A cancelled run answers as it is.
   * @throws DomainError `conversation_run_not_found`, `conversation_run_finished` (409: completed or failed).
   */
  async cancel(o: Owner, conversationId: string, runId: string): Promise<ConversationRun> {
    const c = await this.d.conversations.conversation(conversationId, o);
    const r = await this.row(c.id, runId);
    if (r.status === 'cancelled') return this.view(r);
    if (r.status === 'completed' || r.status === 'failed') throw runtimeError('conversation_run_finished', `run ${runId} already ended (${r.status})`);
    const active = this.d.active.byId(runId);
    if (active) {
      active.abort.abort();
      await Promise.race([active.done, new Promise((res) => setTimeout(res, CANCEL_WAIT_MS).unref())]);
    } else if (this.d.active.shared) {
      // Several runtimes (issue 21): the runtime holding the run aborts it; wait for its row to end.
      this.d.active.shared.cancel(runId);
      const until = Date.now() + CANCEL_WAIT_MS;
      while (Date.now() < until && (await this.row(c.id, runId)).status === 'in_progress') await new Promise((res) => setTimeout(res, 50));
    }
    await this.d.store.finishRun(runId, { status: 'cancelled', model: null, usage: null, receipt: null, error_code: null, error_message: null, completed_at: new Date().toISOString() });
    return this.view(await this.row(c.id, runId));
  }
}
