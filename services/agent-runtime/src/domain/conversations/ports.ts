/**
 * What the conversations domain needs from its store (issue 13 item 4; DESIGN.md "Inside a
 * service": rows are plain values, no statement or database type leaks through, so a PostgreSQL
 * implementation could stand behind the same shape). store/conversations.ts implements it over SQLite.
 */
import type { Awaitable } from '../../../../shared/db/async-store.js';

/** A conversation row (`metadata` is JSON text; times ISO 8601). */
export interface ConversationRow {
  id: string; tenant_id: string; user_id: string; session_id: string | null; metadata: string; created_at: string; updated_at: string;
}

/** An item row (JSON columns as text; `excluded` 1 = the input guardrail excluded it). */
export interface ItemRow {
  id: string; conversation_id: string; seq: number; type: string; role: string | null; content: string | null; call_id: string | null;
  name: string | null; arguments: string | null; output: string | null; status: string; excluded: number; run_id: string | null;
  turn_id: string | null; created_at: string;
}

/** An item to append (seq is assigned by the store). */
export type NewItem = Omit<ItemRow, 'seq' | 'conversation_id'>;

/** What a finished turn writes back over an input item it ran on (guardrail redaction or exclusion). */
export interface ItemRewrite { id: string; content: string; status: string; excluded: number; turn_id: string | null }

/** A run row. */
export interface RunRow {
  id: string; conversation_id: string; tenant_id: string; user_id: string; agent_id: string; status: string; turn_id: string | null;
  model: string | null; usage: string | null; receipt: string | null; error_code: string | null; error_message: string | null;
  created_at: string; started_at: string | null; completed_at: string | null;
}

/** How a run ended (what `finishRun` writes). */
export type RunEnd = Pick<RunRow, 'status' | 'model' | 'usage' | 'receipt' | 'error_code' | 'error_message' | 'completed_at'>;

/** A page of items: `afterSeq` is the keyset cursor (exclusive) in `order`. */
export interface ItemPageQuery { conversationId: string; order: 'asc' | 'desc'; limit: number; afterSeq?: number }

/** Conversations, their items and runs. Every read of a conversation is scoped by (tenant, user) by the caller. */
export interface ConversationStore {
  /** Insert a conversation and (optionally) its first items atomically. */
  create(row: ConversationRow, items?: NewItem[]): Awaitable<void>;
  /** The conversation if it belongs to (tenant, user). */
  get(id: string, tenantId: string, userId: string): Awaitable<ConversationRow | undefined>;
  /** The conversation a chat session backs, if it belongs to (tenant, user). */
  bySession(sessionId: string, tenantId: string, userId: string): Awaitable<ConversationRow | undefined>;
  /** Newest first; `beforeId` is the keyset cursor (exclusive). */
  list(tenantId: string, userId: string, limit: number, beforeId?: string): Awaitable<ConversationRow[]>;
  /** Replace the metadata. @returns whether the row exists. */
  setMetadata(id: string, metadata: string, now: string): Awaitable<boolean>;
  /** Point the conversation at the chat session its turns run in. */
  linkSession(id: string, sessionId: string, now: string): Awaitable<void>;
  /** Delete a conversation with its items and runs. @returns whether it existed. */
  delete(id: string, tenantId: string, userId: string): Awaitable<boolean>;
  /** Append items at the end, in order, and touch the conversation. @returns false when the conversation is gone. */
  appendItems(conversationId: string, items: NewItem[], now: string): Awaitable<boolean>;
  /** Every item of a conversation in order. */
  items(conversationId: string): Awaitable<ItemRow[]>;
  /** One page of items. */
  itemPage(q: ItemPageQuery): Awaitable<ItemRow[]>;
  /** One item of a conversation. */
  item(conversationId: string, itemId: string): Awaitable<ItemRow | undefined>;
  /** @returns whether it existed. */
  deleteItem(conversationId: string, itemId: string): Awaitable<boolean>;
  /** Rewrite input items after the turn that ran on them (redacted text, exclusion). */
  rewriteItems(conversationId: string, rewrites: ItemRewrite[]): Awaitable<void>;
  /** Items a run appended, in order. */
  itemsOfRun(conversationId: string, runId: string): Awaitable<ItemRow[]>;
  insertRun(row: RunRow): Awaitable<void>;
  /** A run of a conversation. */
  run(conversationId: string, runId: string): Awaitable<RunRow | undefined>;
  /** Runs of a conversation, newest first. */
  runs(conversationId: string, limit: number): Awaitable<RunRow[]>;
  /** Record how a run ended unless it is already `cancelled` (`status` cancelled always wins). @returns whether the row changed. */
  finishRun(runId: string, end: RunEnd): Awaitable<boolean>;
  /**
   * Fail every queued or in-progress run (runs alive before a restart are gone), except those of
   * `keepConversations` (runs another runtime of a scaled-out deployment holds). @returns how many.
   */
  failActiveRuns(at: string, code: string, message: string, keepConversations?: readonly string[]): Awaitable<number>;
}
