/**
 * The chat stream's events (spec "Chat stream events"): payloads keyed by event name, in the
 * order the spec gives. The stream is `text/event-stream`; each record is `event: <name>` and
 * `data: <json payload>`.
 */
import type { ApprovalView } from './approvals.js';
import type { ReceiptRef } from './chat.js';

/** Payloads of the chat stream events, keyed by event name. */
export interface StreamEventMap {
  session_created: { session_id: string };
  /** The turn started a durable conversation (`conversation: true`; issue 13 item 4). */
  conversation_created: { conversation_id: string };
  thinking: { content: string };
  token: { content: string };
  tool_call: { tool: string; arguments: unknown; call_id?: string };
  /** `result` cut to 2,000 characters (spec "Limits"). */
  tool_result: { tool: string; result: string; call_id?: string; child_run_id?: string };
  /**
   * A tool's side output keyed by `call_id`: files a call produced as ONE `{call_id, artifacts:
   * ToolFileRef[]}` (issue 12), a `{type: "citations", tool, citations}` list, or a tool's own metadata.
   */
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
