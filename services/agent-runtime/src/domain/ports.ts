/**
 * What the runtime's domain needs from the outside, as interfaces (DESIGN.md "Inside a service"):
 * the stores (`store/` implements them over SQLite; a PostgreSQL implementation could stand behind
 * the same shapes: rows are plain values, no statement or database type leaks through) and the
 * peers it calls (`clients/` implements them over HTTP).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { TurnPayloadType } from '../../../shared/events/turn-events.js';
import type { ReceiptRef, ToolDefinition } from '../contracts.js';

// ---- Stores -------------------------------------------------------------------------------------

/** A session row. */
export interface SessionRow {
  id: string; tenant_id: string; user_id: string; agent_id: string; title: string | null; title_source: string;
  folder_id: string | null; branched_from_session: string | null; branched_from_message: string | null;
  message_count: number; created_at: string; updated_at: string;
}

/** A message row (JSON columns as text). */
export interface MessageRow {
  id: string; session_id: string; seq: number; role: string; content: string; parts: string | null; tool_calls: string | null;
  tool_call_id: string | null; name: string | null; turn_id: string | null; trace: string | null; receipt: string | null; created_at: string;
}

/** A message to append (seq is assigned by the store). */
export type NewMessage = Omit<MessageRow, 'seq' | 'session_id'>;

/** A folder row with its session count. */
export interface FolderRow { id: string; tenant_id: string; user_id: string; name: string; created_at: string; updated_at: string; session_count: number }

/** An approval row. */
export interface ApprovalRow {
  id: string; tenant_id: string; user_id: string; session_id: string; agent_id: string; turn_id: string | null; tool: string; call_id: string;
  arguments: string; status: string; reason: string | null; created_at: string; expires_at: string; decided_at: string | null; decided_by: string | null;
}

/** A stored tool policy rule (`agent_id` '' = every agent). */
export interface PolicyRow { tenant_id: string; agent_id: string; tool: string; policy: string; updated_at: string; updated_by: string | null }

/** Session list filter. */
export interface SessionFilter {
  tenantId: string; userId: string; q?: string; folderId?: string | null; limit: number;
  /** Keyset cursor: (updated_at, id) of the last item of the previous page. */
  after?: { updatedAt: string; id: string };
}

/** Sessions and their messages. Every read is scoped by (tenant, user) by the caller. */
export interface SessionStore {
  /** Insert a session and (optionally) its first messages atomically. */
  create(row: SessionRow, messages?: NewMessage[]): Awaitable<void>;
  /** The session if it belongs to (tenant, user). */
  get(id: string, tenantId: string, userId: string): Awaitable<SessionRow | undefined>;
  /** Write back title, folder and agent of a session. @returns whether a row changed. */
  update(row: SessionRow): Awaitable<boolean>;
  /** Set a generated title unless the user (or a generated title) already set one. */
  setGeneratedTitle(id: string, title: string, source: 'fallback' | 'generated'): Awaitable<boolean>;
  /** Delete a session and its messages. @returns whether it existed. */
  delete(id: string, tenantId: string, userId: string): Awaitable<boolean>;
  /** Sessions most recently updated first; `q` matches titles and message text; `folderId` null = in no folder. */
  list(filter: SessionFilter): Awaitable<SessionRow[]>;
  /** Append messages at the end of a session, in order, and touch it. */
  appendMessages(sessionId: string, messages: NewMessage[], now: string): Awaitable<void>;
  /** Every message of a session in order. */
  messages(sessionId: string): Awaitable<MessageRow[]>;
}

/** Folders of a (tenant, user). */
export interface FolderStore {
  create(id: string, tenantId: string, userId: string, name: string, now: string): Awaitable<void>;
  /** A folder with its session count. */
  get(id: string, tenantId: string, userId: string): Awaitable<FolderRow | undefined>;
  /** Folders by name. */
  list(tenantId: string, userId: string): Awaitable<FolderRow[]>;
  /** @returns whether it existed. */
  rename(id: string, tenantId: string, userId: string, name: string, now: string): Awaitable<boolean>;
  /** Delete a folder; its sessions fall back to no folder. @returns whether it existed. */
  delete(id: string, tenantId: string, userId: string): Awaitable<boolean>;
}

/** Approval requests. */
export interface ApprovalStore {
  insert(row: ApprovalRow): Awaitable<void>;
  get(id: string, tenantId: string): Awaitable<ApprovalRow | undefined>;
  /** Move a pending approval to a decided status. @returns false when it was not pending. */
  decide(id: string, tenantId: string, status: string, reason: string | null, at: string, by: string | null): Awaitable<boolean>;
  /** Newest first; `userId` null = the whole tenant, `status` null = any. */
  list(tenantId: string, userId: string | null, status: string | null, limit: number): Awaitable<ApprovalRow[]>;
  /** Cancel every pending approval (runs parked before a restart are gone). @returns how many. */
  cancelPending(at: string): Awaitable<number>;
}

/** Admin tool policy rules. */
export interface PolicyStore {
  list(tenantId: string): Awaitable<PolicyRow[]>;
  /** Insert or replace the rule of (tenant, agent, tool). */
  upsert(tenantId: string, agentId: string, tool: string, policy: string, at: string, by: string | null): Awaitable<void>;
  /** @returns whether it existed. */
  delete(tenantId: string, agentId: string, tool: string): Awaitable<boolean>;
}

// ---- Peers ----------------------------------------------------------------------------------------

/** An OpenAI chat message as sent to the model. */
export interface OpenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | Array<Record<string, unknown>> | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

/** Body of one model call (`model` is a role alias or a model id). */
export interface ModelRequest {
  model: string;
  messages: OpenAiMessage[];
  tools?: ToolDefinition[];
  max_tokens?: number;
  temperature?: number;
}

/** A tool call the model asked for, arguments as the raw JSON text. */
export interface ModelToolCall { id: string; name: string; arguments: string }

/** The assembled answer of one model call. */
export interface ModelResult {
  content: string;
  reasoning: string;
  toolCalls: ModelToolCall[];
  finishReason: string | null;
  /** Model id the router reported, or null. */
  model: string | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
  /** ms from request start to the first content or reasoning delta; null when none came. */
  ttftMs: number | null;
  /** ms of the whole call. */
  latencyMs: number;
}

/** Streaming callbacks of a model call. */
export interface ModelStreamHandlers {
  onToken?(text: string): void;
  onThinking?(text: string): void;
}

/** The inference router. */
export interface ModelPort {
  /**
   * Stream one chat completion, calling `handlers` per delta.
   * @throws InferenceError (domain/inference-errors.ts); an `AbortError` when `signal` aborts.
   */
  stream(body: ModelRequest, headers: Record<string, string>, handlers?: ModelStreamHandlers, signal?: AbortSignal): Promise<ModelResult>;
}

/** One guardrail scanner's finding (spec "Guardrail input check result"). */
export interface ScannerResult { scanner_name: string; is_safe: boolean; risk_score: number; detail: string }

/**
 * A guardrail check result, or `unavailable` with why. `unreachable` is true only when no connection
 * could be made at all (refused, unknown host): the one case AGENT_RUNTIME_GUARDRAIL_FAIL_MODE
 * `open` lets through; a check that was sent but did not finish (timeout, 5xx, no verdict) is not
 * unreachable and refuses the turn (issue 11 item 6).
 */
export type GuardOutcome =
  | { available: true; decision: 'allow' | 'block' | 'redact' | string; reason: string; scanner_results: ScannerResult[]; rewritten_content: string | null }
  | { available: false; why: string; unreachable?: boolean };

/** Scope of a guardrail check. */
export interface GuardScope { tenant_id: string; agent_id?: string }

/** The guardrail. Never throws: failures are `{available: false}`. */
export interface GuardPort {
  input(content: string, scope: GuardScope, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome>;
  /** Check the answer; `opts.systemPrompt` lets the guardrail see a disclosure of it (issue 16 item 5). */
  output(content: string, scope: GuardScope, input: string, headers: Record<string, string>, signal?: AbortSignal, opts?: { systemPrompt?: string | null }): Promise<GuardOutcome>;
  /**
   * Check content that enters the prompt from elsewhere (issue 16 item 4): a retrieved chunk or
   * memory (`document`) or a tool result (`tool`), before the model sees it. Optional: a guardrail
   * without it is not asked.
   */
  content?(content: string, source: 'document' | 'tool', scope: GuardScope, headers: Record<string, string>, signal?: AbortSignal): Promise<GuardOutcome>;
}

/** What one context source contributed: snippets, or why nothing. */
export type ContextOutcome = { available: true; snippets: ContextSnippet[] } | { available: false; why: string };

/**
 * One memory or knowledge chunk: its text, where it came from (`memory:<id>`, a document title), the
 * source's relevance score; a memory's `id`, a chunk's `document_id` and `chunk_index` when the source
 * gave them (the context trace shows them, issue 13 item 5).
 */
export interface ContextSnippet { text: string; source: string; score: number | null; id?: string; document_id?: string; chunk_index?: number }

/** Memory prefetch and knowledge retrieval. Never throws. */
export interface ContextPort {
  /** Memories for the turn: the agent's and the user's shared ones; with `opts.agentOnly` (an agent's memory scope `agent`, issue 17 item 1) the agent's only. */
  memories(query: string, scope: { tenant_id: string; user_id: string; agent_id?: string }, headers: Record<string, string>, opts?: { agentOnly?: boolean }): Promise<ContextOutcome>;
  /** Knowledge chunks the user may read; `filter` narrows them further (an agent's `knowledge`, issue 17 item 1; knowledge's `SearchFilter`). */
  knowledge(query: string, tenantId: string, headers: Record<string, string>, filter?: KnowledgeFilter | null): Promise<ContextOutcome>;
}

/** A narrowing of knowledge retrieval (knowledge's search `filter`): documents with one of the tags, shared with one of the audiences, or among the ids. */
export interface KnowledgeFilter { tags?: string[]; audiences?: string[]; document_ids?: string[] }

/** One recorded event of a turn as audit's replay answers it (the fields the runtime reads). */
export interface RecordedEvent {
  event_id: string;
  payload_type: string;
  emitter_service: string;
  payload: unknown;
  artifacts: Array<{ kind: string; url: string }>;
}

/** The audit service. */
export interface AuditPort {
  /**
   * Store a captured body (`encoding` `base64`: `content` is the base64 of a tool's file, stored as
   * `contentType`). @returns whether audit accepted it; never throws.
   */
  putArtifact(turnId: string, eventId: string, kind: string, content: string, contentType?: string, encoding?: 'utf8' | 'base64'): Promise<boolean>;
  /** The receipt audit holds for a turn, or null (unknown yet, or audit unreachable). */
  receipt(turnId: string): Promise<ReceiptRef | null>;
  /** Recorded events of a turn as the caller may see them; null on 404. @throws Error when unreachable. */
  replay(turnId: string, headers: Record<string, string>): Promise<RecordedEvent[] | null>;
  /** Body of an artifact by its audit URL path. @throws Error when it cannot be fetched. */
  artifact(path: string, headers: Record<string, string>): Promise<string>;
}

/** The turn-event publisher (TurnEventClient's surface the domain uses). */
export interface TurnEvents {
  /** Queue one event (staged in memory until the next `deliver` or send). @returns its event id. */
  emit(turnId: string, principalId: string, payloadType: TurnPayloadType, payload: unknown): string;
  /** Write what is queued to the durable outbox, then deliver it (issue 11 item 7: call before answering). */
  deliver(timeoutMs?: number): Promise<boolean>;
}

/** An attached knowledge document's bytes, as the user may read them (issue 12 item 7). */
export interface DocumentFile {
  document_id: string;
  /** The upload's file name (a text document: its title with `.txt`). */
  filename: string;
  mime: string;
  bytes: number;
  content_base64: string;
}

/** Why an attached document cannot be had: absent or not the user's to read, refused, too large, or the service is away. */
export interface DocumentFailure {
  failure: 'not_found' | 'forbidden' | 'too_large' | 'unavailable';
  message: string;
}

/** Chat file parts: the knowledge document as the user, and the copy into the chat's sandbox workspace as the user. */
export interface AttachmentPort {
  /**
   * The original of a document the caller (whose stamped `headers` these are) may read, or the
   * extracted text for documents without one; at most `maxBytes`. Never throws.
   */
  document(documentId: string, maxBytes: number, headers: Record<string, string>, signal?: AbortSignal): Promise<DocumentFile | DocumentFailure>;
  /**
   * Write `files` into the workspace of the sandbox session (tenant, session) as the caller.
   * @returns null once written, else why not (the sandbox's message). Never throws.
   */
  copy(tenantId: string, sessionId: string, files: Array<{ path: string; content_base64: string }>, headers: Record<string, string>, signal?: AbortSignal): Promise<string | null>;
}
