/**
 * The AG-UI translator (services/gateway/src/agui/translate.ts) over synthetic chat streams: schema
 * validity (@ag-ui/core 1.0), verifyEvents ordering (@ag-ui/client), RUN_STARTED first and
 * RUN_FINISHED / RUN_ERROR last, CUSTOM for events without a counterpart; and the SSE parser.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AguiTranslator, aguiRecord, type AguiEvent } from '../../../services/gateway/src/agui/translate.js';
import { SseParser, type SseRecord } from '../../../services/gateway/src/agui/sse.js';
import { assertValidRun } from '../../helpers/agui.js';

function run(records: SseRecord[], opts: { threadId?: string } = {}): AguiEvent[] {
  let n = 0;
  const t = new AguiTranslator({ runId: 'turn-1', threadId: opts.threadId ?? null, newId: () => `id-${++n}` });
  return [...records.flatMap((r) => t.push(r)), ...t.end()];
}

const rec = (event: string, data: unknown): SseRecord => ({ event, data });

test('a full run with reasoning, text, tools, approvals and the rest maps onto valid AG-UI', async () => {
  const events = run([
    rec('session_created', { session_id: 'S1' }),
    rec('trace_update', { patch: { model_role: 'default' } }),
    rec('thinking', { content: 'hmm' }), rec('thinking', { content: '...' }),
    rec('token', { content: 'Let me ' }), rec('token', { content: '' }), rec('token', { content: 'check.' }),
    rec('tool_call', { tool: 'calculator', arguments: { expression: '1+1' }, call_id: 'c1' }),
    rec('approval_required', { session_id: 'S1', agent_id: 'default', approvals: [{ id: 'A1' }] }),
    rec('tool_result', { tool: 'calculator', result: '{"result":2}', call_id: 'c1' }),
    rec('artifact', { call_id: 'c1', name: 'plot.png' }),
    rec('token', { content: 'It is 2.' }),
    rec('retract', { reason: 'pii', original_length: 8 }),
    rec('token', { content: 'It is <N>.' }),
    rec('user_redaction', { display_content: 'x', categories_scrubbed: [], entities_redacted: 0 }),
    rec('blocked', { reason: 'nope' }),
    rec('mcp_failures', { failures: [] }),
    rec('done', { session_id: 'S1', agent_id: 'default', receipt: { turn_id: 'turn-1' } }),
    rec('token', { content: 'after done is ignored' }),
  ]);
  await assertValidRun(events);
  const types: string[] = events.map((e) => e.type);
  assert.equal(types[0], 'RUN_STARTED');
  assert.equal(types.at(-1), 'RUN_FINISHED');
  assert.deepEqual(events[0], { type: 'RUN_STARTED', threadId: 'S1', runId: 'turn-1' });
  assert.deepEqual(types.slice(1, 7), ['CUSTOM', 'CUSTOM', 'REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_CONTENT']);
  assert.ok(types.includes('TEXT_MESSAGE_START') && types.includes('TOOL_CALL_START') && types.includes('TOOL_CALL_RESULT'));
  const start = events.find((e) => e.type === 'TOOL_CALL_START')!;
  assert.deepEqual(start, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'calculator', parentMessageId: 'id-2' });
  assert.deepEqual(events.find((e) => e.type === 'TOOL_CALL_ARGS'), { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"expression":"1+1"}' });
  const result = events.find((e) => e.type === 'TOOL_CALL_RESULT')!;
  assert.equal(result.toolCallId, 'c1');
  assert.equal(result.content, '{"result":2}');
  assert.equal(result.role, 'tool');
  const customs = events.filter((e) => e.type === 'CUSTOM').map((e) => e.name);
  assert.deepEqual(customs, ['session_created', 'trace_update', 'approval_required', 'artifact', 'retract', 'user_redaction', 'blocked', 'mcp_failures']);
  const fin = events.at(-1)!;
  assert.equal(fin.threadId, 'S1');
  assert.equal(fin.runId, 'turn-1');
  assert.deepEqual(fin.outcome, { type: 'success' });
  assert.equal((fin.result as { receipt: { turn_id: string } }).receipt.turn_id, 'turn-1');
  // Text after a retract starts a new message.
  const starts = events.filter((e) => e.type === 'TEXT_MESSAGE_START').length;
  assert.equal(starts, 3);
  assert.equal(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length, 4, 'empty tokens are dropped');
});

test('error ends with RUN_ERROR {message, code}, closing open messages first', async () => {
  const events = run([rec('token', { content: 'partial' }), rec('error', { message: 'no provider', code: 'backend_unavailable' })], { threadId: 'S9' });
  await assertValidRun(events);
  assert.deepEqual(events.map((e) => e.type), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_ERROR']);
  assert.equal(events[0]!.threadId, 'S9');
  assert.deepEqual(events.at(-1), { type: 'RUN_ERROR', message: 'no provider', code: 'backend_unavailable' });
});

test('an upstream that ends early yields RUN_ERROR stream_incomplete; an empty one still starts and errors', async () => {
  const cut = run([rec('thinking', { content: 'x' })]);
  await assertValidRun(cut);
  assert.deepEqual(cut.map((e) => e.type), ['RUN_STARTED', 'REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_END', 'REASONING_END', 'RUN_ERROR']);
  assert.equal(cut.at(-1)!.code, 'stream_incomplete');
  const empty = run([]);
  await assertValidRun(empty);
  assert.deepEqual(empty.map((e) => e.type), ['RUN_ERROR']);
});

test('threadId falls back to the run id; unknown events become CUSTOM; string payloads survive', async () => {
  const events = run([rec('conversation_created', { conversation_id: 'C' }), rec('message', 'plain text'), rec('done', { session_id: 'S2', agent_id: 'a' })]);
  await assertValidRun(events);
  assert.equal(events[0]!.threadId, 'turn-1');
  assert.deepEqual(events[2], { type: 'CUSTOM', name: 'message', value: 'plain text' });
});

test('records are data-only SSE lines', () => {
  assert.equal(aguiRecord({ type: 'RUN_ERROR' as AguiEvent['type'], message: 'x' }), 'data: {"type":"RUN_ERROR","message":"x"}\n\n');
});

test('the SSE parser handles split chunks, CRLF, comments, multi-line data and a missing final blank line', () => {
  const p = new SseParser();
  const out = [
    ...p.push('event: tok'), ...p.push('en\r\ndata: {"content":"a"}\r\n\r\n: keep-alive\n\n'),
    ...p.push('data: line1\ndata: line2\n\n'), ...p.push('event: done\ndata: {}'),
  ];
  assert.deepEqual(out, [{ event: 'token', data: { content: 'a' } }, { event: 'message', data: 'line1\nline2' }]);
  assert.deepEqual(p.end(), [{ event: 'done', data: {} }]);
});
