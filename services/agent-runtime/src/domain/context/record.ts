/**
 * The context record of a finished turn (issue 13 item 5), built from its journal (journal.ts) and
 * outcome. Pure. Tokens per part use the runtime's own estimator (domain/history.ts, the one that
 * enforces AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS), so the parts add up to the prompt's estimate.
 * Bounded: texts are cut with a marker, lists keep their first `CONTEXT_ITEMS_MAX` items (history:
 * the newest), and a record still over `CONTEXT_RECORD_MAX_BYTES` loses its texts, then its items.
 */
import {
  CONTEXT_ITEM_TEXT_MAX, CONTEXT_ITEMS_MAX, CONTEXT_PREVIEW_MAX, CONTEXT_RECORD_MAX_BYTES, CONTEXT_TEXT_MAX,
  type ContextItem, type ContextPart, type ContextPartKind, type ContextRecord, type ContextStep, type ProcessingTrace,
} from '../../contracts.js';
import { MESSAGE_OVERHEAD_TOKENS, messageTokens, textTokens } from '../history.js';
import type { ContextOutcome, OpenAiMessage } from '../ports.js';
import type { JournalStep, NamedPart, PrefetchNote, TurnJournal } from './journal.js';

/** Longest string value kept in a step's detail, characters. */
const DETAIL_TEXT_MAX = 500;

/** What the record is built from. */
export interface RecordInput {
  turnId: string;
  sessionId: string;
  agentId: string;
  status: ContextRecord['status'];
  assistantMessageId: string | null;
  trace: ProcessingTrace;
  journal: TurnJournal;
  /** The budget the history is trimmed to (used when no prompt was built). */
  budgetTokens: number;
  now: Date;
}

/**
 * `text` cut to `max` characters with `…[cut N characters]` at the end.
 * @returns the text as it is when it fits.
 */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[cut ${text.length - max} characters]`;
}

/** The text of a message's content (text parts joined; an image counts as `[image]`). */
export function messageText(m: OpenAiMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (!Array.isArray(m.content)) return m.tool_calls?.map((c) => `${c.function.name}(${c.function.arguments})`).join('\n') ?? '';
  return m.content.map((p) => (p.type === 'image_url' ? '[image]' : String((p as { text?: unknown }).text ?? ''))).join('\n');
}

/** The kind of a named system part of the prompt builder. */
export function partKind(name: string): ContextPartKind {
  if (name.includes('profile')) return 'profile';
  if (name.includes('skill')) return 'skills';
  if (name.includes('memor')) return 'memory';
  if (name.includes('knowledge')) return 'knowledge';
  return 'system';
}

function capped<T>(list: T[], fromEnd = false): { items: T[]; omitted: number } {
  if (list.length <= CONTEXT_ITEMS_MAX) return { items: list, omitted: 0 };
  return { items: fromEnd ? list.slice(-CONTEXT_ITEMS_MAX) : list.slice(0, CONTEXT_ITEMS_MAX), omitted: list.length - CONTEXT_ITEMS_MAX };
}

function listPart(name: string, kind: ContextPartKind, tokens: number, items: ContextItem[], extra: Partial<ContextPart> = {}): ContextPart {
  const c = capped(items);
  return { name, kind, tokens, state: items.length ? 'included' : 'empty', items: c.items, ...(c.omitted ? { items_omitted: c.omitted } : {}), ...extra };
}

/** Memory items of a prefetch outcome (`source` `memory:<id>`). */
function memoryItems(o: ContextOutcome): ContextItem[] {
  if (!o.available) return [];
  return o.snippets.map((s) => {
    const id = s.id ?? (s.source.startsWith('memory:') ? s.source.slice('memory:'.length) : '');
    return { ...(id ? { id } : {}), text: cutText(s.text, CONTEXT_ITEM_TEXT_MAX), score: s.score };
  });
}

/** Knowledge chunk items of a prefetch outcome. */
function chunkItems(o: ContextOutcome): ContextItem[] {
  if (!o.available) return [];
  return o.snippets.map((s) => ({
    ...(s.document_id ? { document_id: s.document_id } : {}), document_title: s.source,
    ...(s.chunk_index !== undefined ? { chunk_index: s.chunk_index } : {}), text: cutText(s.text, CONTEXT_ITEM_TEXT_MAX), score: s.score,
  }));
}

/** Why a prefetch source gave nothing: the trace's `disabled` / `unavailable`, else nothing matched. */
function emptyState(traced: number | string, o: ContextOutcome | undefined): Pick<ContextPart, 'state' | 'detail'> {
  if (traced === 'disabled') return { state: 'disabled', detail: 'context prefetch is off or the message had no text' };
  // The source's own reason (addresses, ports) stays in the logs: the record is shown to the user.
  if (traced === 'unavailable' || (o && !o.available)) return { state: 'unavailable', detail: 'the source did not answer' };
  return { state: 'empty', detail: 'nothing relevant was found' };
}

/**
 * The memory and knowledge parts: from the prefetch's context message when it was sent (its tokens
 * split between the two blocks), else empty with why.
 */
function contextParts(context: OpenAiMessage | null, pre: PrefetchNote | null, trace: ProcessingTrace): ContextPart[] {
  const total = context ? messageTokens(context) : 0;
  const memItems = pre ? memoryItems(pre.memories) : [];
  const knItems = pre ? chunkItems(pre.knowledge) : [];
  let memTokens = 0;
  if (context && pre?.memoryText) memTokens = pre.knowledgeText ? Math.min(total, textTokens(pre.memoryText) + MESSAGE_OVERHEAD_TOKENS) : total;
  const knTokens = context && pre?.knowledgeText ? total - memTokens : 0;
  const mem = listPart('memories', 'memory', memTokens, memItems, memItems.length ? {} : emptyState(trace.context.memories, pre?.memories));
  const kn = listPart('knowledge', 'knowledge', knTokens, knItems, knItems.length ? {} : emptyState(trace.context.knowledge, pre?.knowledge));
  return [mem, kn];
}

/** The history part: every offered message, the oldest `dropped` left out by the budget. */
function historyPart(history: OpenAiMessage[], dropped: number): ContextPart {
  const items: ContextItem[] = history.map((m, i) => ({
    role: m.role, text: cutText(messageText(m), CONTEXT_PREVIEW_MAX), tokens: messageTokens(m), included: i >= dropped,
  }));
  const tokens = items.reduce((a, x) => a + (x.included ? x.tokens ?? 0 : 0), 0);
  const c = capped(items, true);
  return {
    name: 'history', kind: 'history', tokens, state: items.some((x) => x.included) ? 'included' : 'empty', items: c.items,
    ...(c.omitted ? { items_omitted: c.omitted } : {}), dropped,
    ...(dropped ? { detail: `${dropped} older message${dropped === 1 ? '' : 's'} did not fit the context budget` } : {}),
  };
}

/** The parts of a turn whose prompt was built. */
function promptParts(j: TurnJournal, trace: ProcessingTrace): ContextPart[] {
  const p = j.prompt!;
  const parts: ContextPart[] = [];
  const named = (n: NamedPart): ContextPart => ({ name: n.name, kind: partKind(n.name), tokens: messageTokens(n.message), state: 'included', text: cutText(messageText(n.message), CONTEXT_TEXT_MAX) });
  if (!p.parts.some((n) => n.name === 'system_prompt')) parts.push({ name: 'system_prompt', kind: 'system', tokens: 0, state: 'empty', detail: 'no system prompt is configured' });
  let context = false;
  for (const n of p.parts) {
    if (n.name === 'context') { parts.push(...contextParts(n.message, j.prefetch, trace)); context = true; } else parts.push(named(n));
  }
  // The profile (issue 13 item 2) is listed even when the user shares none, after the system parts.
  if (!p.parts.some((n) => n.name === 'profile')) {
    const at = parts.findIndex((x) => x.kind !== 'system');
    parts.splice(at < 0 ? parts.length : at, 0, { name: 'profile', kind: 'profile', tokens: 0, state: 'empty', detail: 'no profile is shared with the assistant' });
  }
  if (!context) parts.push(...contextParts(null, j.prefetch, trace));
  parts.push({ name: 'skills', kind: 'skills', tokens: 0, state: 'empty', items: [], detail: 'no skills are loaded' });
  parts.push(historyPart(p.history, p.dropped));
  const inputTokens = p.input.reduce((a, m) => a + messageTokens(m), 0);
  parts.push({ name: 'input', kind: 'input', tokens: inputTokens, state: 'included', text: cutText(p.input.map(messageText).join('\n\n'), CONTEXT_TEXT_MAX) });
  return parts;
}

/** The parts of a turn that ended before a prompt was built (input blocked, guard unavailable): nothing was sent. */
function unsentParts(j: TurnJournal, trace: ProcessingTrace): ContextPart[] {
  const none = (name: string, kind: ContextPartKind): ContextPart => ({ name, kind, tokens: 0, state: 'not_sent', detail: 'the turn ended before the model was called' });
  return [
    none('system_prompt', 'system'), none('profile', 'profile'), ...contextParts(null, j.prefetch, trace), { ...none('skills', 'skills'), items: [] },
    none('history', 'history'), none('input', 'input'),
  ];
}

/** A step as the record shows it (string values of the detail cut). */
function stepView(s: JournalStep): ContextStep {
  const detail: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s.detail)) detail[k] = typeof v === 'string' ? cutText(v, DETAIL_TEXT_MAX) : v;
  return { step: s.step, started_at: new Date(s.startedAt).toISOString(), duration_ms: s.durationMs, status: s.status, detail };
}

/** Serialised size, bytes. */
const sizeOf = (r: ContextRecord): number => new TextEncoder().encode(JSON.stringify(r)).length;

/** Drop texts, then items, then step details, until the record fits `maxBytes`. */
export function boundRecord(r: ContextRecord, maxBytes = CONTEXT_RECORD_MAX_BYTES): ContextRecord {
  if (sizeOf(r) <= maxBytes) return r;
  const noTexts = { ...r, truncated: true, parts: r.parts.map(({ text: _t, ...p }) => ({ ...p, ...(p.items ? { items: p.items.map(({ text: _x, ...i }) => i) } : {}) })) };
  if (sizeOf(noTexts) <= maxBytes) return noTexts;
  const noItems = { ...noTexts, parts: noTexts.parts.map(({ items, ...p }) => ({ ...p, ...(items ? { items: [], items_omitted: (p.items_omitted ?? 0) + items.length } : {}) })) };
  if (sizeOf(noItems) <= maxBytes) return noItems;
  return { ...noItems, trace: noItems.trace.map((s) => ({ ...s, detail: {} })) };
}

/** Build the stored record of a finished turn. */
export function buildContextRecord(x: RecordInput): ContextRecord {
  const j = x.journal;
  const parts = j.prompt ? promptParts(j, x.trace) : unsentParts(j, x.trace);
  const record: ContextRecord = {
    turn_id: x.turnId, session_id: x.sessionId, agent_id: x.agentId, status: x.status, assistant_message_id: x.assistantMessageId,
    model_role: x.trace.model_role, model: x.trace.model, parts,
    budget_tokens: j.prompt?.budgetTokens ?? x.budgetTokens, total_tokens: j.prompt?.estimatedTokens ?? 0,
    usage: { prompt_tokens: x.trace.usage.prompt_tokens, completion_tokens: x.trace.usage.completion_tokens },
    trace: j.steps.map(stepView), steps_omitted: j.stepsOmitted, truncated: false, created_at: x.now.toISOString(),
  };
  const cut = record.parts.some((p) => p.text?.includes('…[cut ') || p.items?.some((i) => i.text?.includes('…[cut ')) || p.items_omitted);
  return boundRecord(cut ? { ...record, truncated: true } : record);
}
