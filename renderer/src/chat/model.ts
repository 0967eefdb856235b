/** The chat as the UI draws it: messages with their tool calls, approvals and notices folded in. */
import type { ApprovalView, MessageView, ReceiptRef } from '../api/types';

/** A tool call and (once it ran) its result. */
export interface ToolCallItem { id: string; name: string; args: string; result: string | null; done: boolean }

/** A notice under a message (guardrail block, retraction, redaction, failures). */
export interface NoticeItem { kind: 'blocked' | 'retract' | 'user_redaction' | 'mcp_failures' | 'error' | 'stopped'; text: string }

/** One message in the list. */
export interface ChatItem {
  /** Stable key: the server id, or a local id while streaming. */
  id: string;
  /** Server message id once known (branching needs it). */
  serverId: string | null;
  role: 'user' | 'assistant';
  content: string;
  reasoning: string;
  turnId: string | null;
  receipt: ReceiptRef | null;
  tools: ToolCallItem[];
  approvals: ApprovalView[];
  notices: NoticeItem[];
  streaming: boolean;
}

/** A blank item. */
export function item(role: ChatItem['role'], id: string, content = ''): ChatItem {
  return { id, serverId: null, role, content, reasoning: '', turnId: null, receipt: null, tools: [], approvals: [], notices: [], streaming: false };
}

/**
 * Stored session messages to chat items: `tool` messages fold into the assistant message whose
 * `tool_calls` named them; an assistant message that only calls tools merges into the next answer.
 */
export function fromStored(messages: MessageView[]): ChatItem[] {
  const out: ChatItem[] = [];
  let pendingTools: ToolCallItem[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      const t = pendingTools.find((x) => x.id === m.tool_call_id) ?? out.at(-1)?.tools.find((x) => x.id === m.tool_call_id);
      if (t) { t.result = m.content; t.done = true; }
      continue;
    }
    const calls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.arguments, result: null, done: true }));
    if (m.role === 'assistant' && !m.content && calls.length) { pendingTools.push(...calls); continue; }
    const it = item(m.role, m.id, m.content);
    it.serverId = m.id;
    it.turnId = m.turn_id;
    it.receipt = m.receipt ?? null;
    if (m.role === 'assistant') { it.tools = [...pendingTools, ...calls]; pendingTools = []; }
    out.push(it);
  }
  if (pendingTools.length) {
    const it = item('assistant', `tools-${pendingTools[0]!.id}`);
    it.tools = pendingTools;
    out.push(it);
  }
  return out;
}
