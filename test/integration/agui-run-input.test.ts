/**
 * AG-UI's own RunAgentInput on `POST /v1/chat/agui/stream` (issue 17 item 5), on the whole stack
 * (supervisor, every service, the scripted LLM as provider), with @ag-ui/client's HttpAgent as the
 * client where it fits: a valid input streams RUN_STARTED ... TEXT_MESSAGE_* ... RUN_FINISHED (context
 * reaches the model, forwardedProps.agent_id runs that agent); a malformed one answers 400 before any
 * RUN_STARTED; a frontend tool call is handed back as TOOL_CALL_* with the run finished, and the next
 * run with the tool result completes; a tool approval is an AG-UI interrupt that a resume answers.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { assertValidRun } from '../helpers/agui.js';

let stack: TestStack;
let llm: ScriptedLlm;
let token: string;

type Msg = { role: string; content: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

before(async () => {
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Msg[];
      const last = msgs.at(-1)!;
      const tools = ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
      if (last.role === 'tool') return { content: `Result: ${String(last.content)}` };
      const text = String(last.content);
      if (text.includes('chart') && tools.includes('show_chart')) return { content: 'Drawing it. ', toolCalls: [{ id: 'call_chart', name: 'show_chart', arguments: '{"kind":"bar"}' }] };
      if (text.includes('calc') && tools.includes('calculator')) return { toolCalls: [{ id: 'call_calc', name: 'calculator', arguments: '{"expression":"2+3"}' }] };
      return { content: 'Hello from AG-UI.' };
    },
  });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await callJson(stack.url, token, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status === 201 || prov.status === 200, JSON.stringify(prov.body));
  const role = await callJson(stack.url, token, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' });
  assert.ok(role.status >= 200 && role.status < 300, JSON.stringify(role.body));
  // Start the guardrail's scan workers before the first turn: on a loaded machine a cold first check
  // can outlast the runtime's wait for a verdict, which would block a turn for a reason not under test.
  const warm = await callJson(stack.url, token, 'POST', '/v1/guard/input', { content: 'warm up', scope: { tenant_id: 'default' } });
  assert.ok(warm.status < 500, JSON.stringify(warm.body));
});
after(async () => { await stack?.stop(); await llm?.close(); });

/** POST a body to the AG-UI route and read the answer (events when it streams). */
async function post(body: unknown): Promise<{ status: number; type: string; events: Array<Record<string, unknown>>; raw: string }> {
  const r = await fetch(`${stack.url}/v1/chat/agui/stream`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const raw = await r.text();
  const type = r.headers.get('content-type') ?? '';
  const events = type.includes('text/event-stream') ? raw.split('\n\n').filter(Boolean).map((x) => JSON.parse(x.slice(6)) as Record<string, unknown>) : [];
  return { status: r.status, type, events, raw };
}

/** An HttpAgent on the route, as the signed-in admin, recording every event it applies. */
function agent(threadId?: string): { a: HttpAgent; events: BaseEvent[] } {
  const a = new HttpAgent({ url: `${stack.url}/v1/chat/agui/stream`, headers: { authorization: `Bearer ${token}` }, ...(threadId ? { threadId } : {}) });
  const events: BaseEvent[] = [];
  a.subscribe({ onEvent: ({ event }) => { events.push(event); } });
  return { a, events };
}

const CHART_TOOL = { name: 'show_chart', description: 'Show a chart in the page', parameters: { type: 'object', properties: { kind: { type: 'string' } }, required: ['kind'] } };

test('a valid RunAgentInput streams RUN_STARTED, the text and RUN_FINISHED; context reaches the model; forwardedProps.agent_id runs that agent', async () => {
  const before = llm.requests.length;
  const r = await post({
    threadId: 'client-thread-1', runId: 'client-run-1', state: { page: 'home' },
    messages: [{ id: 'u1', role: 'user', content: 'Say hello' }],
    tools: [], context: [{ description: 'Page the user is on', value: 'the sales dashboard' }], forwardedProps: { agent_id: 'default' },
  });
  assert.equal(r.status, 200, r.raw);
  await assertValidRun(r.events);
  const types = r.events.map((e) => e.type);
  assert.equal(types[0], 'RUN_STARTED');
  assert.equal(types.at(-1), 'RUN_FINISHED');
  for (const t of ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']) assert.ok(types.includes(t), `${t} in ${r.raw.slice(0, 1500)}`);
  assert.equal(r.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), 'Hello from AG-UI.');
  const fin = r.events.at(-1)! as { result: { agent_id: string; session_id: string }; threadId: string; outcome: { type: string } };
  assert.equal(fin.outcome.type, 'success');
  assert.equal(fin.result.agent_id, 'default');
  assert.equal(r.events[0]!.threadId, fin.result.session_id, 'a thread the runtime does not know starts a session, named as the thread');
  const sent = llm.requests.slice(before).find((q) => q.path.endsWith('/chat/completions'))!.body.messages as Msg[];
  assert.ok(sent.some((m) => m.role === 'system' && String(m.content).includes('Page the user is on: the sales dashboard')), 'context as a system message');

  // The same thread goes on: HttpAgent with the session as its thread id; only the new message is sent.
  const { a, events } = agent(fin.result.session_id);
  a.setMessages([{ id: 'u1', role: 'user', content: 'Say hello' }, { id: 'a1', role: 'assistant', content: 'Hello from AG-UI.' }, { id: 'u2', role: 'user', content: 'Say hello again' }]);
  const n = llm.requests.length;
  await a.runAgent();
  assert.deepEqual([events[0]!.type, events.at(-1)!.type], ['RUN_STARTED', 'RUN_FINISHED']);
  assert.equal((events[0] as unknown as { threadId: string }).threadId, fin.result.session_id);
  const second = llm.requests.slice(n).find((q) => q.path.endsWith('/chat/completions'))!.body.messages as Msg[];
  assert.deepEqual(second.filter((m) => m.role === 'user').map((m) => m.content), ['Say hello', 'Say hello again'], 'history from the session, the new message once');
  assert.equal(a.messages.at(-1)!.content, 'Hello from AG-UI.');
});

test('a malformed RunAgentInput answers 400 {error, code} and no RUN_STARTED', async () => {
  for (const body of [
    { threadId: 5, runId: 'r', messages: [] },
    { threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'wizard', content: 'hi' }] },
    { threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [{ name: 'x' }] },
    { runId: 'r', messages: [{ id: 'm', role: 'user', content: 'hi' }] },
  ]) {
    const r = await post(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.raw}`);
    assert.match(r.type, /application\/json/);
    const b = JSON.parse(r.raw) as { error: string; code: string };
    assert.equal(b.code, 'invalid_request');
    assert.match(b.error, /RunAgentInput/);
    assert.ok(!r.raw.includes('RUN_STARTED'));
  }
  // The runtime takes a `tool` message only on an existing session, naming its call.
  const orphan = await callJson(stack.url, token, 'POST', '/v1/chat', { messages: [{ role: 'tool', tool_call_id: 'c1', content: 'x' }] });
  assert.equal(orphan.status, 400);
  assert.equal(orphan.body.code, 'invalid_request');
  const tools = await callJson(stack.url, token, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }], client_tools: [{ name: 'bad name!' }] });
  assert.equal(tools.status, 400, 'client tool names are checked');
  // The runtime's own body still works on the same route.
  const plain = await post({ messages: [{ role: 'user', content: 'plain body' }] });
  assert.equal(plain.status, 200);
  assert.equal(plain.events.at(-1)!.type, 'RUN_FINISHED');
});

test('a frontend tool call is handed back as TOOL_CALL_* and RUN_FINISHED; the next run with the result completes', async () => {
  const { a, events } = agent();
  a.setMessages([{ id: 'u1', role: 'user', content: 'draw a chart please' }]);
  const n = llm.requests.length;
  await a.runAgent({ tools: [CHART_TOOL] });
  await assertValidRun(events as unknown as Array<Record<string, unknown>>);
  const offered = llm.requests.slice(n).find((q) => q.path.endsWith('/chat/completions'))!.body.tools as Array<{ function: { name: string } }>;
  assert.ok(offered.some((t) => t.function.name === 'show_chart'), 'the client tool is offered to the model');
  const types: string[] = events.map((e) => e.type);
  const start = events.find((e) => e.type === 'TOOL_CALL_START') as unknown as { toolCallId: string; toolCallName: string };
  assert.equal(start.toolCallName, 'show_chart');
  assert.equal(start.toolCallId, 'call_chart');
  assert.ok(types.indexOf('TOOL_CALL_ARGS') > types.indexOf('TOOL_CALL_START') && types.indexOf('TOOL_CALL_END') > types.indexOf('TOOL_CALL_ARGS'));
  assert.ok(!types.includes('TOOL_CALL_RESULT'), 'the runtime did not run it');
  const fin = events.at(-1) as unknown as { type: string; outcome: { type: string; pendingToolCallIds?: string[] }; threadId: string };
  assert.equal(fin.type, 'RUN_FINISHED');
  assert.deepEqual(fin.outcome, { type: 'success', pendingToolCallIds: ['call_chart'] });
  const call = a.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : [])).find((c) => c.id === 'call_chart')!;
  assert.equal(call.function.arguments, '{"kind":"bar"}');

  // The client ran the tool: a second run (same thread = the session) carries the result.
  a.threadId = fin.threadId;
  a.addMessage({ id: 't1', role: 'tool', toolCallId: 'call_chart', content: 'chart shown' } as Message);
  events.length = 0;
  const m = llm.requests.length;
  await a.runAgent({ tools: [CHART_TOOL] });
  await assertValidRun(events as unknown as Array<Record<string, unknown>>);
  assert.equal(events.at(-1)!.type, 'RUN_FINISHED');
  assert.equal(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as unknown as { delta: string }).delta).join(''), 'Result: chart shown');
  const sent = llm.requests.slice(m).find((q) => q.path.endsWith('/chat/completions'))!.body.messages as Msg[];
  const at = sent.findIndex((x) => x.role === 'assistant' && x.tool_calls?.some((c) => c.id === 'call_chart'));
  assert.ok(at >= 0, 'the handed-back call is in the history');
  assert.deepEqual({ role: sent[at + 1]!.role, id: sent[at + 1]!.tool_call_id, content: sent[at + 1]!.content }, { role: 'tool', id: 'call_chart', content: 'chart shown' }, 'its result follows the call');
  assert.equal(sent.filter((x) => x.role === 'user').length, 1, 'the user message is not sent twice');
});

test('a tool approval is an AG-UI interrupt; resuming it approves the call and finishes the run', async () => {
  assert.equal((await callJson(stack.url, token, 'PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' })).status, 200);
  try {
    const { a, events } = agent();
    a.setMessages([{ id: 'u1', role: 'user', content: 'calc 2+3' }]);
    await a.runAgent();
    await assertValidRun(events as unknown as Array<Record<string, unknown>>);
    const fin = events.at(-1) as unknown as { type: string; outcome: { type: string; interrupts: Array<{ id: string; reason: string; toolCallId: string; metadata: { tool: string; arguments: unknown } }> } };
    assert.equal(fin.type, 'RUN_FINISHED');
    assert.equal(fin.outcome.type, 'interrupt');
    const [intr] = fin.outcome.interrupts;
    assert.equal(intr!.reason, 'tool_approval');
    assert.equal(intr!.toolCallId, 'call_calc');
    assert.deepEqual(intr!.metadata, { tool: 'calculator', arguments: { expression: '2+3' } });
    assert.ok(events.some((e) => e.type === 'CUSTOM' && (e as unknown as { name: string }).name === 'approval_required'));
    assert.deepEqual(a.pendingInterrupts.map((i) => i.id), [intr!.id]);
    const pending = await callJson(stack.url, token, 'GET', '/v1/user/approvals?status=pending');
    assert.ok((pending.body.items as Array<{ id: string }>).some((x) => x.id === intr!.id), 'the interrupt is the pending approval');

    // A resume naming an unknown interrupt is refused before RUN_STARTED.
    const bad = await post({ threadId: 't', runId: 'r', messages: [], resume: [{ interruptId: 'nope', status: 'resolved', payload: { approved: true } }] });
    assert.equal(bad.status, 404);
    assert.equal(JSON.parse(bad.raw).code, 'interrupt_not_found');
    // Another user cannot resume (nor decide) it.
    const made = await callJson(stack.url, token, 'POST', '/v1/admin/users', { email: 'agui-other@example.test', display_name: 'Other', password: 'other-long-password', roles: ['user'] });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const other = await login(stack.url, 'agui-other@example.test', 'other-long-password');
    const stolen = await fetch(`${stack.url}/v1/chat/agui/stream`, {
      method: 'POST', headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't', runId: 'r', messages: [], resume: [{ interruptId: intr!.id, status: 'resolved', payload: { approved: true } }] }),
    });
    assert.equal(stolen.status, 404);
    assert.equal((await stolen.json() as { code: string }).code, 'interrupt_not_found');

    events.length = 0;
    await a.runAgent({ resume: [{ interruptId: intr!.id, status: 'resolved', payload: { approved: true } }] });
    await assertValidRun(events as unknown as Array<Record<string, unknown>>);
    assert.equal(events[0]!.type, 'RUN_STARTED');
    const result = events.find((e) => e.type === 'TOOL_CALL_RESULT') as unknown as { toolCallId: string; content: string };
    assert.equal(result.toolCallId, 'call_calc');
    assert.equal((JSON.parse(result.content) as { result: number }).result, 5, 'the approved call ran');
    assert.equal(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => (e as unknown as { delta: string }).delta).join(''), `Result: ${result.content}`);
    const done = events.at(-1) as unknown as { type: string; outcome: { type: string }; result: { receipt: { turn_id: string } }; runId: string };
    assert.equal(done.type, 'RUN_FINISHED');
    assert.equal(done.outcome.type, 'success');
    assert.equal(done.runId, done.result.receipt.turn_id, 'the resumed run is the paused turn');
    // The paused turn seals only when its continuation ends: the receipt holds the call made after the resume.
    const deadline = Date.now() + 20_000;
    let kinds: string[] = [];
    while (Date.now() < deadline) {
      const r = await callJson(stack.url, token, 'GET', `/v1/receipts/${done.runId}`);
      kinds = r.status === 200 ? (r.body.events as Array<{ payload_type: string }>).map((e) => e.payload_type) : [];
      if (kinds.includes('turn_sealed')) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.ok(kinds.includes('turn_sealed'), `sealed: ${kinds.join(',')}`);
    assert.ok(kinds.includes('tool_returned'), `the tool result after the resume is in the sealed receipt: ${kinds.join(',')}`);
    assert.ok(kinds.lastIndexOf('tool_returned') < kinds.indexOf('turn_sealed'), 'sealed after the continuation');
    const decided = await callJson(stack.url, token, 'GET', '/v1/user/approvals');
    assert.equal((decided.body.items as Array<{ id: string; status: string }>).find((x) => x.id === intr!.id)?.status, 'approved');
  } finally {
    await callJson(stack.url, token, 'PUT', '/v1/admin/policies/tools/calculator', { policy: 'auto' });
  }
});
