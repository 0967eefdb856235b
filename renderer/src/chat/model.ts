/** The chat as the UI draws it: messages with their tool calls, approvals and notices folded in. */
import type { ApprovalView, Citation, MessageView, ReceiptRef } from '../api/types';
import type { ArtifactRef } from './sandbox-result';

/**
 * A tool call and (once it ran) its result. `artifacts`: files the call produced as the live stream
 * announced them (`artifact` events keyed by call id, with their audit URLs); absent when none came.
 */
export interface ToolCallItem { id: string; name: string; args: string; result: string | null; done: boolean; artifacts?: ArtifactRef[] }

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
  /** Sources the answer may cite as [n] (knowledge_search results), in the order the tool numbered them. */
  citations: Citation[];
  streaming: boolean;
}

/** A blank item. */
export function item(role: ChatItem['role'], id: string, content = ''): ChatItem {
  return { id, serverId: null, role, content, reasoning: '', turnId: null, receipt: null, tools: [], approvals: [], notices: [], citations: [], streaming: false };
}

/** Add `more` to `list`, skipping a source already listed under the same number. */
export function mergeCitations(list: Citation[], more: Citation[]): Citation[] {
  const seen = new Set(list.map((c) => `${c.index}:${c.document_id}:${c.chunk_index}`));
  const add = more.filter((c) => !seen.has(`${c.index}:${c.document_id}:${c.chunk_index}`));
  return add.length ? [...list, ...add] : list;
}

/**
 * Citations of stored tool calls: the live stream carries them as an `artifact` event, but a
 * stored session keeps only the tool's result, whose passages carry the same numbering
 * (services/knowledge/src/tools.ts: `{passages: [{cite: "[1]", title, document_id, chunk_index}]}`).
 */
export function citationsOf(tools: ToolCallItem[]): Citation[] {
  let out: Citation[] = [];
  for (const t of tools) {
    if (t.name !== 'knowledge_search' || !t.result) continue;
    try {
      const r = JSON.parse(t.result) as { passages?: Array<{ cite?: string; title?: string; document_id?: string; chunk_index?: number }> };
      const found = (r.passages ?? []).flatMap((p): Citation[] => {
        const n = /^\[(\d+)\]$/.exec(p.cite ?? '');
        return n && p.document_id ? [{ index: Number(n[1]), document_id: p.document_id, document_title: p.title ?? 'Document', chunk_index: p.chunk_index ?? 0 }] : [];
      });
      out = mergeCitations(out, found);
    } catch { /* not JSON: no citations */ }
  }
  return out;
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
    if (m.role === 'assistant') { it.tools = [...pendingTools, ...calls]; pendingTools = []; it.citations = citationsOf(it.tools); }
    out.push(it);
  }
  if (pendingTools.length) {
    const it = item('assistant', `tools-${pendingTools[0]!.id}`);
    it.tools = pendingTools;
    out.push(it);
  }
  return out;
}
