/**
 * One chat turn, end to end (DESIGN.md "Chat turn, end to end"; spec "Chat", "Chat stream events",
 * "Turn events"; issue 5 items 1-4):
 *
 *   guardrail input check -> persist input -> memory prefetch + knowledge retrieval -> history
 *   trimmed to the budget -> model (streamed) -> tool calls (policy auto / ask / deny; `ask` parks
 *   the run until the owner decides) -> ... up to the step limit -> guardrail output check ->
 *   persist -> deliver turn events -> receipt -> `done`.
 *
 * Stream events go to an `EventSink` in the spec's order; the JSON route collects them. Turn events
 * `prompt_generated`, `model_invoked`, `model_response`, `tool_called`, `tool_returned` and
 * `turn_failed` go to audit with the prompt, model and tool bodies captured as artifacts (the event
 * payload carries each body's sha256, so the sealed receipt commits to it).
 *
 * Inference failures never throw out of `run`: they end the turn with an `error` event whose code is
 * the router's (or one derived from the text), `backend_unavailable` when no provider answers.
 */
import type { Logger } from 'pino';
import { AppError, invalidRequest } from '../../../shared/http/errors.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { TurnPayloadType } from '../../../shared/events/turn-events.js';
import type { CommonServiceConfig } from '../../../shared/config.js';
import type { AuditClient } from '../clients/audit.js';
import { sha256Hex } from '../clients/audit.js';
import type { ContextClient } from '../clients/context.js';
import type { GuardrailClient } from '../clients/guardrail.js';
import type { InferenceClient, ModelResult, OpenAiMessage } from '../clients/inference.js';
import {
  TOOL_RESULT_STREAM_LIMIT, type AgentRuntimeSettings, type ApprovalView, type ChatContentPart, type ChatMessageInput, type ChatRequest,
  type ProcessingTrace, type ReceiptRef, type StreamEventMap, type StreamEventName, type ToolPolicy, type ToolResult,
} from '../contracts.js';
import type { MessageRow, NewMessage, RuntimeStore, SessionRow } from '../store/runtime-store.js';
import type { ApprovalCenter } from './approvals.js';
import { hasImage, partsText, trimToBudget } from './history.js';
import { InferenceError, classifyThrown } from './inference-errors.js';
import type { RegisteredTool, ToolRegistry } from './tool-registry.js';
import { resolvePolicy, type SourcedRule } from './tool-policy.js';

const nextId = ulidFactory();

/** Receives stream events in order. */
export type EventSink = <K extends StreamEventName>(name: K, data: StreamEventMap[K]) => void;

/** The turn-event publisher (TurnEventClient's surface the engine uses). */
export interface TurnEvents {
  emit(turnId: string, principalId: string, payloadType: TurnPayloadType, payload: unknown): string;
  deliver(timeoutMs?: number): Promise<boolean>;
}

/** Who runs the turn, from the stamped headers. */
export interface TurnIdentity {
  tenantId: string;
  userId: string;
  /** X-Svc-Turn-Id, or null when the request carried none (no events, no receipt). */
  turnId: string | null;
  /** Stamped headers forwarded to peers (principal, turn id, cap token, correlation id). */
  headers: Record<string, string>;
}

/** Everything the engine needs, injected. */
export interface ChatDeps {
  settings: AgentRuntimeSettings;
  store: RuntimeStore;
  inference: InferenceClient;
  guardrail: GuardrailClient;
  context: ContextClient;
  audit: AuditClient;
  events: TurnEvents;
  tools: ToolRegistry;
  /** Policy rules in force for a tenant (config + admin). */
  policyRules(tenantId: string): SourcedRule[];
  approvals: ApprovalCenter;
  serviceUrls: CommonServiceConfig['serviceUrls'];
  log: Pick<Logger, 'warn' | 'error' | 'debug'>;
}

/** A validated turn, ready to run. */
export interface PreparedTurn {
  who: TurnIdentity;
  session: SessionRow;
  isNew: boolean;
  agentId: string;
  input: ChatMessageInput[];
}

/** How the turn ended. */
export interface TurnOutcome {
  status: 'completed' | 'blocked' | 'failed';
  sessionId: string;
  agentId: string;
  content: string;
  userMessageId: string;
  assistantMessageId: string | null;
  trace: ProcessingTrace;
  receipt: ReceiptRef | null;
  approvals: ApprovalView[];
  error?: { code: string; message: string };
}

/** The pending receipt of a turn before audit assigned it an id (spec "Receipt"). */
export function pendingReceipt(turnId: string): ReceiptRef {
  const base = `/v1/receipts/${encodeURIComponent(turnId)}`;
  return { turn_id: turnId, tier: 'attestable', status: 'pending', sealed: false, receipt_url: base, proof_url: `${base}/proof`, bundle_url: `${base}/bundle` };
}

/** Cut a tool result for the stream (spec "Limits": 2,000 characters). */
export function cutResult(text: string): string {
  return text.length <= TOOL_RESULT_STREAM_LIMIT ? text : text.slice(0, TOOL_RESULT_STREAM_LIMIT);
}

/** Stored message rows -> model messages (rows flagged `excluded` are left out). */
export function rowsToModelMessages(rows: readonly MessageRow[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  for (const r of rows) {
    if (r.trace && r.trace.includes('"excluded":true')) continue;
    if (r.role === 'tool') { out.push({ role: 'tool', tool_call_id: r.tool_call_id ?? '', content: r.content }); continue; }
    if (r.role === 'assistant' && r.tool_calls) {
      const calls = JSON.parse(r.tool_calls) as Array<{ id: string; name: string; arguments: string }>;
      out.push({ role: 'assistant', content: r.content || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      continue;
    }
    const parts = r.parts ? JSON.parse(r.parts) as ChatContentPart[] : null;
    out.push({ role: r.role as OpenAiMessage['role'], content: parts ? parts as unknown as Array<Record<string, unknown>> : r.content });
  }
  return out;
}

function inputToModel(m: ChatMessageInput): OpenAiMessage {
  return { role: m.role, content: typeof m.content === 'string' ? m.content : m.content as unknown as Array<Record<string, unknown>> };
}

function newTrace(turnId: string | null, agentId: string): ProcessingTrace {
  return {
    turn_id: turnId, agent_id: agentId, model_role: 'default', model: null, steps: 0,
    guardrail: { input: 'skipped', output: 'skipped' },
    context: { memories: 'disabled', knowledge: 'disabled' },
    history: { messages_sent: 0, messages_trimmed: 0, estimated_tokens: 0 },
    tool_calls: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, timings: { ttft_ms: null, total_ms: 0 },
  };
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Runs chat turns. */
export class ChatEngine {
  constructor(private readonly d: ChatDeps) {}

  /**
   * Validate a request against the caller's sessions and resolve the session (created when absent).
   * Nothing is written yet.
   * @throws AppError 400 `invalid_request` (last message not the user's, empty text), 404 `session_not_found`.
   */
  prepare(req: ChatRequest, who: TurnIdentity): PreparedTurn {
    const last = req.messages[req.messages.length - 1];
    if (!last || last.role !== 'user') throw invalidRequest('the last message must have role "user"', 'body.messages');
    for (const [i, m] of req.messages.entries()) {
      if (typeof m.content !== 'string' && m.content.length === 0) throw invalidRequest('content parts must not be empty', `body.messages.${i}.content`);
      if (partsText(m.content).trim() === '' && !hasImage(m.content)) throw invalidRequest('message content must not be empty', `body.messages.${i}.content`);
    }
    const now = new Date().toISOString();
    if (req.session_id !== undefined) {
      const s = this.d.store.getSession(req.session_id, who.tenantId, who.userId);
      if (!s) throw new AppError(404, 'session_not_found', `no session ${req.session_id}`);
      return { who, session: s, isNew: false, agentId: req.agent_id ?? s.agent_id, input: req.messages };
    }
    const agentId = req.agent_id ?? this.d.settings.defaultAgentId;
    const session: SessionRow = {
      id: nextId(), tenant_id: who.tenantId, user_id: who.userId, agent_id: agentId, title: null, title_source: 'none', folder_id: null,
      branched_from_session: null, branched_from_message: null, message_count: 0, created_at: now, updated_at: now,
    };
    return { who, session, isNew: true, agentId, input: req.messages };
  }

  /**
   * Run a prepared turn, emitting stream events to `sink`.
   * @param signal aborts the run (client gone): the model call stops, parked approvals are cancelled.
   * @returns the outcome (also for failures, which were emitted as `error`).
   */
  async run(p: PreparedTurn, sink: EventSink, signal: AbortSignal): Promise<TurnOutcome> {
    const t0 = performance.now();
    const { who, session, agentId } = p;
    const s = this.d.settings;
    const trace = newTrace(who.turnId, agentId);
    const captures: Array<Promise<boolean>> = [];
    const emitEvent = (type: TurnPayloadType, payload: Record<string, unknown>, artifact?: { kind: string; body: string }): string | null => {
      if (!who.turnId) return null;
      if (artifact) payload = { ...payload, artifact: { kind: artifact.kind, sha256: sha256Hex(artifact.body), bytes: Buffer.byteLength(artifact.body) } };
      const id = this.d.events.emit(who.turnId, who.userId, type, payload);
      if (artifact) captures.push(this.d.audit.putArtifact(who.turnId, id, artifact.kind, artifact.body));
      return id;
    };
    const scope = { tenant_id: who.tenantId, agent_id: agentId };
    const outcome = (status: TurnOutcome['status'], content: string, extra: Partial<TurnOutcome> = {}): TurnOutcome => {
      trace.timings.total_ms = round(performance.now() - t0);
      return { status, sessionId: session.id, agentId, content, userMessageId, assistantMessageId: null, trace, receipt: null, approvals, ...extra };
    };
    const approvals: ApprovalView[] = [];
    let userMessageId = '';

    if (p.isNew) sink('session_created', { session_id: session.id });

    // 1. Guardrail input check on the text of the user's message.
    const input = p.input.map((m) => ({ ...m }));
    const last = input[input.length - 1]!;
    const userText = partsText(last.content);
    let excluded: string | null = null;
    const g = await this.d.guardrail.input(userText, scope, who.headers, signal);
    if (!g.available) {
      trace.guardrail.input = 'unavailable';
      if (s.guardrailFailMode === 'closed') excluded = 'the input guardrail is unavailable';
    } else {
      trace.guardrail.input = g.decision;
      if (g.decision === 'block') {
        trace.guardrail.reason = g.reason;
        excluded = g.reason || 'blocked by the input guardrail';
      } else if (g.decision === 'redact' && g.rewritten_content !== null && g.rewritten_content !== userText) {
        const categories = [...new Set(g.scanner_results.filter((r) => !r.is_safe).map((r) => r.scanner_name))];
        const placeholders = g.rewritten_content.match(/<[A-Z][A-Z0-9_]*>/g)?.length ?? 0;
        last.content = typeof last.content === 'string'
          ? g.rewritten_content
          : [{ type: 'text', text: g.rewritten_content }, ...last.content.filter((x) => x.type !== 'text')];
        sink('user_redaction', { display_content: g.rewritten_content, categories_scrubbed: categories, entities_redacted: Math.max(placeholders, categories.length) });
      }
    }

    // 2. Persist the input (a new session with it). Blocked input is kept for the user, not for the model.
    const now = new Date().toISOString();
    const inputRows: NewMessage[] = input.map((m, i) => ({
      id: nextId(), role: m.role, content: partsText(m.content), parts: typeof m.content === 'string' ? null : JSON.stringify(m.content),
      tool_calls: null, tool_call_id: null, name: null, turn_id: who.turnId,
      trace: excluded !== null && i === input.length - 1 ? JSON.stringify({ excluded: true, reason: excluded }) : null, receipt: null, created_at: now,
    }));
    userMessageId = inputRows[inputRows.length - 1]!.id;
    const historyRows = p.isNew ? [] : this.d.store.messages(session.id);
    if (p.isNew) {
      const fallback = userText.trim().replace(/\s+/g, ' ').slice(0, 60) || 'New chat';
      this.d.store.createSession({ ...session, title: fallback, title_source: 'fallback' }, inputRows);
    } else this.d.store.appendMessages(session.id, inputRows, now);

    if (!g.available && s.guardrailFailMode === 'closed') {
      return this.fail(p, sink, trace, 'guardrail_unavailable', 'the input guardrail is unavailable and the runtime fails closed', emitEvent, outcome, captures);
    }
    if (excluded !== null) {
      sink('blocked', { reason: excluded });
      const notice = 'This request was blocked by the input guardrail.';
      const assistantId = nextId();
      const receipt = await this.finishReceipt(who.turnId, captures);
      trace.timings.total_ms = round(performance.now() - t0);
      this.d.store.appendMessages(session.id, [{
        id: assistantId, role: 'assistant', content: notice, parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: who.turnId,
        trace: JSON.stringify({ ...trace, excluded: true }), receipt: receipt ? JSON.stringify(receipt) : null, created_at: new Date().toISOString(),
      }], new Date().toISOString());
      sink('trace_update', { patch: { guardrail: trace.guardrail, timings: trace.timings } });
      sink('done', { session_id: session.id, agent_id: agentId, receipt, assistant_message_id: assistantId, user_message_id: userMessageId });
      return outcome('blocked', notice, { assistantMessageId: assistantId, receipt });
    }

    // 3. Memory prefetch and knowledge retrieval, in parallel.
    const system: OpenAiMessage[] = [];
    if (s.systemPrompt) system.push({ role: 'system', content: s.systemPrompt });
    if (s.contextPrefetch && userText.trim()) {
      const [mem, kn] = await Promise.all([
        this.d.context.memories(userText, { tenant_id: who.tenantId, user_id: who.userId, agent_id: agentId }, who.headers),
        this.d.context.knowledge(userText, who.tenantId, who.headers),
      ]);
      trace.context.memories = mem.available ? mem.snippets.length : 'unavailable';
      trace.context.knowledge = kn.available ? kn.snippets.length : 'unavailable';
      const lines: string[] = [];
      if (mem.available && mem.snippets.length) lines.push('Relevant memories about the user:', ...mem.snippets.map((m) => `- ${m.text}`));
      if (kn.available && kn.snippets.length) lines.push('Relevant knowledge:', ...kn.snippets.map((k) => `- [${k.source}] ${k.text}`));
      if (lines.length) system.push({ role: 'system', content: lines.join('\n') });
    }

    // 4. History, trimmed to the context budget.
    const trimmed = trimToBudget(system, rowsToModelMessages(historyRows), input.map(inputToModel), Math.max(256, s.contextBudgetTokens - s.responseReserveTokens));
    trace.history = { messages_sent: trimmed.messages.length, messages_trimmed: trimmed.dropped, estimated_tokens: trimmed.estimatedTokens };
    const messages = trimmed.messages;
    const role = messages.some((m) => Array.isArray(m.content) && m.content.some((c) => c.type === 'image_url')) ? 'vision' : 'default';
    trace.model_role = role;
    sink('trace_update', { patch: { guardrail: { input: trace.guardrail.input }, context: trace.context, history: trace.history, model_role: role } });

    // 5. The tool loop.
    const rules = this.d.policyRules(who.tenantId);
    const policyOf = (t: RegisteredTool): ToolPolicy => resolvePolicy(rules, who.tenantId, agentId, t.definition.function.name, t.defaultPolicy ?? 'auto').policy;
    const offered = this.d.tools.list().filter((t) => policyOf(t) !== 'deny');
    const persist: NewMessage[] = [];
    let final: ModelResult | null = null;
    let streamed = '';
    for (let step = 1; step <= s.maxToolSteps; step++) {
      trace.steps = step;
      const tools = step < s.maxToolSteps ? offered : [];
      const body = { model: role, messages, ...(tools.length ? { tools: this.d.tools.definitions(tools) } : {}) };
      const promptJson = JSON.stringify(body);
      emitEvent('prompt_generated', { step, model_role: role, message_count: messages.length, tools: tools.map((t) => t.definition.function.name) }, { kind: 'prompt', body: promptJson });
      emitEvent('model_invoked', { step, model: role, stream: true });
      let result: ModelResult;
      try {
        result = await this.d.inference.stream(body, who.headers, {
          onToken: (text) => { streamed += text; sink('token', { content: text }); },
          onThinking: (text) => sink('thinking', { content: text }),
        }, signal);
      } catch (err) {
        if (signal.aborted) return outcome('failed', '', { error: { code: 'client_closed', message: 'the client went away' } });
        const e = err instanceof InferenceError ? err : classifyThrown(err);
        return this.fail(p, sink, trace, e.code, e.message, emitEvent, outcome, captures);
      }
      trace.model = result.model;
      if (trace.timings.ttft_ms === null && result.ttftMs !== null) trace.timings.ttft_ms = round(performance.now() - t0 - (result.latencyMs - result.ttftMs));
      if (result.usage) { trace.usage.prompt_tokens += result.usage.prompt_tokens; trace.usage.completion_tokens += result.usage.completion_tokens; }
      const responseJson = JSON.stringify({ model: result.model, content: result.content, reasoning: result.reasoning || undefined, tool_calls: result.toolCalls, finish_reason: result.finishReason, usage: result.usage });
      emitEvent('model_response', {
        step, model: result.model, finish_reason: result.finishReason, tool_calls: result.toolCalls.map((c) => c.name), usage: result.usage,
        latency_ms: round(result.latencyMs), ttft_ms: result.ttftMs === null ? null : round(result.ttftMs),
      }, { kind: 'model_response', body: responseJson });
      if (result.toolCalls.length === 0) { final = result; break; }

      // The model asked for tools.
      const assistantMsg: OpenAiMessage = { role: 'assistant', content: result.content || null, tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
      messages.push(assistantMsg);
      persist.push({ id: nextId(), role: 'assistant', content: result.content, parts: null, tool_calls: JSON.stringify(result.toolCalls), tool_call_id: null, name: null, turn_id: who.turnId, trace: null, receipt: null, created_at: new Date().toISOString() });
      interface Planned { call: typeof result.toolCalls[number]; tool: RegisteredTool | undefined; args: Record<string, unknown> | null; policy: ToolPolicy; verdict: string | null; approvalId?: string }
      const planned: Planned[] = result.toolCalls.map((call) => {
        const tool = this.d.tools.get(call.name);
        let args: Record<string, unknown> | null = null;
        try {
          const v = call.arguments.trim() ? JSON.parse(call.arguments) as unknown : {};
          if (v && typeof v === 'object' && !Array.isArray(v)) args = v as Record<string, unknown>;
        } catch { args = null; }
        const policy: ToolPolicy = tool ? policyOf(tool) : 'deny';
        sink('tool_call', { tool: call.name, arguments: args ?? call.arguments, call_id: call.id });
        let verdict: string | null = null;
        if (!tool) verdict = `error: unknown tool "${call.name}"`;
        else if (args === null) verdict = 'error: the arguments are not a JSON object';
        else if (policy === 'deny') verdict = 'error: this tool is denied by policy';
        return { call, tool, args, policy, verdict };
      });
      const asks = planned.filter((x) => x.verdict === null && x.policy === 'ask');
      if (asks.length) {
        const filed = this.d.approvals.file(asks.map((x) => ({
          tenantId: who.tenantId, userId: who.userId, sessionId: session.id, agentId, turnId: who.turnId, tool: x.call.name, callId: x.call.id, arguments: x.args,
        })), s.approvalTimeoutSeconds * 1000);
        asks.forEach((x, i) => { x.approvalId = filed[i]!.id; });
        approvals.push(...filed);
        sink('approval_required', { session_id: session.id, agent_id: agentId, approvals: filed, ...(streamed ? { content: streamed } : {}) });
        const decided = await this.d.approvals.wait(who.tenantId, filed.map((a) => a.id), s.approvalTimeoutSeconds * 1000, signal);
        for (const x of asks) {
          const v = decided.get(x.approvalId!);
          const i = approvals.findIndex((a) => a.id === x.approvalId);
          if (v && i >= 0) approvals[i] = v;
          if (v?.status !== 'approved') x.verdict = `error: the user did not approve this call (${v?.status ?? 'cancelled'})`;
        }
        sink('trace_update', { patch: { approvals: approvals.map((a) => ({ id: a.id, tool: a.tool, status: a.status })) } });
        if (signal.aborted) return outcome('failed', '', { error: { code: 'client_closed', message: 'the client went away' } });
      }
      for (const x of planned) {
        let text: string;
        let status = 'ok';
        if (x.verdict !== null) { text = x.verdict; status = x.approvalId ? 'not_approved' : x.policy === 'deny' ? 'denied' : 'invalid'; } else {
          const inputJson = JSON.stringify({ tool: x.call.name, call_id: x.call.id, arguments: x.args });
          emitEvent('tool_called', { tool: x.call.name, call_id: x.call.id, policy: x.policy, approval_id: x.approvalId ?? null, source: x.tool!.source }, { kind: 'tool_input', body: inputJson });
          const started = performance.now();
          let res: ToolResult;
          let ok = true;
          try {
            res = await x.tool!.execute(x.args!, {
              tenantId: who.tenantId, userId: who.userId, agentId, sessionId: session.id, turnId: who.turnId, callId: x.call.id,
              headers: who.headers, serviceUrls: this.d.serviceUrls, signal,
            });
          } catch (err) {
            ok = false;
            res = `error: ${(err as Error).message ?? String(err)}`;
          }
          text = typeof res === 'string' ? res : res.content;
          if (!ok) status = 'error';
          emitEvent('tool_returned', { tool: x.call.name, call_id: x.call.id, ok, duration_ms: round(performance.now() - started) }, { kind: 'tool_output', body: text });
          if (typeof res !== 'string') for (const a of res.artifacts ?? []) sink('artifact', { ...a, call_id: x.call.id });
        }
        trace.tool_calls.push({ tool: x.call.name, call_id: x.call.id, policy: x.policy, status, ...(x.approvalId ? { approval_id: x.approvalId } : {}) });
        sink('tool_result', { tool: x.call.name, result: cutResult(text), call_id: x.call.id });
        messages.push({ role: 'tool', tool_call_id: x.call.id, content: text });
        persist.push({ id: nextId(), role: 'tool', content: text, parts: null, tool_calls: null, tool_call_id: x.call.id, name: x.call.name, turn_id: who.turnId, trace: null, receipt: null, created_at: new Date().toISOString() });
      }
    }
    let content = final?.content ?? '';

    // 6. Output guardrail.
    if (content) {
      const og = await this.d.guardrail.output(content, scope, userText, who.headers, signal);
      if (!og.available) {
        trace.guardrail.output = 'unavailable';
        if (s.guardrailFailMode === 'closed') {
          sink('retract', { reason: 'the output guardrail is unavailable', original_length: content.length });
          return this.fail(p, sink, trace, 'guardrail_unavailable', 'the output guardrail is unavailable and the runtime fails closed', emitEvent, outcome, captures);
        }
      } else {
        trace.guardrail.output = og.decision;
        if (og.decision === 'block') {
          sink('retract', { reason: og.reason || 'blocked by the output guardrail', original_length: content.length });
          content = 'The answer was withheld by the output guardrail.';
        } else if (og.decision === 'redact' && og.rewritten_content !== null && og.rewritten_content !== content) {
          sink('retract', { reason: og.reason || 'redacted by the output guardrail', original_length: content.length });
          content = og.rewritten_content;
          sink('token', { content });
        }
      }
    }

    // 7. Deliver events, fetch the receipt, persist, done.
    const receipt = await this.finishReceipt(who.turnId, captures);
    trace.timings.total_ms = round(performance.now() - t0);
    const assistantId = nextId();
    persist.push({
      id: assistantId, role: 'assistant', content, parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: who.turnId,
      trace: JSON.stringify(trace), receipt: receipt ? JSON.stringify(receipt) : null, created_at: new Date().toISOString(),
    });
    this.d.store.appendMessages(session.id, persist, new Date().toISOString());
    sink('trace_update', { patch: { model: trace.model, steps: trace.steps, usage: trace.usage, timings: trace.timings, guardrail: trace.guardrail, tool_calls: trace.tool_calls } });
    sink('done', {
      session_id: session.id, agent_id: agentId, receipt, assistant_message_id: assistantId, user_message_id: userMessageId,
      routing: { model_role: role, model: trace.model },
    });
    return outcome('completed', content, { assistantMessageId: assistantId, receipt });
  }

  /** Wait for captures (bounded), deliver this runtime's events, then ask audit for the receipt. */
  private async finishReceipt(turnId: string | null, captures: Array<Promise<boolean>>): Promise<ReceiptRef | null> {
    if (!turnId) return null;
    await Promise.race([Promise.allSettled(captures), new Promise((r) => setTimeout(r, 3000).unref())]);
    await this.d.events.deliver();
    return (await this.d.audit.receipt(turnId)) ?? pendingReceipt(turnId);
  }

  private async fail(
    p: PreparedTurn, sink: EventSink, trace: ProcessingTrace, code: string, message: string,
    emitEvent: (type: TurnPayloadType, payload: Record<string, unknown>) => string | null,
    outcome: (status: TurnOutcome['status'], content: string, extra?: Partial<TurnOutcome>) => TurnOutcome,
    captures: Array<Promise<boolean>>,
  ): Promise<TurnOutcome> {
    trace.error = { code, message };
    emitEvent('turn_failed', { code, message, step: trace.steps });
    if (p.who.turnId) {
      await Promise.race([Promise.allSettled(captures), new Promise((r) => setTimeout(r, 1000).unref())]);
      await this.d.events.deliver();
    }
    this.d.log.warn({ code, turn_id: p.who.turnId }, 'chat turn failed');
    sink('error', { message, code });
    return outcome('failed', '', { error: { code, message } });
  }
}
