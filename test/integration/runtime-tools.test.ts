/**
 * Tool loop and approvals (issue 5 item 3; spec "Chat stream events": tool_call, tool_result,
 * approval_required; "Agent runtime surfaces": /v1/user/approvals, GET /v1/admin/approvals;
 * "Turn events": tool_called, tool_returned): OpenAI tool calls run through the registry, `ask`
 * parks the run until the owner approves or rejects, `deny` never runs, the step limit holds.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { auditGet, eventually, startHarness, type Harness } from '../helpers/runtime-harness.js';
import type { ApprovalView, ChatResponse } from '../../services/agent-runtime/src/contracts.js';
import type { RecordedRequest, ScriptedReply } from '../helpers/scripted-llm.js';

let h: Harness;
const ADMIN = { id: 'admin-1', roles: ['admin', 'user'] };

/** A model that calls `tool` with `args` once, then answers with the tool result it saw. */
function toolThenAnswer(tool: string, args: unknown) {
  return (r: RecordedRequest): ScriptedReply => {
    if (r.body.model === 'title') return { content: 'A title' };
    const msgs = r.body.messages as Array<{ role: string; content: string }>;
    const last = msgs[msgs.length - 1]!;
    if (last.role === 'tool') return { content: `The tool said: ${last.content}` };
    return { content: 'Let me check. ', toolCalls: [{ id: 'call_1', name: tool, arguments: JSON.stringify(args) }] };
  };
}

before(async () => {
  h = await startHarness({ approvalTimeoutSeconds: 30, maxToolSteps: 3 }, { script: toolThenAnswer('calculator', { expression: '6 * 7' }) });
});
after(async () => { await h.close(); });

test('auto tool: tool_call, tool_result, final answer; tools offered to the model; tool events captured', async () => {
  const turn = '01JTESTTOOL000000000000001';
  await h.startTurn(turn);
  const r = await h.stream({ messages: [{ role: 'user', content: 'What is 6 times 7?' }] }, {}, { turnId: turn });
  const names = r.records.map((x) => x.event);
  assert.deepEqual(names.filter((n) => ['tool_call', 'tool_result', 'done'].includes(n)), ['tool_call', 'tool_result', 'done']);
  const call = r.records.find((x) => x.event === 'tool_call')!.data as { tool: string; arguments: unknown; call_id: string };
  assert.deepEqual(call, { tool: 'calculator', arguments: { expression: '6 * 7' }, call_id: 'call_1' });
  const result = r.records.find((x) => x.event === 'tool_result')!.data as { tool: string; result: string; call_id: string };
  assert.equal(result.tool, 'calculator');
  assert.equal(result.call_id, 'call_1');
  assert.deepEqual(JSON.parse(result.result), { expression: '6 * 7', result: 42 });
  const text = r.records.filter((x) => x.event === 'token').map((x) => (x.data as { content: string }).content).join('');
  assert.match(text, /The tool said: .*"result":42/);
  const first = h.llm.requests.find((q) => q.headers['x-svc-turn-id'] === turn)!;
  const offered = (first.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).sort();
  assert.deepEqual(offered, ['calculator', 'get_current_time']);
  await h.sealTurn(turn);
  const rec = await eventually(async () => {
    const x = await auditGet(h, `/v1/audit/turns/${turn}/replay`);
    const evs = (x.body as { events?: Array<{ payload_type: string; artifacts: Array<{ kind: string }> }> }).events ?? [];
    return evs.some((e) => e.payload_type === 'turn_sealed') ? evs : null;
  });
  const types = rec.map((e) => e.payload_type);
  for (const t of ['prompt_generated', 'model_invoked', 'model_response', 'tool_called', 'tool_returned']) assert.ok(types.includes(t), t);
  assert.equal(types.filter((t) => t === 'prompt_generated').length, 2, 'two model steps');
  assert.equal(rec.find((e) => e.payload_type === 'tool_called')!.artifacts[0]?.kind, 'tool_input');
  assert.equal(rec.find((e) => e.payload_type === 'tool_returned')!.artifacts[0]?.kind, 'tool_output');
  // The session keeps the tool exchange for the next turn.
  const sid = (r.records[0]!.data as { session_id: string }).session_id;
  const s = (await h.call('GET', `/v1/sessions/${sid}`)).body as { messages: Array<{ role: string; tool_calls?: unknown[] }> };
  assert.deepEqual(s.messages.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
});

test('ask: approval_required parks the run until the owner approves; inbox, admin list, other users and repeats', async () => {
  const put = await h.call('PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' }, ADMIN);
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal((await h.call('PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' })).status, 403, 'users may not set policy');
  try {
    const tools = (await h.call('GET', '/v1/tools')).body as { items: Array<{ name: string; policy: string }> };
    assert.equal(tools.items.find((t) => t.name === 'calculator')?.policy, 'ask');
    let approval: ApprovalView | null = null;
    let resolved = false;
    const before = h.llm.requests.length;
    const streaming = h.stream({ messages: [{ role: 'user', content: 'What is 6 times 7?' }] }, {}, {
      onRecord: (rec) => { if (rec.event === 'approval_required') approval = (rec.data as { approvals: ApprovalView[] }).approvals[0]!; },
    }).then((x) => { resolved = true; return x; });
    await eventually(async () => approval);
    const a = approval as unknown as ApprovalView;
    assert.equal(a.tool, 'calculator');
    assert.equal(a.status, 'pending');
    assert.deepEqual(a.arguments, { expression: '6 * 7' });
    // Parked: nothing more reaches the model, the stream stays open.
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(resolved, false);
    assert.equal(h.llm.requests.length, before + 1);
    const inbox = (await h.call('GET', '/v1/user/approvals?status=pending')).body as { items: ApprovalView[] };
    assert.ok(inbox.items.some((x) => x.id === a.id));
    assert.equal(((await h.call('GET', '/v1/user/approvals', undefined, { id: 'user-2' })).body as { items: unknown[] }).items.length, 0);
    const all = (await h.call('GET', '/v1/admin/approvals', undefined, ADMIN)).body as { items: ApprovalView[] };
    assert.ok(all.items.some((x) => x.id === a.id));
    assert.equal((await h.call('GET', '/v1/admin/approvals')).status, 403);
    assert.equal((await h.call('POST', `/v1/user/approvals/${a.id}/approve`, {}, { id: 'user-2' })).status, 404, 'not their approval');
    const ok = await h.call('POST', `/v1/user/approvals/${a.id}/approve`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((ok.body as ApprovalView).status, 'approved');
    assert.equal((ok.body as ApprovalView).decided_by, 'user-1');
    const again = await h.call('POST', `/v1/user/approvals/${a.id}/reject`, { reason: 'too late' });
    assert.equal(again.status, 409);
    assert.equal((again.body as { code: string }).code, 'approval_decided');
    const r = await streaming;
    const names = r.records.map((x) => x.event);
    assert.ok(names.indexOf('approval_required') < names.indexOf('tool_result'));
    assert.equal(names[names.length - 1], 'done');
    assert.deepEqual(JSON.parse((r.records.find((x) => x.event === 'tool_result')!.data as { result: string }).result).result, 42);
    const required = r.records.find((x) => x.event === 'approval_required')!.data as { session_id: string; agent_id: string; content?: string };
    assert.equal(required.session_id, (r.records[0]!.data as { session_id: string }).session_id);
    assert.equal(required.agent_id, 'default');
    assert.equal(required.content, 'Let me check. ');
  } finally {
    assert.equal((await h.call('DELETE', '/v1/admin/policies/tools/calculator', undefined, ADMIN)).status, 204);
  }
});

test('ask + reject: the tool does not run and the model is told; JSON chat waits for the decision too', async () => {
  await h.call('PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' }, ADMIN);
  try {
    const pending = h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'What is 6 times 7?' }] });
    const a = await eventually(async () => ((await h.call('GET', '/v1/user/approvals?status=pending')).body as { items: ApprovalView[] }).items[0]);
    const rej = await h.call('POST', `/v1/user/approvals/${a.id}/reject`, { reason: 'not now' });
    assert.equal((rej.body as ApprovalView).status, 'rejected');
    assert.equal((rej.body as ApprovalView).reason, 'not now');
    const r = await pending;
    assert.equal(r.status, 200);
    const b = r.body as ChatResponse;
    assert.match(b.message.content, /did not approve/);
    assert.equal(b.message.processing_trace.tool_calls[0]?.status, 'not_approved');
    assert.equal(b.message.processing_trace.tool_calls[0]?.approval_id, a.id);
  } finally {
    await h.call('DELETE', '/v1/admin/policies/tools/calculator', undefined, ADMIN);
  }
});

test('deny: the tool is not offered and a call to it is refused', async () => {
  await h.call('PUT', '/v1/admin/policies/tools/calculator', { policy: 'deny' }, ADMIN);
  try {
    const r = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'What is 6 times 7?' }] });
    const first = h.llm.requests.find((q) => q.headers['x-svc-turn-id'] === r.turnId)!;
    assert.deepEqual((first.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name), ['get_current_time']);
    assert.match((r.body as ChatResponse).message.content, /denied by policy/);
  } finally {
    await h.call('DELETE', '/v1/admin/policies/tools/calculator', undefined, ADMIN);
  }
});

test('the step limit stops a model that keeps calling tools: the last step offers no tools', async () => {
  h.llm.setScript((r) => {
    if (r.body.tools) return { toolCalls: [{ id: `c${h.llm.requests.length}`, name: 'get_current_time', arguments: '{"timezone":"Europe/Paris"}' }] };
    return { content: 'Out of steps, here is my answer.' };
  });
  try {
    const r = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'loop' }] });
    assert.equal(r.status, 200);
    const b = r.body as ChatResponse;
    assert.equal(b.message.content, 'Out of steps, here is my answer.');
    assert.equal(b.message.processing_trace.steps, 3);
    assert.equal(b.message.processing_trace.tool_calls.length, 2);
    const calls = h.llm.requests.filter((q) => q.headers['x-svc-turn-id'] === r.turnId);
    assert.equal(calls.length, 3);
    assert.equal(calls[2]!.body.tools, undefined);
  } finally {
    h.llm.setScript(toolThenAnswer('calculator', { expression: '6 * 7' }));
  }
});

test('unknown tools and malformed arguments come back to the model as errors', async () => {
  h.llm.setScript((r) => {
    const msgs = r.body.messages as Array<{ role: string; content: string }>;
    if (msgs.at(-1)!.role === 'tool') return { content: msgs.filter((m) => m.role === 'tool').map((m) => m.content).join(' | ') };
    return { toolCalls: [{ id: 'a', name: 'no_such_tool', arguments: '{}' }, { id: 'b', name: 'calculator', arguments: '{oops' }, { id: 'c', name: 'calculator', arguments: '{"expression":"1/"}' }] };
  });
  try {
    const r = await h.stream({ messages: [{ role: 'user', content: 'break things' }] });
    const results = r.records.filter((x) => x.event === 'tool_result').map((x) => (x.data as { result: string }).result);
    assert.equal(results.length, 3);
    assert.match(results[0]!, /unknown tool/);
    assert.match(results[1]!, /not a JSON object/);
    assert.match(results[2]!, /^error: unexpected end/);
    assert.equal(r.records.at(-1)!.event, 'done');
  } finally {
    h.llm.setScript(toolThenAnswer('calculator', { expression: '6 * 7' }));
  }
});

test('tool results are cut to 2,000 characters in the stream but kept whole for the model', async () => {
  const big = await startHarness({}, {
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: string }>;
      if (msgs.at(-1)!.role === 'tool') return { content: `len=${msgs.at(-1)!.content.length}` };
      return { toolCalls: [{ id: 'x', name: 'big_tool', arguments: '{}' }] };
    },
  }, {
    pluginProbeMs: 0,
    extraTools: [{ definition: { type: 'function', function: { name: 'big_tool', description: 'returns a lot', parameters: { type: 'object', properties: {} } } }, execute: () => 'x'.repeat(5000) }],
  });
  try {
    const r = await big.stream({ messages: [{ role: 'user', content: 'go' }] });
    const res = r.records.find((x) => x.event === 'tool_result')!.data as { result: string };
    assert.equal(res.result.length, 2000);
    assert.equal(r.records.filter((x) => x.event === 'token').map((x) => (x.data as { content: string }).content).join(''), 'len=5000');
  } finally {
    await big.close();
  }
});
