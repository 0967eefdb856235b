/**
 * Durable conversations (spec "Agent runtime surfaces": `/v1/conversations`; issue 13 item 4):
 * create, list, get, update and delete conversations, list, append, read and delete their items,
 * and the chat side (`ConversationPort`: a chat turn over a conversation reads its items as history
 * and appends its messages as items). Every operation is scoped to the caller's (tenant, user);
 * another user's conversation answers 404 `conversation_not_found` as if absent. With the feature
 * off every operation throws `conversations_disabled` (404).
 *
 * While a run is in progress on a conversation, appending items and chat turns over it answer 409
 * `conversation_busy` (the run appends its answer after the items it read).
 */
import type { ChatRequest, Conversation, ConversationCreate, ConversationDeleted, ConversationItem, ConversationItemPage, ConversationPage, ConversationQuery, ItemInput, ItemQuery } from '../../contracts.js';
import { CONVERSATION_PAGE_DEFAULT } from '../../contracts.js';
import type { PreparedTurn, TurnIdentity, TurnOutcome } from '../chat/turn.js';
import { invalidField, runtimeError } from '../errors.js';
import type { SessionStore } from '../ports.js';
import type { Owner } from '../sessions.js';
import type { BoundConversation, ConversationPort } from './binding.js';
import {
  conversationView, decodeCursor, encodeCursor, itemsFromInput, itemsFromMessages, itemsToHistory, itemView, messageContent, newId, rowExcluded,
} from './items.js';
import type { ConversationRow, ConversationStore, ItemRewrite } from './ports.js';

/** A run in progress: how to stop it and when it has ended. */
export interface ActiveRun {
  runId: string;
  conversationId: string;
  abort: AbortController;
  /** Settles when the run's row holds its final state. */
  done: Promise<void>;
}

/**
 * Runs in progress on every runtime of a scaled-out deployment (issue 21; REDIS_URL): which
 * conversations have a run somewhere, and a way to ask the runtime holding a run to stop it
 * (clients/shared-runs.ts). Absent on the desktop (one runtime: `ActiveRuns` alone knows).
 */
export interface SharedRuns {
  /** Take conversation `conversationId` for run `runId` (renewed by `renew` while it runs). @returns false when a run holds it. */
  claim(conversationId: string, runId: string): Promise<boolean>;
  /** Keep the claim alive (every few seconds while the run goes on). */
  renew(conversationId: string, runId: string): Promise<void>;
  /** Give the claim up (the run ended). */
  release(conversationId: string, runId: string): Promise<void>;
  /** Whether a run holds the conversation on any runtime. */
  busy(conversationId: string): Promise<boolean>;
  /** Conversations with a live run on any runtime (kept at a restart's clean-up). */
  live(): Promise<string[]>;
  /** Ask every runtime to abort run `runId` if it holds it. */
  cancel(runId: string): void;
  /** Called with each run id another runtime asked to cancel. @returns unsubscribe. */
  onCancel(fn: (runId: string) => void): () => void;
  /** How often `renew` runs, ms. */
  readonly renewMs: number;
}

/** The runs in progress in this process, one per conversation at most. */
export class ActiveRuns {
  private readonly byConversation = new Map<string, ActiveRun>();
  private readonly starting = new Set<string>();

  /** @param shared the deployment's run registry (REDIS_URL), or null on the desktop. */
  constructor(readonly shared: SharedRuns | null = null) {
    shared?.onCancel((runId) => this.byId(runId)?.abort.abort());
  }

  /** `assertIdle`, then the same across runtimes. @throws DomainError `conversation_busy`. */
  async assertIdleEverywhere(conversationId: string): Promise<void> {
    this.assertIdle(conversationId);
    if (this.shared && await this.shared.busy(conversationId)) throw runtimeError('conversation_busy', `a run is in progress on conversation ${conversationId}`);
  }

  /** @throws DomainError `conversation_busy` (409) when a run is in progress on the conversation. */
  assertIdle(conversationId: string): void {
    if (this.byConversation.has(conversationId)) throw runtimeError('conversation_busy', `a run is in progress on conversation ${conversationId}`);
  }

  /**
   * Hold the conversation while a run is being set up (its awaits on PostgreSQL let other requests
   * in): a second `reserve` of it throws until `unreserve`. `assertIdle` (appends, chat binds) does
   * not look at reservations, as before the store became async. @throws DomainError `conversation_busy`.
   */
  reserve(conversationId: string): void {
    this.assertIdle(conversationId);
    if (this.starting.has(conversationId)) throw runtimeError('conversation_busy', `a run is in progress on conversation ${conversationId}`);
    this.starting.add(conversationId);
  }

  /** Drop a reservation of `reserve`. */
  unreserve(conversationId: string): void {
    this.starting.delete(conversationId);
  }

  /** Claim the conversation for a run. @throws DomainError `conversation_busy`. */
  claim(run: ActiveRun): void {
    this.assertIdle(run.conversationId);
    this.byConversation.set(run.conversationId, run);
  }

  /** Release a claim. */
  release(run: ActiveRun): void {
    if (this.byConversation.get(run.conversationId) === run) this.byConversation.delete(run.conversationId);
  }

  /** The run in progress with this id, if any. */
  byId(runId: string): ActiveRun | undefined {
    for (const r of this.byConversation.values()) if (r.runId === runId) return r;
    return undefined;
  }

  /** The run in progress on a conversation, if any. */
  of(conversationId: string): ActiveRun | undefined {
    return this.byConversation.get(conversationId);
  }

  /** Abort every run in progress (the runtime is stopping). */
  abortAll(): void {
    for (const r of this.byConversation.values()) r.abort.abort();
  }
}

/** What the conversation service needs. */
export interface ConversationDeps {
  enabled: boolean;
  store: ConversationStore;
  sessions: Pick<SessionStore, 'get' | 'messages'>;
  active: ActiveRuns;
  /** Runs `fn` in one transaction (await only store calls inside it). */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  log: { warn(obj: object, msg: string): void };
}

/** Conversation and item operations, and the chat engine's `ConversationPort`. */
export class ConversationService implements ConversationPort {
  constructor(private readonly d: ConversationDeps) {}

  /** @throws DomainError `conversations_disabled` when the feature is off. */
  assertEnabled(): void {
    if (!this.d.enabled) throw runtimeError('conversations_disabled', 'durable conversations are not enabled (AGENT_RUNTIME_CONVERSATIONS_ENABLED)');
  }

  /** The caller's conversation. @throws DomainError `conversations_disabled`, `conversation_not_found`. */
  async conversation(id: string, o: Owner): Promise<ConversationRow> {
    this.assertEnabled();
    const c = await this.d.store.get(id, o.tenantId, o.userId);
    if (!c) throw runtimeError('conversation_not_found', `no conversation ${id}`);
    return c;
  }

  /** Create a conversation with optional metadata and first items (at most 20). @throws DomainError `invalid_request`. */
  async create(o: Owner, body: ConversationCreate): Promise<Conversation> {
    this.assertEnabled();
    const now = new Date().toISOString();
    const row: ConversationRow = {
      id: newId('conv'), tenant_id: o.tenantId, user_id: o.userId, session_id: null, metadata: JSON.stringify(body.metadata ?? {}), created_at: now, updated_at: now,
    };
    await this.d.store.create(row, itemsFromInput(body.items ?? [], now, 'body.items'));
    return conversationView(row);
  }

  /** The caller's conversations, newest first. @throws DomainError `invalid_request` on a malformed cursor. */
  async list(o: Owner, q: ConversationQuery): Promise<ConversationPage> {
    this.assertEnabled();
    const limit = q.limit ?? CONVERSATION_PAGE_DEFAULT;
    const rows = await this.d.store.list(o.tenantId, o.userId, limit + 1, q.cursor ? decodeCursor('c', q.cursor) : undefined);
    const page = rows.slice(0, limit);
    const out: ConversationPage = { items: page.map(conversationView) };
    if (rows.length > limit) out.next_cursor = encodeCursor('c', page[page.length - 1]!.id);
    return out;
  }

  /** One conversation. */
  async get(id: string, o: Owner): Promise<Conversation> {
    return conversationView(await this.conversation(id, o));
  }

  /** Replace a conversation's metadata. */
  async update(id: string, o: Owner, metadata: Record<string, string>): Promise<Conversation> {
    const c = await this.conversation(id, o);
    await this.d.store.setMetadata(c.id, JSON.stringify(metadata), new Date().toISOString());
    return conversationView({ ...c, metadata: JSON.stringify(metadata) });
  }

  /**
   * Delete a conversation with its items and runs (a run in progress is cancelled first). The chat
   * session its turns ran in stays (it is the user's chat; `DELETE /v1/sessions/{id}` removes it).
   */
  async delete(id: string, o: Owner): Promise<ConversationDeleted> {
    const c = await this.conversation(id, o);
    const run = this.d.active.of(c.id);
    if (run) {
      run.abort.abort();
      await Promise.race([run.done, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    await this.d.store.delete(c.id, o.tenantId, o.userId);
    return { id: c.id, object: 'conversation.deleted', deleted: true };
  }

  /**
   * A page of items: `order` `desc` (default, newest first) or `asc`; `cursor` from `next_cursor`
   * or `after` an item id.
   * @throws DomainError `invalid_request` (malformed cursor, `after` naming no item of the conversation).
   */
  async listItems(id: string, o: Owner, q: ItemQuery): Promise<ConversationItemPage> {
    const c = await this.conversation(id, o);
    const limit = q.limit ?? CONVERSATION_PAGE_DEFAULT;
    let afterSeq: number | undefined;
    if (q.cursor) afterSeq = decodeCursor('i', q.cursor);
    else if (q.after) {
      const it = await this.d.store.item(c.id, q.after);
      if (!it) throw invalidField(`no item ${q.after} in this conversation`, 'querystring.after');
      afterSeq = it.seq;
    }
    const rows = await this.d.store.itemPage({ conversationId: c.id, order: q.order ?? 'desc', limit: limit + 1, ...(afterSeq !== undefined ? { afterSeq } : {}) });
    const page = rows.slice(0, limit);
    const out: ConversationItemPage = { items: page.map(itemView) };
    if (rows.length > limit) out.next_cursor = encodeCursor('i', page[page.length - 1]!.seq);
    return out;
  }

  /**
   * Append items (1-20) at the end.
   * @returns the created items, in order.
   * @throws DomainError `conversation_busy` while a run is in progress, `invalid_request`.
   */
  async appendItems(id: string, o: Owner, items: ItemInput[], turnId: string | null): Promise<ConversationItem[]> {
    const c = await this.conversation(id, o);
    await this.d.active.assertIdleEverywhere(c.id);
    const now = new Date().toISOString();
    const rows = itemsFromInput(items, now, 'body.items', { turn_id: turnId });
    await this.d.store.appendItems(c.id, rows, now);
    return (await this.d.store.items(c.id)).slice(-rows.length).map(itemView);
  }

  /** One item. @throws DomainError `conversation_item_not_found`. */
  async getItem(id: string, itemId: string, o: Owner): Promise<ConversationItem> {
    const c = await this.conversation(id, o);
    const it = await this.d.store.item(c.id, itemId);
    if (!it) throw runtimeError('conversation_item_not_found', `no item ${itemId} in conversation ${c.id}`);
    return itemView(it);
  }

  /** Delete an item. @returns the conversation (OpenAI's answer). @throws DomainError `conversation_item_not_found`. */
  async deleteItem(id: string, itemId: string, o: Owner): Promise<Conversation> {
    const c = await this.conversation(id, o);
    if (!await this.d.store.deleteItem(c.id, itemId)) throw runtimeError('conversation_item_not_found', `no item ${itemId} in conversation ${c.id}`);
    return conversationView(c);
  }

  // ---- ConversationPort (the chat engine) ------------------------------------------------------

  /** See `ConversationPort.bind`. */
  async bind(req: ChatRequest, who: TurnIdentity): Promise<BoundConversation | null> {
    const named = req.conversation_id !== undefined || req.conversation === true;
    if (!this.d.enabled) {
      if (named) this.assertEnabled();
      return null;
    }
    const o = { tenantId: who.tenantId, userId: who.userId };
    let c: ConversationRow | undefined;
    if (req.conversation_id !== undefined) c = await this.conversation(req.conversation_id, o);
    else if (req.session_id !== undefined) c = await this.d.store.bySession(req.session_id, o.tenantId, o.userId);
    if (!c) return req.conversation === true ? { binding: { id: newId('conv'), created: true, history: null }, sessionId: req.session_id ?? null } : null;
    await this.d.active.assertIdleEverywhere(c.id);
    const sessionId = c.session_id && await this.d.sessions.get(c.session_id, o.tenantId, o.userId) ? c.session_id : null;
    if (req.session_id !== undefined && req.session_id !== sessionId) {
      throw invalidField('session_id is not the session of this conversation; send conversation_id alone', 'body.session_id');
    }
    return { binding: { id: c.id, created: false, history: itemsToHistory(await this.d.store.items(c.id)) }, sessionId };
  }

  /** See `ConversationPort.open`: a conversation started over an existing session takes its messages as first items. */
  async open(p: PreparedTurn): Promise<void> {
    const b = p.conversation;
    if (!b?.created) return;
    const now = new Date().toISOString();
    const seed = p.isNew ? [] : itemsFromMessages(await this.d.sessions.messages(p.session.id));
    await this.d.store.create({
      id: b.id, tenant_id: p.who.tenantId, user_id: p.who.userId, session_id: p.isNew ? null : p.session.id, metadata: '{}', created_at: now, updated_at: now,
    }, seed);
  }

  /** See `ConversationPort.record`. */
  async record(p: PreparedTurn, o: TurnOutcome): Promise<void> {
    const b = p.conversation;
    if (!b) return;
    try {
      const rows = await this.d.sessions.messages(p.session.id);
      const at = rows.findIndex((r) => r.id === o.userMessageId);
      if (at < 0) return;
      const inputRows = rows.slice(Math.max(0, at - p.input.length + 1), at + 1);
      const end = o.assistantMessageId ? rows.findIndex((r) => r.id === o.assistantMessageId) : -1;
      const outputRows = end > at ? rows.slice(at + 1, end + 1) : [];
      const now = new Date().toISOString();
      await this.d.tx(async () => {
        const c = await this.d.store.get(b.id, p.who.tenantId, p.who.userId);
        if (!c) return;
        if (c.session_id !== p.session.id) await this.d.store.linkSession(c.id, p.session.id, now);
        if (b.run) {
          const rewrites: ItemRewrite[] = b.run.inputItemIds.slice(0, inputRows.length).map((id, i) => {
            const r = inputRows[i]!;
            const excluded = rowExcluded(r);
            return { id, content: JSON.stringify(messageContent(r)), status: excluded ? 'incomplete' : 'completed', excluded: excluded ? 1 : 0, turn_id: r.turn_id };
          });
          await this.d.store.rewriteItems(c.id, rewrites);
        }
        const items = [...(b.run ? [] : itemsFromMessages(inputRows)), ...itemsFromMessages(outputRows, { run_id: b.run?.id ?? null })];
        if (items.length) await this.d.store.appendItems(c.id, items, now);
      });
    } catch (err) {
      this.d.log.warn({ err, conversation_id: b.id }, 'a turn could not be recorded in its conversation');
    }
  }
}
