/**
 * AG-UI RunAgentInput on the AG-UI route (issue 17 item 5), the pure parts: which bodies are a
 * RunAgentInput and whether they validate (services/gateway/src/agui/run-input.ts), how one maps to
 * the runtime's chat body, resume entries as approval decisions, and the translator's handed-back
 * calls (`pendingToolCallIds`) and approval interrupts (`outcome: interrupt`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunAgentInput } from '@ag-ui/core';
import { chatBodyOf, readRunInput, resumeDecisions } from '../../../services/gateway/src/agui/run-input.js';
import { AguiTranslator, type AguiEvent } from '../../../services/gateway/src/agui/translate.js';
import type { SseRecord } from '../../../services/gateway/src/agui/sse.js';
import { assertValidRun } from '../../helpers/agui.js';

const input = (extra: Partial<RunAgentInput> = {}): RunAgentInput => ({ threadId: 'S1', runId: 'r1', messages: [], tools: [], context: [], ...extra });

test('a body with threadId or runId is a RunAgentInput, validated; any other is the chat body', () => {
  assert.equal(readRunInput(Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }))).kind, 'chat');
  assert.equal(readRunInput(Buffer.from('not json')).kind, 'chat');
  const ok = readRunInput(Buffer.from(JSON.stringify({ threadId: 't', runId: 'r', messages: [{ id: '1', role: 'user', content: 'hi' }] })));
  assert.equal(ok.kind, 'input');
  const bad = readRunInput({ threadId: 't', runId: 'r', messages: [{ id: '1', role: 'user' }] });
  assert.equal(bad.kind, 'invalid');
  assert.match((bad as { message: string }).message, /messages\.0/);
  assert.equal(readRunInput({ runId: 'r', messages: [] }).kind, 'invalid');
});

test('mapping: the new messages with a session, the whole text history without; context, tools and agent_id', () => {
  const msgs = [
    { id: 'u1', role: 'user', content: 'one' }, { id: 'a1', role: 'assistant', content: 'ok', toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    { id: 't1', role: 'tool', toolCallId: 'c1', content: 'done' }, { id: 'd1', role: 'developer', content: 'be brief' },
    { id: 'u2', role: 'user', content: [{ type: 'text', text: 'two' }] },
  ] as RunAgentInput['messages'];
  const i = input({
    messages: msgs, context: [{ description: 'page', value: 'home' }], forwardedProps: { agent_id: 'reviewer' },
    tools: [{ name: 'show', description: 'Show', parameters: { type: 'object' } }],
  });
  assert.deepEqual(chatBodyOf(i, true), {
    session_id: 'S1', agent_id: 'reviewer', client_tools: [{ name: 'show', description: 'Show', parameters: { type: 'object' } }],
    messages: [{ role: 'system', content: 'Context from the client:\n- page: home' }, { role: 'tool', content: 'done', tool_call_id: 'c1' }, { role: 'system', content: 'be brief' }, { role: 'user', content: 'two' }],
  });
  const fresh = chatBodyOf(i, false);
  assert.equal(fresh.session_id, undefined);
  assert.deepEqual((fresh.messages as Array<{ role: string }>).map((m) => m.role), ['system', 'user', 'assistant', 'system', 'user']);
});

test('resume entries decide approvals: resolved approves unless payload.approved is false; cancelled rejects', () => {
  assert.deepEqual(resumeDecisions(input({ resume: [
    { interruptId: 'A1', status: 'resolved', payload: { approved: true } }, { interruptId: 'A2', status: 'resolved', payload: { approved: false, reason: 'no' } },
    { interruptId: 'A3', status: 'cancelled' },
  ] })), [{ approvalId: 'A1', approve: true }, { approvalId: 'A2', approve: false, reason: 'no' }, { approvalId: 'A3', approve: false }]);
});

const rec = (event: string, data: unknown): SseRecord => ({ event, data });
function run(records: SseRecord[], interrupts: boolean): { events: AguiEvent[]; t: AguiTranslator } {
  let n = 0;
  const t = new AguiTranslator({ runId: 'turn-1', threadId: 'S1', newId: () => `id-${++n}`, interrupts });
  return { events: [...records.flatMap((r) => t.push(r)), ...t.end()], t };
}

test('a call without a result is named in pendingToolCallIds', async () => {
  const { events } = run([rec('tool_call', { tool: 'show', arguments: { a: 1 }, call_id: 'c9' }), rec('done', { session_id: 'S1' })], false);
  await assertValidRun(events);
  assert.deepEqual(events.at(-1)!.outcome, { type: 'success', pendingToolCallIds: ['c9'] });
  const closed = run([rec('tool_call', { tool: 'f', call_id: 'c1' }), rec('tool_result', { tool: 'f', call_id: 'c1', result: 'r' }), rec('done', {})], false);
  assert.deepEqual(closed.events.at(-1)!.outcome, { type: 'success' });
});

test('with interrupts, approval_required ends the run with an interrupt per approval; without, it stays CUSTOM', async () => {
  const records = [
    rec('token', { content: 'Let me check.' }), rec('tool_call', { tool: 'calculator', arguments: { expression: '1+1' }, call_id: 'c1' }),
    rec('approval_required', { approvals: [{ id: 'A1', tool: 'calculator', call_id: 'c1', arguments: { expression: '1+1' }, expires_at: '2030-01-01T00:00:00.000Z' }] }),
    rec('tool_result', { tool: 'calculator', call_id: 'c1', result: '2' }),
  ];
  const { events, t } = run(records, true);
  await assertValidRun(events);
  const fin = events.at(-1)!;
  assert.equal(fin.type, 'RUN_FINISHED');
  assert.deepEqual(fin.outcome, { type: 'interrupt', interrupts: [{
    id: 'A1', reason: 'tool_approval', message: 'Approve the call of calculator?', toolCallId: 'c1', expiresAt: '2030-01-01T00:00:00.000Z',
    responseSchema: { type: 'object', properties: { approved: { type: 'boolean' }, reason: { type: 'string' } } },
    metadata: { tool: 'calculator', arguments: { expression: '1+1' } },
  }] });
  assert.deepEqual(t.interrupted, ['A1']);
  assert.ok(!events.some((e) => e.type === 'TOOL_CALL_RESULT'), 'nothing after the interrupt');
  const legacy = run(records, false);
  assert.equal(legacy.events.at(-1)!.type, 'RUN_ERROR', 'the chat-body run goes on through the approval (here: the stream ends)');
  assert.ok(legacy.events.some((e) => e.type === 'TOOL_CALL_RESULT'));
});
