/**
 * Chat stream -> AG-UI events (spec "Chat": `POST /v1/chat/agui/stream` "produced by the gateway from
 * the upstream stream"; AG-UI protocol 1.0 as published in `@ag-ui/core`). Pure: records in, events
 * out; every event is checked against `@ag-ui/core`'s schemas, and the sequence keeps the ordering
 * rules of `@ag-ui/client`'s `verifyEvents` (RUN_STARTED first; every START closed by its END before
 * RUN_FINISHED; nothing after RUN_FINISHED or RUN_ERROR).
 *
 * | upstream `event:` | AG-UI |
 * |---|---|
 * | (first record) | `RUN_STARTED {threadId, runId}`: threadId = session id, runId = turn id |
 * | token | `TEXT_MESSAGE_START {messageId, role: assistant}` once, then `TEXT_MESSAGE_CONTENT {delta}` |
 * | thinking | `REASONING_START` + `REASONING_MESSAGE_START {role: reasoning}` once, then `REASONING_MESSAGE_CONTENT` |
 * | tool_call | open text/reasoning closed; `TOOL_CALL_START {toolCallId, toolCallName, parentMessageId?}`, `TOOL_CALL_ARGS`, `TOOL_CALL_END` |
 * | tool_result | `TOOL_CALL_RESULT {messageId, toolCallId, content, role: tool}` |
 * | done | open messages closed; `RUN_FINISHED {threadId, runId, result: <done payload>, outcome: success}` |
 * | error | open messages closed; `RUN_ERROR {message, code}` |
 * | session_created, approval_required, artifact, trace_update, blocked, retract, user_redaction, mcp_failures, others | `CUSTOM {name: <event>, value: <payload>}` (retract and approval_required also close the open text message) |
 *
 * The upstream ending without `done`/`error` ends the run with `RUN_ERROR {code: stream_incomplete}`.
 *
 * Issue 17 item 5: tool calls without a `tool_result` in the run (calls to client tools, handed back)
 * are named in RUN_FINISHED's `outcome.pendingToolCallIds`. With `interrupts` (the request was a
 * RunAgentInput), `approval_required` ends the run after its CUSTOM event with `RUN_FINISHED
 * {outcome: {type: interrupt, interrupts: [{id: <approval id>, reason: tool_approval, toolCallId,
 * message, expiresAt, metadata: {tool, arguments, server?}}]}}`; `interrupted` then holds the ids.
 */
import { randomUUID } from 'node:crypto';
import { EventType } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import type { SseRecord } from './sse.js';

/** An AG-UI event as sent on the wire (UPPER_SNAKE_CASE `type`, camelCase fields). */
export type AguiEvent = { type: EventType } & Record<string, unknown>;

/** Options of a translator. */
export interface TranslatorOptions {
  /** The turn id: AG-UI `runId`. */
  runId: string;
  /** Session id known from the request (existing session); a `session_created` record overrides it. */
  threadId?: string | null;
  /** Id source for messages and tool calls (default random UUIDs). */
  newId?: () => string;
  /** End the run with an AG-UI interrupt on `approval_required` (issue 17 item 5). */
  interrupts?: boolean;
}

/** An event that failed the @ag-ui/core schema (a translator bug; the run ends with RUN_ERROR). */
export class AguiSchemaError extends Error {}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Translator of one run. */
export class AguiTranslator {
  private readonly runId: string;
  private threadId: string | null;
  private readonly newId: () => string;
  private started = false;
  private finished = false;
  private textId: string | null = null;
  private reasoningId: string | null = null;
  private readonly toolIds = new Map<string, string>();
  private readonly pendingCalls: string[] = [];
  private readonly interrupts: boolean;
  private interruptIds: string[] = [];
  private interruptExpiry: Array<string | undefined> = [];

  constructor(opts: TranslatorOptions) {
    this.runId = opts.runId;
    this.threadId = opts.threadId ?? null;
    this.newId = opts.newId ?? randomUUID;
    this.interrupts = opts.interrupts === true;
  }

  /** Whether RUN_FINISHED or RUN_ERROR went out. */
  get done(): boolean { return this.finished; }

  /** The approval ids the run ended on with an interrupt (empty unless it did). */
  get interrupted(): readonly string[] { return this.interruptIds; }

  /** When each interrupt of `interrupted` expires (ISO time, when the approval named one). */
  get interruptExpiries(): ReadonlyArray<string | undefined> { return this.interruptExpiry; }

  /** The thread id the run reported (session id), null before it is known. */
  get thread(): string | null { return this.threadId; }

  /**
   * Translate one upstream record.
   * @returns the events to send, in order (empty once the run is over).
   */
  push(rec: SseRecord): AguiEvent[] {
    if (this.finished) return [];
    const out: AguiEvent[] = [];
    const data = obj(rec.data);
    if (!this.started) {
      if (rec.event === 'session_created' && str(data.session_id)) this.threadId = str(data.session_id)!;
      if (rec.event === 'done' && str(data.session_id)) this.threadId = str(data.session_id)!;
      out.push(this.runStarted());
    }
    switch (rec.event) {
      case 'token': {
        const delta = str(data.content) ?? '';
        this.closeReasoning(out);
        if (!delta) break;
        if (!this.textId) {
          this.textId = this.newId();
          out.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.textId, role: 'assistant' });
        }
        out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.textId, delta });
        break;
      }
      case 'thinking': {
        const delta = str(data.content) ?? '';
        if (!delta) break;
        this.closeText(out);
        if (!this.reasoningId) {
          this.reasoningId = this.newId();
          out.push({ type: EventType.REASONING_START, messageId: this.reasoningId });
          out.push({ type: EventType.REASONING_MESSAGE_START, messageId: this.reasoningId, role: 'reasoning' });
        }
        out.push({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: this.reasoningId, delta });
        break;
      }
      case 'tool_call': {
        this.closeReasoning(out);
        const parent = this.textId;
        this.closeText(out);
        const name = str(data.tool) ?? 'unknown';
        const id = str(data.call_id) ?? this.newId();
        this.toolIds.set(str(data.call_id) ?? `name:${name}`, id);
        this.pendingCalls.push(id);
        out.push({ type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: name, ...(parent ? { parentMessageId: parent } : {}) });
        const args = data.arguments === undefined ? '' : typeof data.arguments === 'string' ? data.arguments : JSON.stringify(data.arguments);
        if (args) out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: args });
        out.push({ type: EventType.TOOL_CALL_END, toolCallId: id });
        break;
      }
      case 'tool_result': {
        this.closeReasoning(out);
        this.closeText(out);
        const name = str(data.tool) ?? 'unknown';
        const id = this.toolIds.get(str(data.call_id) ?? `name:${name}`) ?? str(data.call_id) ?? this.newId();
        const content = typeof data.result === 'string' ? data.result : JSON.stringify(data.result ?? null);
        const at = this.pendingCalls.indexOf(id);
        if (at >= 0) this.pendingCalls.splice(at, 1);
        out.push({ type: EventType.TOOL_CALL_RESULT, messageId: this.newId(), toolCallId: id, content, role: 'tool' });
        break;
      }
      case 'done': {
        this.closeAll(out);
        const pending = this.pendingCalls.length ? { pendingToolCallIds: [...this.pendingCalls] } : {};
        out.push({ type: EventType.RUN_FINISHED, threadId: this.threadId ?? this.runId, runId: this.runId, result: rec.data ?? {}, outcome: { type: 'success', ...pending } });
        this.finished = true;
        break;
      }
      case 'error': {
        this.closeAll(out);
        out.push(this.runError(str(data.message) ?? 'the run failed', str(data.code)));
        break;
      }
      case 'retract':
      case 'approval_required':
        this.closeAll(out);
        out.push({ type: EventType.CUSTOM, name: rec.event, value: rec.data ?? {} });
        if (rec.event === 'approval_required' && this.interrupts) this.interrupt(out, data);
        break;
      default:
        out.push({ type: EventType.CUSTOM, name: rec.event, value: rec.data ?? {} });
    }
    return checked(out);
  }

  /** The upstream ended: close the run if it is still open. */
  end(): AguiEvent[] {
    if (this.finished) return [];
    return this.fail('the upstream stream ended before the run finished', 'stream_incomplete');
  }

  /** End the run with RUN_ERROR (upstream broke, translation failed). */
  fail(message: string, code: string): AguiEvent[] {
    if (this.finished) return [];
    const out: AguiEvent[] = [];
    this.closeAll(out);
    out.push(this.runError(message, code));
    return checked(out);
  }

  /** End the run with an interrupt per pending approval (issue 17 item 5). */
  private interrupt(out: AguiEvent[], data: Record<string, unknown>): void {
    const approvals = Array.isArray(data.approvals) ? data.approvals.map(obj).filter((a) => str(a.id)) : [];
    if (approvals.length === 0) return;
    const interrupts = approvals.map((a) => ({
      id: str(a.id)!, reason: 'tool_approval', message: `Approve the call of ${str(a.tool) ?? 'a tool'}?`,
      ...(str(a.call_id) ? { toolCallId: this.toolIds.get(str(a.call_id)!) ?? str(a.call_id) } : {}),
      ...(str(a.expires_at) ? { expiresAt: str(a.expires_at) } : {}),
      responseSchema: { type: 'object', properties: { approved: { type: 'boolean' }, reason: { type: 'string' } } },
      metadata: { tool: a.tool, arguments: a.arguments ?? null, ...(a.server ? { server: a.server } : {}) },
    }));
    for (const i of interrupts) { const at = this.pendingCalls.indexOf(i.toolCallId ?? ''); if (at >= 0) this.pendingCalls.splice(at, 1); }
    out.push({ type: EventType.RUN_FINISHED, threadId: this.threadId ?? this.runId, runId: this.runId, outcome: { type: 'interrupt', interrupts } });
    this.interruptIds = interrupts.map((i) => i.id);
    this.interruptExpiry = interrupts.map((i) => i.expiresAt);
    this.finished = true;
  }

  private runStarted(): AguiEvent {
    this.started = true;
    return { type: EventType.RUN_STARTED, threadId: this.threadId ?? this.runId, runId: this.runId };
  }

  private runError(message: string, code: string | undefined): AguiEvent {
    this.finished = true;
    return { type: EventType.RUN_ERROR, message, ...(code ? { code } : {}) };
  }

  private closeText(out: AguiEvent[]): void {
    if (!this.textId) return;
    out.push({ type: EventType.TEXT_MESSAGE_END, messageId: this.textId });
    this.textId = null;
  }

  private closeReasoning(out: AguiEvent[]): void {
    if (!this.reasoningId) return;
    out.push({ type: EventType.REASONING_MESSAGE_END, messageId: this.reasoningId });
    out.push({ type: EventType.REASONING_END, messageId: this.reasoningId });
    this.reasoningId = null;
  }

  private closeAll(out: AguiEvent[]): void {
    this.closeReasoning(out);
    this.closeText(out);
  }
}

/**
 * Check events against the @ag-ui/core 1.0 schemas.
 * @throws AguiSchemaError naming the first event that does not validate.
 */
export function checked(events: AguiEvent[]): AguiEvent[] {
  for (const e of events) {
    const r = EventSchemas.safeParse(e);
    if (!r.success) throw new AguiSchemaError(`AG-UI event ${e.type} does not validate: ${r.error.message}`);
  }
  return events;
}

/** One AG-UI SSE record: `data: <json>` and a blank line, no `event:` line (spec "Chat"). */
export function aguiRecord(e: AguiEvent): string {
  return `data: ${JSON.stringify(e)}\n\n`;
}
