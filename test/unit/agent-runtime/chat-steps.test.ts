/**
 * The chat engine's steps over fake ports (no HTTP, no SQLite): the stream events of a turn in the
 * spec's order, the input and output guardrail decisions, the context and prompt, tool results
 * marked `isError`, citations as an artifact, and failures ending the turn with `error`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRuntimeSettings, AgentTool, StreamEventMap, StreamEventName } from '../../../services/agent-runtime/src/contracts.js';
import { ApprovalCenter } from '../../../services/agent-runtime/src/domain/approvals.js';
import { ChatEngine, type ChatDeps, type TurnIdentity } from '../../../services/agent-runtime/src/domain/chat-engine.js';
import { InferenceError } from '../../../services/agent-runtime/src/domain/inference-errors.js';
import type {
  ApprovalStore, ContextOutcome, GuardOutcome, MessageRow, ModelRequest, ModelResult, ModelStreamHandlers, NewMessage, SessionRow, SessionStore,
} from '../../../services/agent-runtime/src/domain/ports.js';
import { ToolRegistry } from '../../../services/agent-runtime/src/domain/tool-registry.js';
import { runtimeSettings } from '../../helpers/runtime-config.js';

type Reply = Partial<ModelResult> | Error;

class MemorySessions implements SessionStore {
  sessions = new Map<string, SessionRow>();
  msgs = new Map<string, MessageRow[]>();
  create(row: SessionRow, messages: NewMessage[] = []): void { this.sessions.set(row.id, row); this.msgs.set(row.id, []); this.appendMessages(row.id, messages, row.updated_at); }
  get(id: string): SessionRow | undefined { return this.sessions.get(id); }
  update(): boolean { return true; }
  setGeneratedTitle(): boolean { return true; }
  delete(): boolean { return true; }
  list(): SessionRow[] { return [...this.sessions.values()]; }
  appendMessages(sessionId: string, messages: NewMessage[], _now?: string): void {
    const list = this.msgs.get(sessionId)!;
    for (const m of messages) list.push({ ...m, session_id: sessionId, seq: list.length + 1 });
  }
  messages(sessionId: string): MessageRow[] { return this.msgs.get(sessionId) ?? []; }
}

const noApprovals: ApprovalStore = { insert: () => {}, get: () => undefined, decide: () => false, list: () => [], cancelPending: () => 0 };

function engine(opts: {
  replies: Reply[]; settings?: Partial<AgentRuntimeSettings>; guardIn?: GuardOutcome; guardOut?: GuardOutcome; context?: [ContextOutcome, ContextOutcome]; tools?: AgentTool[];
}) {
  const requests: ModelRequest[] = [];
  const emitted: string[] = [];
  const sessions = new MemorySessions();
  const tools = new ToolRegistry();
  if (opts.tools) tools.register('extra', opts.tools);
  const allow: GuardOutcome = { available: true, decision: 'allow', reason: '', scanner_results: [], rewritten_content: null };
  const deps: ChatDeps = {
    settings: runtimeSettings(opts.settings),
    sessions,
    model: {
      async stream(body: ModelRequest, _h: Record<string, string>, handlers: ModelStreamHandlers = {}): Promise<ModelResult> {
        requests.push(JSON.parse(JSON.stringify(body)) as ModelRequest);
        const r = opts.replies.shift() ?? { content: 'fallback' };
        if (r instanceof Error) throw r;
        if (r.content) handlers.onToken?.(r.content);
        return { content: '', reasoning: '', toolCalls: [], finishReason: 'stop', model: 'm1', usage: null, ttftMs: 1, latencyMs: 2, ...r };
      },
    },
    guardrail: { input: async () => opts.guardIn ?? allow, output: async () => opts.guardOut ?? allow },
    context: {
      memories: async () => opts.context?.[0] ?? { available: false, why: 'down' },
      knowledge: async () => opts.context?.[1] ?? { available: false, why: 'down' },
    },
    audit: { putArtifact: async () => true, receipt: async () => null },
    events: { emit: (_t, _p, type) => { emitted.push(type); return `ev${emitted.length}`; }, deliver: async () => true },
    tools,
    policyRules: () => [],
    approvals: new ApprovalCenter(noApprovals),
    serviceUrls: {},
    serviceCall: () => async () => ({ ok: true, status: 200, body: null }),
    log: { warn: () => {} },
  };
  return { engine: new ChatEngine(deps), requests, emitted, sessions };
}

const who = (turnId: string | null = 'turn-1'): TurnIdentity => ({ tenantId: 'acme', userId: 'u1', turnId, headers: {} });

async function run(e: ChatEngine, content: string, w = who()) {
  const events: Array<{ name: StreamEventName; data: unknown }> = [];
  const sink = <K extends StreamEventName>(name: K, data: StreamEventMap[K]): void => { events.push({ name, data }); };
  const o = await e.run(await e.prepare({ messages: [{ role: 'user', content }] }, w), sink, new AbortController().signal);
  return { o, events, names: events.map((x) => x.name) };
}

test('a plain turn: session_created, trace_update, tokens, trace_update, done; events and messages stored; pending receipt', async () => {
  const t = engine({ replies: [{ content: 'Hi there', usage: { prompt_tokens: 3, completion_tokens: 2 } }] });
  const r = await run(t.engine, 'hello');
  assert.deepEqual(r.names, ['session_created', 'trace_update', 'token', 'trace_update', 'done']);
  assert.equal(r.o.status, 'completed');
  assert.equal(r.o.content, 'Hi there');
  assert.equal(r.o.receipt?.status, 'pending');
  assert.equal(r.o.trace.context.memories, 'unavailable');
  assert.deepEqual(r.o.trace.usage, { prompt_tokens: 3, completion_tokens: 2 });
  assert.deepEqual(t.emitted, ['prompt_generated', 'model_invoked', 'model_response']);
  const stored = t.sessions.messages(r.o.sessionId);
  assert.deepEqual(stored.map((m) => m.role), ['user', 'assistant']);
  assert.equal(t.sessions.get(r.o.sessionId)?.title, 'hello', 'fallback title from the first message');
  const done = r.events.at(-1)!.data as StreamEventMap['done'];
  assert.equal(done.assistant_message_id, stored[1]!.id);
  assert.deepEqual(done.routing, { model_role: 'default', model: 'm1' });
});

test('without a turn id: no turn events and no receipt', async () => {
  const t = engine({ replies: [{ content: 'ok' }] });
  const r = await run(t.engine, 'hello', who(null));
  assert.equal(r.o.receipt, null);
  assert.deepEqual(t.emitted, []);
});

test('input guardrail: block keeps the message from the model and answers the notice; redact rewrites it', async () => {
  const blocked = engine({ replies: [], guardIn: { available: true, decision: 'block', reason: 'no secrets', scanner_results: [], rewritten_content: null } });
  const b = await run(blocked.engine, 'my secret');
  assert.deepEqual(b.names, ['session_created', 'blocked', 'trace_update', 'done']);
  assert.equal(b.o.status, 'blocked');
  assert.equal(blocked.requests.length, 0);
  assert.match(blocked.sessions.messages(b.o.sessionId)[0]!.trace!, /"excluded":true/);

  const redacted = engine({
    replies: [{ content: 'ok' }],
    guardIn: { available: true, decision: 'redact', reason: '', scanner_results: [{ scanner_name: 'pii', is_safe: false, risk_score: 1, detail: '' }], rewritten_content: 'hi <PERSON_1>' },
  });
  const rd = await run(redacted.engine, 'hi Bob');
  assert.deepEqual(rd.events[1], { name: 'user_redaction', data: { display_content: 'hi <PERSON_1>', categories_scrubbed: ['pii'], entities_redacted: 1 } });
  assert.equal(redacted.requests[0]!.messages.at(-1)!.content, 'hi <PERSON_1>');
});

test('fail closed: an unreachable guardrail ends the turn with guardrail_unavailable after storing the input', async () => {
  const t = engine({ replies: [], settings: { guardrailFailMode: 'closed' }, guardIn: { available: false, why: 'down', unreachable: true } });
  const r = await run(t.engine, 'hello');
  assert.equal(r.o.status, 'failed');
  assert.equal(r.o.error?.code, 'guardrail_unavailable');
  assert.deepEqual(r.names, ['session_created', 'error']);
  assert.deepEqual(t.emitted, ['turn_failed']);
  assert.equal(t.sessions.messages(r.o.sessionId).length, 1);
});

test('context and prompt: system prompt, then memories and knowledge, then the input; vision role for images', async () => {
  const t = engine({
    replies: [{ content: 'a' }, { content: 'b' }], settings: { systemPrompt: 'Be brief.' },
    context: [{ available: true, snippets: [{ text: 'likes tea', source: 'memory:1', score: 1 }] }, { available: true, snippets: [{ text: 'policy text', source: 'Handbook', score: 1 }] }],
  });
  const r = await run(t.engine, 'tea?');
  assert.deepEqual(t.requests[0]!.messages.map((m) => m.role), ['system', 'system', 'user']);
  assert.equal(t.requests[0]!.messages[1]!.content, 'Relevant memories about the user:\n- likes tea\nRelevant knowledge:\n- [Handbook] policy text');
  assert.deepEqual(r.o.trace.context, { memories: 1, knowledge: 1 });
  const img = await t.engine.run(await t.engine.prepare({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] }] }, who()), () => {}, new AbortController().signal);
  assert.equal(img.trace.model_role, 'vision');
  assert.equal(img.trace.context.memories, 'disabled', 'no text, no prefetch');
});

test('tools: an isError answer fails the call; citations become one artifact; the model sees every result', async () => {
  const search: AgentTool = {
    definition: { type: 'function', function: { name: 'search', description: '', parameters: {} } },
    execute: () => ({ content: 'found [1]', citations: [{ index: 1, document_id: 'd1', document_title: 'Doc', chunk_index: 0, score: 0.9 }] }),
  };
  const broken: AgentTool = {
    definition: { type: 'function', function: { name: 'broken', description: '', parameters: {} } },
    execute: () => ({ content: '{"error":"no","code":"x"}', isError: true }),
  };
  const t = engine({
    tools: [search, broken],
    replies: [{ toolCalls: [{ id: 'c1', name: 'search', arguments: '{}' }, { id: 'c2', name: 'broken', arguments: '{}' }] }, { content: 'done' }],
  });
  const r = await run(t.engine, 'look it up');
  assert.deepEqual(r.names, ['session_created', 'trace_update', 'tool_call', 'tool_call', 'artifact', 'tool_result', 'tool_result', 'token', 'trace_update', 'done']);
  assert.deepEqual(r.events[4]!.data, { type: 'citations', tool: 'search', citations: [{ index: 1, document_id: 'd1', document_title: 'Doc', chunk_index: 0, score: 0.9 }], call_id: 'c1' });
  assert.deepEqual(r.o.trace.tool_calls.map((c) => c.status), ['ok', 'error']);
  assert.deepEqual(t.requests[1]!.messages.slice(-2).map((m) => m.content), ['found [1]', 'error: {"error":"no","code":"x"}']);
  assert.deepEqual(t.emitted.filter((e) => e.startsWith('tool_')), ['tool_called', 'tool_returned', 'tool_called', 'tool_returned']);
});

test('output guardrail: block withholds the answer after a retract; a failed model call ends with its code', async () => {
  const t = engine({ replies: [{ content: 'leak' }], guardOut: { available: true, decision: 'block', reason: 'nope', scanner_results: [], rewritten_content: null } });
  const r = await run(t.engine, 'hello');
  assert.deepEqual(r.names, ['session_created', 'trace_update', 'token', 'retract', 'trace_update', 'done']);
  assert.equal(r.o.content, 'The answer was withheld by the output guardrail.');

  const f = engine({ replies: [new InferenceError('role_not_configured', 'no default role', 503), new InferenceError('model_unknown', 'no model x', 404)] });
  const fr = await run(f.engine, 'hello');
  assert.equal(fr.o.status, 'failed');
  assert.deepEqual(fr.events.at(-1), { name: 'error', data: { message: 'no default role', code: 'role_not_configured' } });
  await assert.rejects(f.engine.answer(await f.engine.prepare({ messages: [{ role: 'user', content: 'x' }] }, who()), new AbortController().signal),
    (e: { code?: string; message?: string }) => e.code === 'model_unknown' && e.message === 'no model x', 'the JSON answer throws the failure as a domain error');
});
