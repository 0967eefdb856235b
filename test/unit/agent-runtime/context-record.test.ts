/**
 * The context record of a turn (issue 13 item 5) over the chat engine with fake ports: the parts put
 * in front of the model with their estimated tokens (adding up to the prompt's estimate), memories
 * and chunks with scores, history dropped by the context budget, the step trace, and the bounds
 * (cut texts, capped lists, the byte bound).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentRuntimeSettings, AgentTool, ContextRecord } from '../../../services/agent-runtime/src/contracts.js';
import { CONTEXT_ITEMS_MAX, CONTEXT_STEPS_MAX } from '../../../services/agent-runtime/src/contracts.js';
import { ApprovalCenter } from '../../../services/agent-runtime/src/domain/approvals.js';
import { ChatEngine, type ChatDeps, type PreparedTurn, type TurnIdentity, type TurnOutcome } from '../../../services/agent-runtime/src/domain/chat-engine.js';
import { TurnJournal } from '../../../services/agent-runtime/src/domain/context/journal.js';
import { boundRecord, buildContextRecord, cutText, partKind } from '../../../services/agent-runtime/src/domain/context/record.js';
import type { ContextOutcome, GuardOutcome, MessageRow, ModelResult, NewMessage, SessionRow, SessionStore } from '../../../services/agent-runtime/src/domain/ports.js';
import { ToolRegistry } from '../../../services/agent-runtime/src/domain/tool-registry.js';
import { runtimeSettings } from '../../helpers/runtime-config.js';

class MemorySessions implements SessionStore {
  sessions = new Map<string, SessionRow>();
  msgs = new Map<string, MessageRow[]>();
  create(row: SessionRow, messages: NewMessage[] = []): void { this.sessions.set(row.id, row); this.msgs.set(row.id, []); this.appendMessages(row.id, messages); }
  get(id: string): SessionRow | undefined { return this.sessions.get(id); }
  update(): boolean { return true; }
  setGeneratedTitle(): boolean { return true; }
  delete(): boolean { return true; }
  list(): SessionRow[] { return [...this.sessions.values()]; }
  appendMessages(sessionId: string, messages: NewMessage[]): void {
    const list = this.msgs.get(sessionId)!;
    for (const m of messages) list.push({ ...m, session_id: sessionId, seq: list.length + 1 });
  }
  messages(sessionId: string): MessageRow[] { return [...(this.msgs.get(sessionId) ?? [])]; }
}

const allow: GuardOutcome = { available: true, decision: 'allow', reason: '', scanner_results: [], rewritten_content: null };

/** An engine whose `contextRecords` port keeps what each turn ended with. */
function engine(opts: { replies: Array<Partial<ModelResult>>; settings?: Partial<AgentRuntimeSettings>; context?: [ContextOutcome, ContextOutcome]; tools?: AgentTool[]; guardIn?: GuardOutcome }) {
  const ended: Array<{ p: PreparedTurn; o: TurnOutcome }> = [];
  const sessions = new MemorySessions();
  const tools = new ToolRegistry();
  if (opts.tools) tools.register('extra', opts.tools);
  const deps: ChatDeps = {
    settings: runtimeSettings(opts.settings), sessions,
    model: {
      async stream(): Promise<ModelResult> {
        const r = opts.replies.shift() ?? { content: 'fallback' };
        return { content: '', reasoning: '', toolCalls: [], finishReason: 'stop', model: 'm1', usage: { prompt_tokens: 10, completion_tokens: 2 }, ttftMs: 1, latencyMs: 5, ...r };
      },
    },
    guardrail: { input: async () => opts.guardIn ?? allow, output: async () => allow },
    context: { memories: async () => opts.context?.[0] ?? { available: false, why: 'down' }, knowledge: async () => opts.context?.[1] ?? { available: false, why: 'down' } },
    audit: { putArtifact: async () => true, receipt: async () => null },
    events: { emit: () => 'ev', deliver: async () => true },
    tools, policyRules: () => [],
    approvals: new ApprovalCenter({ insert: () => {}, get: () => undefined, decide: () => false, list: () => [], cancelPending: () => 0 }),
    serviceUrls: {}, serviceCall: () => async () => ({ ok: true, status: 200, body: null }), log: { warn: () => {} },
    contextRecords: { record: (p, o) => { ended.push({ p, o }); } },
  };
  return { engine: new ChatEngine(deps), ended, sessions };
}

const who: TurnIdentity = { tenantId: 'acme', userId: 'u1', turnId: 'turn-1', headers: {} };

function recordOf(x: { p: PreparedTurn; o: TurnOutcome }): ContextRecord {
  return buildContextRecord({
    turnId: x.p.who.turnId!, sessionId: x.o.sessionId, agentId: x.o.agentId, status: x.o.status, assistantMessageId: x.o.assistantMessageId,
    trace: x.o.trace, journal: x.o.journal!, budgetTokens: 7168, now: new Date('2025-01-01T00:00:00Z'),
  });
}

const part = (r: ContextRecord, name: string) => r.parts.find((p) => p.name === name)!;

test('a turn with system prompt, memory and knowledge: every part with tokens adding up to the prompt estimate, scores and ids kept', async () => {
  const t = engine({
    replies: [{ content: 'Tea it is.' }], settings: { systemPrompt: 'Be brief.' },
    context: [
      { available: true, snippets: [{ text: 'likes oolong tea', source: 'memory:m1', score: 0.82, id: 'm1' }] },
      { available: true, snippets: [{ text: 'The tea policy says ...', source: 'Handbook', score: 0.61, document_id: 'd1', chunk_index: 3 }] },
    ],
  });
  await t.engine.run(await t.engine.prepare({ messages: [{ role: 'user', content: 'tea?' }] }, who), () => {}, new AbortController().signal);
  assert.equal(t.ended.length, 1, 'the engine hands every finished turn to the port');
  const r = recordOf(t.ended[0]!);
  assert.deepEqual(r.parts.map((p) => [p.name, p.kind, p.state]), [
    ['system_prompt', 'system', 'included'], ['profile', 'profile', 'empty'], ['memories', 'memory', 'included'], ['knowledge', 'knowledge', 'included'],
    ['skills', 'skills', 'empty'], ['history', 'history', 'empty'], ['input', 'input', 'included'],
  ]);
  assert.equal(part(r, 'system_prompt').text, 'Be brief.');
  assert.deepEqual(part(r, 'memories').items, [{ id: 'm1', text: 'likes oolong tea', score: 0.82 }]);
  assert.deepEqual(part(r, 'knowledge').items, [{ document_id: 'd1', document_title: 'Handbook', chunk_index: 3, text: 'The tea policy says ...', score: 0.61 }]);
  assert.deepEqual(part(r, 'skills').items, []);
  assert.ok(r.parts.every((p) => p.state !== 'included' || p.tokens > 0));
  assert.equal(r.parts.reduce((a, p) => a + p.tokens, 0), r.total_tokens, 'the parts add up to the estimate the budget was enforced with');
  assert.equal(r.total_tokens, t.ended[0]!.o.trace.history.estimated_tokens);
  assert.equal(r.budget_tokens, 8192 - 1024);
  assert.deepEqual(r.trace.map((s) => [s.step, s.status]), [['guard_input', 'allow'], ['prefetch', 'ok'], ['model_call', 'ok'], ['guard_output', 'allow']]);
  const call = r.trace[2]!;
  assert.equal(call.detail.model, 'm1');
  assert.equal(call.detail.latency_ms, 5);
  assert.equal(call.detail.prompt_tokens, 10);
  assert.ok(r.trace.every((s) => !Number.isNaN(Date.parse(s.started_at)) && s.duration_ms >= 0));
  assert.equal(r.status, 'completed');
  assert.equal(r.model, 'm1');
  assert.deepEqual(r.usage, { prompt_tokens: 10, completion_tokens: 2 });
  assert.equal(r.truncated, false);
});

test('history: messages the context budget dropped are listed as not included, the kept ones counted', async () => {
  const t = engine({ replies: [{ content: 'one' }, { content: 'two' }, { content: 'three' }], settings: { contextBudgetTokens: 512, responseReserveTokens: 0 } });
  const first = await t.engine.run(await t.engine.prepare({ messages: [{ role: 'user', content: 'x'.repeat(3000) }] }, who), () => {}, new AbortController().signal);
  await t.engine.run(await t.engine.prepare({ messages: [{ role: 'user', content: 'short' }], session_id: first.sessionId }, who), () => {}, new AbortController().signal);
  await t.engine.run(await t.engine.prepare({ messages: [{ role: 'user', content: 'again' }], session_id: first.sessionId }, who), () => {}, new AbortController().signal);
  const r = recordOf(t.ended[2]!);
  const h = part(r, 'history');
  assert.equal(h.items!.length, 4);
  assert.deepEqual(h.items!.map((i) => i.included), [false, true, true, true], 'the 3,000-character message did not fit');
  assert.equal(h.dropped, 1);
  assert.match(h.detail ?? '', /1 older message did not fit/);
  assert.match(h.items![0]!.text!, /…\[cut 2800 characters\]$/, 'previews are cut with a marker');
  assert.equal(h.tokens, h.items!.filter((i) => i.included).reduce((a, i) => a + i.tokens!, 0));
  assert.equal(r.parts.reduce((a, p) => a + p.tokens, 0), r.total_tokens);
  assert.equal(r.truncated, true);
});

test('tools and a blocked input: tool calls timed with their status; a blocked turn sent nothing', async () => {
  const echo: AgentTool = { definition: { type: 'function', function: { name: 'echo', description: '', parameters: {} } }, execute: () => 'echoed' };
  const t = engine({ tools: [echo], replies: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: '{}' }, { id: 'c2', name: 'nope', arguments: '{}' }] }, { content: 'done' }] });
  await t.engine.run(await t.engine.prepare({ messages: [{ role: 'user', content: 'go' }] }, who), () => {}, new AbortController().signal);
  const r = recordOf(t.ended[0]!);
  assert.deepEqual(r.trace.map((s) => s.step), ['guard_input', 'prefetch', 'model_call', 'tool_call', 'tool_call', 'model_call', 'guard_output']);
  assert.deepEqual(r.trace.filter((s) => s.step === 'tool_call').map((s) => [s.detail.tool, s.status]), [['echo', 'ok'], ['nope', 'denied']]);
  assert.deepEqual(r.trace.find((s) => s.step === 'model_call')!.detail.tool_calls, ['echo', 'nope']);
  assert.equal(part(r, 'memories').state, 'unavailable');
  assert.equal(part(r, 'memories').detail, 'the source did not answer', 'the source reason (addresses) stays out');

  const b = engine({ replies: [], guardIn: { available: true, decision: 'block', reason: 'no secrets', scanner_results: [], rewritten_content: null } });
  await b.engine.run(await b.engine.prepare({ messages: [{ role: 'user', content: 'my password is hunter2' }] }, who), () => {}, new AbortController().signal);
  const rb = recordOf(b.ended[0]!);
  assert.equal(rb.status, 'blocked');
  assert.deepEqual(rb.trace.map((s) => [s.step, s.status]), [['guard_input', 'block']]);
  assert.ok(rb.parts.every((p) => p.tokens === 0));
  assert.equal(part(rb, 'input').state, 'not_sent');
  assert.doesNotMatch(JSON.stringify(rb), /hunter2/, 'a blocked message is not kept in the record');
});

test('named parts of the builder are kept by name and kind; unknown names are system parts', () => {
  assert.equal(partKind('profile'), 'profile');
  assert.equal(partKind('system_prompt'), 'system');
  assert.equal(partKind('skills_loaded'), 'skills');
  const j = new TurnJournal(() => 0, () => 0);
  j.prompted({
    parts: [{ name: 'system_prompt', message: { role: 'system', content: 'S' } }, { name: 'profile', message: { role: 'system', content: 'About the user: likes tea' } }],
    history: [], dropped: 0, input: [{ role: 'user', content: 'hi' }], estimatedTokens: 26, budgetTokens: 100,
  });
  const r = buildContextRecord({
    turnId: 't', sessionId: 's', agentId: 'a', status: 'completed', assistantMessageId: null, journal: j, budgetTokens: 1, now: new Date(0),
    trace: { turn_id: 't', agent_id: 'a', model_role: 'default', model: null, steps: 1, guardrail: { input: 'allow', output: 'allow' }, context: { memories: 'disabled', knowledge: 'disabled' }, history: { messages_sent: 3, messages_trimmed: 0, estimated_tokens: 26 }, tool_calls: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, timings: { ttft_ms: null, total_ms: 0 } },
  });
  assert.deepEqual(r.parts.slice(0, 2).map((p) => [p.name, p.kind, p.text]), [['system_prompt', 'system', 'S'], ['profile', 'profile', 'About the user: likes tea']]);
  assert.equal(part(r, 'memories').state, 'disabled');
  assert.equal(r.budget_tokens, 100);
});

test('bounds: texts cut with a marker, steps capped, a record over the byte bound loses texts first', () => {
  assert.equal(cutText('abcdef', 10), 'abcdef');
  assert.equal(cutText('abcdef', 2), 'ab…[cut 4 characters]');
  const j = new TurnJournal();
  for (let i = 0; i < CONTEXT_STEPS_MAX + 5; i++) j.ended('tool_call', 1, 'ok', { note: 'x'.repeat(1000) });
  assert.equal(j.steps.length, CONTEXT_STEPS_MAX);
  assert.equal(j.stepsOmitted, 5);
  const big: ContextRecord = {
    turn_id: 't', session_id: 's', agent_id: 'a', status: 'completed', assistant_message_id: null, model_role: 'default', model: null, budget_tokens: 1, total_tokens: 1,
    usage: { prompt_tokens: 0, completion_tokens: 0 }, steps_omitted: 0, truncated: false, created_at: new Date(0).toISOString(),
    parts: [{ name: 'system_prompt', kind: 'system', tokens: 1, state: 'included', text: 'y'.repeat(5000), items: Array.from({ length: CONTEXT_ITEMS_MAX }, () => ({ text: 'z'.repeat(900), score: 0.5 })) }],
    trace: [{ step: 'x', started_at: new Date(0).toISOString(), duration_ms: 1, status: 'ok', detail: { a: 1 } }],
  };
  const smaller = boundRecord(big, 4000);
  assert.equal(smaller.truncated, true);
  assert.equal(smaller.parts[0]!.text, undefined);
  assert.equal(smaller.parts[0]!.items!.length, CONTEXT_ITEMS_MAX, 'items stay (without text) when that is enough');
  assert.equal(smaller.parts[0]!.items![0]!.score, 0.5);
  const tiny = boundRecord(big, 600);
  assert.deepEqual(tiny.parts[0]!.items, []);
  assert.equal(tiny.parts[0]!.items_omitted, CONTEXT_ITEMS_MAX);
  assert.equal(boundRecord(big, 10_000_000), big, 'a record within the bound is kept as it is');
});
