/**
 * How a chat turn meets a durable conversation (issue 13 item 4; spec "Chat stream events":
 * `conversation_created`): the port the chat engine calls, and what a prepared turn carries.
 *
 * - `bind` (when the turn is prepared, nothing written): a request naming `conversation_id`, or a
 *   `session_id` whose session backs a conversation, runs over that conversation: its items are the
 *   model's history and its session is the turn's session. `conversation: true` starts one.
 * - `open` (when the turn begins): creates a conversation the turn starts; the engine then emits
 *   `conversation_created {conversation_id}` right after `session_created`.
 * - `record` (when the turn ended): appends the turn's messages, tool calls and answer as items
 *   (a run's input items, already stored, get the guardrail's redaction or exclusion instead).
 */
import type { ChatRequest } from '../../contracts.js';
import type { TurnIdentity, PreparedTurn, TurnOutcome } from '../chat/turn.js';
import { runtimeError } from '../errors.js';
import type { MessageRow } from '../ports.js';

/** The conversation a prepared turn runs over. */
export interface ConversationBinding {
  id: string;
  /** The turn starts this conversation (created by `open`, announced by `conversation_created`). */
  created: boolean;
  /** The model's history: the conversation's items as stored messages; null = the session's own messages. */
  history: MessageRow[] | null;
  /** Set for a run: its id and the stored input items it runs on, in order. */
  run?: { id: string; inputItemIds: string[] };
}

/** What `bind` resolved: the binding and the session the turn runs in (null = a new session). */
export interface BoundConversation {
  binding: ConversationBinding;
  sessionId: string | null;
}

/** The conversations side of a chat turn. */
export interface ConversationPort {
  /**
   * Resolve the conversation of a chat request, or null when the turn runs over none.
   * @throws DomainError `conversations_disabled` (404), `conversation_not_found` (404),
   *   `conversation_busy` (409, a run is in progress), `invalid_request` (session of another conversation).
   */
  bind(req: ChatRequest, who: TurnIdentity): Promise<BoundConversation | null>;
  /** Create the conversation a turn starts (`binding.created`). */
  open(p: PreparedTurn): Promise<void>;
  /** Append what the turn stored to its conversation. Never throws (a failure is logged). */
  record(p: PreparedTurn, o: TurnOutcome): Promise<void>;
}

/**
 * `bind` through the port, or, without one, refuse a request that names a conversation.
 * @throws DomainError as `ConversationPort.bind`; `conversations_disabled` without a port.
 */
export async function bindConversation(port: ConversationPort | undefined, req: ChatRequest, who: TurnIdentity): Promise<BoundConversation | null> {
  if (port) return port.bind(req, who);
  if (req.conversation_id !== undefined || req.conversation === true) throw runtimeError('conversations_disabled', 'durable conversations are not enabled (AGENT_RUNTIME_CONVERSATIONS_ENABLED)');
  return null;
}
