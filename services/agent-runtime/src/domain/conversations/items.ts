/**
 * Conversation items and the shapes around them (issue 13 item 4), pure: rows -> OpenAI-shaped
 * answers, request items -> rows, a chat session's stored messages -> items (what a turn appends),
 * items -> the history rows the chat engine sends to the model, and the opaque list cursors.
 *
 * History rules: an item the input guardrail excluded never reaches the model; `developer` is sent
 * as `system`; a `function_call` without its `function_call_output` (or an output without its call)
 * is left out, since providers refuse a tool call without its answer.
 */
import {
  ATTACHMENT_DIR, type ChatContentPart, type ChatMessageInput, type Conversation, type ConversationItem, type ConversationRun, type ItemContentPart,
  type ItemInput, type ItemRole, type ReceiptRef,
} from '../../contracts.js';
import { ulidFactory } from '../../../../shared/identity/ulid.js';
import { invalidField } from '../errors.js';
import type { MessageRow } from '../ports.js';
import type { ConversationRow, ItemRow, NewItem, RunRow } from './ports.js';

/** Ids of conversations, items and runs (one monotonic factory: ids sort in creation order). */
const nextUlid = ulidFactory();

/** A new id with its object prefix (`conv`, `msg`, `fc`, `fco`, `run`). */
export function newId(prefix: 'conv' | 'msg' | 'fc' | 'fco' | 'run'): string {
  return `${prefix}_${nextUlid()}`;
}

/** ISO 8601 time -> Unix seconds. */
export function unixSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

/** Conversation row -> answer. */
export function conversationView(r: ConversationRow): Conversation {
  return { id: r.id, object: 'conversation', created_at: unixSeconds(r.created_at), metadata: JSON.parse(r.metadata) as Record<string, string>, session_id: r.session_id };
}

/** Item row -> answer (OpenAI's item fields for its type). */
export function itemView(r: ItemRow): ConversationItem {
  const v: ConversationItem = { id: r.id, type: r.type as ConversationItem['type'], status: r.status as ConversationItem['status'], created_at: unixSeconds(r.created_at) };
  if (r.type === 'message') {
    v.role = r.role as ItemRole;
    v.content = (JSON.parse(r.content ?? '[]') as ItemContentPart[]).map(publicPart);
  } else if (r.type === 'function_call') {
    v.call_id = r.call_id ?? '';
    v.name = r.name ?? '';
    v.arguments = r.arguments ?? '';
  } else {
    v.call_id = r.call_id ?? '';
    v.output = r.output ?? '';
  }
  return v;
}

/** A stored content part without the runtime's own fields (workspace path, copy error). */
function publicPart(p: ItemContentPart & { path?: string; error?: string }): ItemContentPart {
  const { path: _path, error: _error, ...rest } = p;
  return rest;
}

/** Run row + the items it appended -> answer. */
export function runView(r: RunRow, output: ItemRow[]): ConversationRun {
  return {
    id: r.id, object: 'conversation.run', conversation_id: r.conversation_id, status: r.status as ConversationRun['status'], agent_id: r.agent_id,
    created_at: unixSeconds(r.created_at), started_at: r.started_at ? unixSeconds(r.started_at) : null,
    completed_at: r.completed_at ? unixSeconds(r.completed_at) : null, turn_id: r.turn_id, model: r.model, output: output.map(itemView),
    usage: r.usage ? JSON.parse(r.usage) as Record<string, unknown> : null, receipt: r.receipt ? JSON.parse(r.receipt) as ReceiptRef : null,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
  };
}

/** The text part type of a role: what the user side says is `input_text`, the assistant's `output_text`. */
function textType(role: string): 'input_text' | 'output_text' {
  return role === 'assistant' ? 'output_text' : 'input_text';
}

/**
 * Request items -> rows to append (their ids are new; client ids and statuses are ignored).
 * @param field the body path of the list, for error messages (`body.items`).
 * @throws DomainError `invalid_request` for a message without text, image or file.
 */
export function itemsFromInput(input: readonly ItemInput[], now: string, field: string, extra: { run_id?: string | null; turn_id?: string | null } = {}): NewItem[] {
  return input.map((it, i) => {
    const base = { status: 'completed', excluded: 0, run_id: extra.run_id ?? null, turn_id: extra.turn_id ?? null, created_at: now };
    const type = it.type ?? 'message';
    if (type === 'function_call') {
      return { ...base, id: newId('fc'), type, role: null, content: null, call_id: it.call_id!, name: it.name!, arguments: it.arguments!, output: null };
    }
    if (type === 'function_call_output') {
      return { ...base, id: newId('fco'), type, role: null, content: null, call_id: it.call_id!, name: null, arguments: null, output: it.output! };
    }
    const role = it.role ?? 'user';
    const parts: ItemContentPart[] = typeof it.content === 'string' ? [{ type: textType(role), text: it.content }] : (it.content ?? []).map((p) => ({ ...p }));
    if (!parts.some((p) => (p.text ?? '').trim() !== '' || p.type === 'input_image' || p.type === 'input_file')) {
      throw invalidField('a message item needs text, an image or a file', `${field}.${i}.content`);
    }
    return { ...base, id: newId('msg'), type: 'message', role, content: JSON.stringify(parts), call_id: null, name: null, arguments: null, output: null };
  });
}

/** Chat content parts (a stored message's `parts`) -> item content parts. */
function partsFromChat(role: string, parts: readonly ChatContentPart[]): ItemContentPart[] {
  return parts.map((p): ItemContentPart => {
    if (p.type === 'text') return { type: textType(role), text: p.text };
    if (p.type === 'image_url') return { type: 'input_image', image_url: p.image_url.url };
    return { type: 'input_file', file_id: p.document_id, ...(p.filename ? { filename: p.filename } : {}), ...(p.path ? { path: p.path } : {}), ...(p.error ? { error: p.error } : {}) } as ItemContentPart;
  });
}

/** Item content parts -> chat content parts (file parts keep the workspace path they were copied to). */
function partsToChat(parts: readonly (ItemContentPart & { path?: string; error?: string })[]): ChatContentPart[] {
  return parts.map((p): ChatContentPart => {
    if (p.type === 'input_image') return { type: 'image_url', image_url: { url: p.image_url ?? '' } };
    if (p.type === 'input_file') {
      return {
        type: 'file', document_id: p.file_id ?? '', ...(p.filename ? { filename: p.filename } : {}),
        ...(p.path ? { path: p.path } : p.filename && !p.error ? { path: `${ATTACHMENT_DIR}/${p.filename}` } : {}), ...(p.error ? { error: p.error } : {}),
      };
    }
    return { type: 'text', text: p.text ?? '' };
  });
}

/** Whether a stored message was excluded by the input guardrail. */
export function rowExcluded(r: Pick<MessageRow, 'trace'>): boolean {
  return !!r.trace && r.trace.includes('"excluded":true');
}

/** A stored message's content as item content parts. */
export function messageContent(r: Pick<MessageRow, 'role' | 'content' | 'parts'>): ItemContentPart[] {
  return r.parts ? partsFromChat(r.role, JSON.parse(r.parts) as ChatContentPart[]) : [{ type: textType(r.role), text: r.content }];
}

/**
 * A chat session's stored messages -> items: messages stay messages, an assistant message with tool
 * calls becomes its text (when any) and one `function_call` per call, a tool message a `function_call_output`.
 */
export function itemsFromMessages(rows: readonly MessageRow[], extra: { run_id?: string | null } = {}): NewItem[] {
  const out: NewItem[] = [];
  for (const r of rows) {
    const base = { excluded: 0, run_id: extra.run_id ?? null, turn_id: r.turn_id, created_at: r.created_at, name: null, arguments: null, output: null };
    if (r.role === 'tool') {
      out.push({ ...base, id: newId('fco'), type: 'function_call_output', role: null, content: null, call_id: r.tool_call_id ?? '', output: r.content, status: 'completed' });
      continue;
    }
    const calls = r.role === 'assistant' && r.tool_calls ? JSON.parse(r.tool_calls) as Array<{ id: string; name: string; arguments: string }> : [];
    if (calls.length === 0 || r.content.trim() !== '') {
      const excluded = rowExcluded(r);
      out.push({
        ...base, id: newId('msg'), type: 'message', role: r.role, content: JSON.stringify(messageContent(r)), call_id: null,
        status: excluded ? 'incomplete' : 'completed', excluded: excluded ? 1 : 0,
      });
    }
    for (const c of calls) {
      out.push({ ...base, id: newId('fc'), type: 'function_call', role: null, content: null, call_id: c.id, name: c.name, arguments: c.arguments, status: 'completed' });
    }
  }
  return out;
}

/** A history row the engine reads (only the fields `rowsToModelMessages` uses carry meaning). */
function historyRow(item: ItemRow, seq: number, fields: Partial<MessageRow>): MessageRow {
  return {
    id: item.id, session_id: '', seq, role: 'user', content: '', parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: item.turn_id,
    trace: null, receipt: null, created_at: item.created_at, ...fields,
  };
}

/** A message item's content as a chat message's: plain text when it is text only, else parts. */
function chatContent(item: ItemRow): { content: string; parts: ChatContentPart[] | null } {
  const parts = JSON.parse(item.content ?? '[]') as ItemContentPart[];
  const text = parts.filter((p) => p.type === 'input_text' || p.type === 'output_text').map((p) => p.text ?? '').join('\n');
  if (parts.every((p) => p.type === 'input_text' || p.type === 'output_text')) return { content: text, parts: null };
  return { content: text, parts: partsToChat(parts) };
}

/**
 * Items -> the history rows the chat engine sends to the model, in order (see the header for what
 * is left out). Consecutive `function_call` items become one assistant message with tool calls
 * (joined to the assistant message just before them, when there is one).
 */
export function itemsToHistory(items: readonly ItemRow[]): MessageRow[] {
  const answered = new Set(items.filter((i) => i.type === 'function_call_output').map((i) => i.call_id));
  const called = new Map<string, string>();
  const out: MessageRow[] = [];
  for (const it of items) {
    if (it.excluded) continue;
    if (it.type === 'message') {
      const { content, parts } = chatContent(it);
      out.push(historyRow(it, out.length + 1, { role: it.role === 'developer' ? 'system' : it.role ?? 'user', content, parts: parts ? JSON.stringify(parts) : null }));
    } else if (it.type === 'function_call') {
      if (!it.call_id || !answered.has(it.call_id) || called.has(it.call_id)) continue;
      called.set(it.call_id, it.name ?? '');
      const call = { id: it.call_id, name: it.name ?? '', arguments: it.arguments ?? '' };
      const last = out[out.length - 1];
      if (last && last.role === 'assistant') last.tool_calls = JSON.stringify([...(last.tool_calls ? JSON.parse(last.tool_calls) as unknown[] : []), call]);
      else out.push(historyRow(it, out.length + 1, { role: 'assistant', tool_calls: JSON.stringify([call]) }));
    } else if (it.call_id && called.has(it.call_id)) {
      out.push(historyRow(it, out.length + 1, { role: 'tool', content: it.output ?? '', tool_call_id: it.call_id, name: called.get(it.call_id) || null }));
    }
  }
  return out;
}

/** A conversation split for a run: the items before its trailing user messages, and those messages. */
export interface RunSplit {
  history: ItemRow[];
  /** The trailing user messages the guardrail did not exclude (the run's input), in order. */
  input: ItemRow[];
}

/** Split a conversation's items at its trailing user messages (excluded ones are skipped). */
export function splitForRun(items: readonly ItemRow[]): RunSplit {
  let i = items.length;
  while (i > 0 && items[i - 1]!.type === 'message' && items[i - 1]!.role === 'user') i--;
  return { history: items.slice(0, i), input: items.slice(i).filter((it) => !it.excluded) };
}

/** A user message item -> a chat request message (`input_file` parts become chat file parts). */
export function itemToChatInput(item: ItemRow): ChatMessageInput {
  const { content, parts } = chatContent(item);
  return { role: 'user', content: parts ?? content };
}

/** The opaque cursor of a keyset position (an item's seq, or a conversation id). */
export function encodeCursor(kind: 'i' | 'c', value: string | number): string {
  return Buffer.from(`${kind}:${value}`, 'utf8').toString('base64url');
}

/**
 * Read a cursor of `kind`.
 * @throws DomainError `invalid_request` (`querystring.cursor`) when it is not one.
 */
export function decodeCursor(kind: 'i', cursor: string): number;
export function decodeCursor(kind: 'c', cursor: string): string;
export function decodeCursor(kind: 'i' | 'c', cursor: string): number | string {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const value = raw.startsWith(`${kind}:`) ? raw.slice(2) : '';
  if (kind === 'i') {
    if (!/^\d{1,15}$/.test(value)) throw invalidField('cursor is not valid', 'querystring.cursor');
    return Number(value);
  }
  if (!/^conv_[0-9A-Za-z]{10,40}$/.test(value)) throw invalidField('cursor is not valid', 'querystring.cursor');
  return value;
}
