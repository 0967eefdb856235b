/**
 * Public surface of the agent runtime (DESIGN.md "Inside a service": `contracts.ts`): its config
 * slice, request and response shapes, stream events, tool plug-in interface and error codes.
 * Other services and the renderer import types from here only.
 *
 * Routes (spec "Chat", "Agent runtime surfaces", "Audit and receipts"; all need a stamped principal):
 * - `POST /v1/chat` body `ChatRequest` -> 200 `ChatResponse`
 * - `POST /v1/chat/stream` body `ChatRequest` -> 200 `text/event-stream` of `StreamEvent`s
 * - `/v1/sessions` (POST, GET ?q&folder_id&limit&cursor), `/v1/sessions/{id}` (GET, PATCH, DELETE),
 *   `POST /v1/sessions/{id}/branch`, `POST /v1/sessions/{id}/title`, `PUT /v1/sessions/{id}/folder`
 * - `/v1/folders` (POST, GET), `/v1/folders/{id}` (GET, PATCH, DELETE)
 * - `GET /v1/user/approvals?status`, `POST /v1/user/approvals/{id}/approve|reject`, `GET /v1/admin/approvals?status`
 * - `GET /v1/admin/policies/tools`, `PUT|DELETE /v1/admin/policies/tools/{tool}` (admin)
 * - `GET /v1/tools` (tools visible to the caller with their effective policy)
 * - `POST /v1/audit/turns/{turn_id}/replay/live` -> 200 `LiveReplayResponse`
 */
import type { CommonServiceConfig } from '../../shared/config.js';

/** Per-tool approval policy (issue 5 item 3): run at once, ask the user first, or never run. */
export type ToolPolicy = 'auto' | 'ask' | 'deny';

/** One policy rule. Absent tenant/agent = any; `tool` may be `*`. The most specific rule wins. */
export interface ToolPolicyRule {
  tool: string;
  policy: ToolPolicy;
  tenant_id?: string;
  agent_id?: string;
}

/** What to do when the guardrail cannot be reached: allow and record it, or refuse the turn. */
export type GuardrailFailMode = 'open' | 'closed';

/** Settings of the runtime (main/config/services/agent-runtime.ts reads them from the environment). */
export interface AgentRuntimeSettings {
  /** Model calls per turn before the loop stops offering tools (AGENT_RUNTIME_MAX_TOOL_STEPS, default 8). */
  maxToolSteps: number;
  /** Prompt budget in estimated tokens for history + input (AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS, default 8192). */
  contextBudgetTokens: number;
  /** Tokens kept free for the answer inside the budget (AGENT_RUNTIME_RESPONSE_RESERVE_TOKENS, default 1024). */
  responseReserveTokens: number;
  /** How long a parked run waits for a decision, seconds (AGENT_RUNTIME_APPROVAL_TIMEOUT_SECONDS, default 600). */
  approvalTimeoutSeconds: number;
  /** AGENT_RUNTIME_GUARDRAIL_FAIL_MODE, default `open` (spec-compatible fail-open, recorded in the trace). */
  guardrailFailMode: GuardrailFailMode;
  /** Base rules (AGENT_RUNTIME_TOOL_POLICY, JSON); admin rules stored in the runtime override them. */
  toolPolicy: ToolPolicyRule[];
  /** System prompt prepended to every turn (AGENT_RUNTIME_SYSTEM_PROMPT), or null. */
  systemPrompt: string | null;
  /** Agent id when a request names none (AGENT_RUNTIME_DEFAULT_AGENT_ID, default `default`). */
  defaultAgentId: string;
  /** Timeout of one model call, seconds (AGENT_RUNTIME_MODEL_TIMEOUT_SECONDS, default 120). */
  modelTimeoutSeconds: number;
  /** Generate session titles through the `title` role (AGENT_RUNTIME_TITLES, default true). */
  titleGeneration: boolean;
  /** Memory prefetch and knowledge retrieval before the model call (AGENT_RUNTIME_CONTEXT_PREFETCH, default true). */
  contextPrefetch: boolean;
  /** Timeout of guardrail, memory and knowledge calls, ms (AGENT_RUNTIME_SIDECAR_TIMEOUT_MS, default 3000). */
  sidecarTimeoutMs: number;
}

/** The runtime's config slice: common settings plus `AgentRuntimeSettings` (any missing one takes its default). */
export type AgentRuntimeConfig = CommonServiceConfig & Partial<AgentRuntimeSettings>;

/** Defaults of every setting. */
export const DEFAULT_RUNTIME_SETTINGS: Readonly<AgentRuntimeSettings> = Object.freeze({
  maxToolSteps: 8,
  contextBudgetTokens: 8192,
  responseReserveTokens: 1024,
  approvalTimeoutSeconds: 600,
  guardrailFailMode: 'open',
  toolPolicy: [],
  systemPrompt: null,
  defaultAgentId: 'default',
  modelTimeoutSeconds: 120,
  titleGeneration: true,
  contextPrefetch: true,
  sidecarTimeoutMs: 3000,
});

/** A multimodal content part over HTTP (OpenAI chat format). */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

/** One input message (spec "Chat request and response"). */
export interface ChatMessageInput {
  role: 'system' | 'user' | 'assistant';
  content: string | ChatContentPart[];
}

/**
 * Body of `POST /v1/chat` and `/v1/chat/stream`. `tenant_id` and `user_id` are ignored: the
 * stamped principal decides. With `session_id`, `messages` are the new messages of this turn
 * (history comes from the session); without, a session is created from them. The last message
 * must be the user's.
 */
export interface ChatRequest {
  messages: ChatMessageInput[];
  session_id?: string;
  agent_id?: string;
  tenant_id?: string;
  user_id?: string;
}

/** The receipt of a turn as chat answers carry it (spec "Receipt"); `sealed` turns true later. */
export interface ReceiptRef {
  /** Receipt ULID, when audit already knows the turn. */
  id?: string;
  turn_id: string;
  tier: 'attestable';
  status: 'pending' | 'sealed' | 'verified';
  sealed: boolean;
  receipt_url: string;
  proof_url: string;
  bundle_url: string;
}

/** What the runtime records about how it answered (spec: `message.processing_trace`). */
export interface ProcessingTrace {
  turn_id: string | null;
  agent_id: string;
  model_role: string;
  model: string | null;
  steps: number;
  guardrail: { input: string; output: string; reason?: string };
  context: { memories: number | 'unavailable' | 'disabled'; knowledge: number | 'unavailable' | 'disabled' };
  history: { messages_sent: number; messages_trimmed: number; estimated_tokens: number };
  tool_calls: Array<{ tool: string; call_id: string; policy: ToolPolicy; status: string; approval_id?: string }>;
  usage: { prompt_tokens: number; completion_tokens: number };
  timings: { ttft_ms: number | null; total_ms: number };
  error?: { code: string; message: string };
}

/** 200 body of `POST /v1/chat` (spec "Chat request and response"). */
export interface ChatResponse {
  message: { role: 'assistant'; content: string; processing_trace: ProcessingTrace; receipt: ReceiptRef | null };
  session_id: string;
  agent_id: string;
  receipt: ReceiptRef | null;
  assistant_message_id: string | null;
  user_message_id: string;
}

/** An approval request as listed and as carried by `approval_required`. */
export interface ApprovalView {
  id: string;
  session_id: string;
  agent_id: string;
  turn_id: string | null;
  user_id: string;
  tool: string;
  call_id: string;
  arguments: unknown;
  status: 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';
  reason: string | null;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
}

/** Payloads of the chat stream events (spec "Chat stream events"), keyed by event name. */
export interface StreamEventMap {
  session_created: { session_id: string };
  thinking: { content: string };
  token: { content: string };
  tool_call: { tool: string; arguments: unknown; call_id?: string };
  /** `result` cut to 2,000 characters (spec "Limits"). */
  tool_result: { tool: string; result: string; call_id?: string; child_run_id?: string };
  artifact: { call_id: string } & Record<string, unknown>;
  approval_required: { session_id: string; agent_id: string; approvals: ApprovalView[]; content?: string };
  trace_update: { patch: Record<string, unknown> };
  blocked: { reason: string };
  retract: { reason: string; original_length: number };
  user_redaction: { display_content: string; categories_scrubbed: string[]; entities_redacted: number };
  mcp_failures: { failures: Array<{ server_id: string; server_name: string; error: string }> };
  done: {
    session_id: string; agent_id: string; receipt?: ReceiptRef | null; routing?: Record<string, unknown>;
    assistant_message_id?: string | null; user_message_id?: string;
  };
  error: { message: string; code?: string };
}

/** A stream event name. */
export type StreamEventName = keyof StreamEventMap;

/** Longest `tool_result.result` in the stream, characters (spec "Limits"). */
export const TOOL_RESULT_STREAM_LIMIT = 2000;

/** A session (spec "Agent runtime surfaces": sessions). */
export interface SessionView {
  id: string;
  agent_id: string;
  title: string | null;
  folder_id: string | null;
  branched_from: { session_id: string; message_id: string } | null;
  message_count: number;
  created_at: string;
  updated_at: string;
}

/** A stored message as `GET /v1/sessions/{id}` lists it. */
export interface MessageView {
  id: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  parts?: ChatContentPart[];
  tool_calls?: Array<{ id: string; name: string; arguments: string }>;
  tool_call_id?: string;
  name?: string;
  turn_id: string | null;
  processing_trace?: ProcessingTrace;
  receipt?: ReceiptRef;
  created_at: string;
}

/** A folder (spec "Agent runtime surfaces": folders). */
export interface FolderView {
  id: string;
  name: string;
  session_count: number;
  created_at: string;
  updated_at: string;
}

/** An OpenAI function-tool schema, as tool modules export it. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What a tool sees of the turn that calls it. */
export interface ToolContext {
  tenantId: string;
  userId: string;
  agentId: string;
  sessionId: string;
  turnId: string | null;
  callId: string;
  /** Gateway-stamped headers of the turn (x-svc-principal, x-svc-turn-id, x-svc-cap-token), to call peers as the user. */
  headers: Record<string, string>;
  /** Base URLs of every service. */
  serviceUrls: CommonServiceConfig['serviceUrls'];
  signal: AbortSignal;
}

/** A tool's answer: plain text, or text plus artifacts (plots, files) announced as `artifact` events. */
export type ToolResult = string | { content: string; artifacts?: Array<Record<string, unknown>> };

/**
 * A tool plug-in (issue 5 item 3): memory, knowledge, sandbox and MCP tools export this shape
 * (`services/<svc>/src/tools.ts`: `{definition, execute(args, ctx)}`). `execute` may throw; the
 * message goes back to the model as the tool's result.
 */
export interface ToolModule {
  definition: ToolDefinition;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> | ToolResult;
  /** Policy when no rule names the tool (default `auto`). */
  defaultPolicy?: ToolPolicy;
}

/** One compared step of a live replay. */
export interface LiveReplayStep {
  step: number;
  recorded_event_id: string;
  recorded: { model: string | null; content: string; tool_calls: Array<{ name: string; arguments: string }> };
  live: { model: string | null; content: string; tool_calls: Array<{ name: string; arguments: string }> } | null;
  identical: boolean;
  /** Word-level similarity of the two answers, 0..1 (LCS ratio). */
  similarity: number;
  error?: { code: string; message: string };
}

/** 200 body of `POST /v1/audit/turns/{turn_id}/replay/live`. */
export interface LiveReplayResponse {
  turn_id: string;
  /** The turn the replay itself ran under (it has its own receipt). */
  replay_turn_id: string | null;
  steps: LiveReplayStep[];
  identical: boolean;
  similarity: number;
}

/** Error codes of the runtime beyond the shared ones. */
export type RuntimeErrorCode =
  | 'session_not_found' | 'folder_not_found' | 'message_not_found' | 'approval_not_found'
  | 'approval_decided' | 'turn_not_found' | 'replay_unavailable' | 'guardrail_unavailable' | 'input_blocked'
  // inference codes (spec "Errors"), passed through from the router or derived
  | 'provider_key_missing' | 'role_not_configured' | 'role_no_backend' | 'model_unknown' | 'backend_unavailable'
  | 'budget_exceeded' | 'inference_error';
