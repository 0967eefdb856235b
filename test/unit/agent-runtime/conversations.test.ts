/**
 * Durable conversations, pure parts and the store (issue 13 item 4): cursors, the OpenAI-shaped
 * views, request items -> rows, stored messages <-> items, the history the model gets, the run
 * split, how a turn's outcome ends a run, the store's run bookkeeping across a restart, and the
 * gateway's AG-UI translation of `conversation_created`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../../../services/shared/kit/domain-error.js';
import {
  conversationView, decodeCursor, encodeCursor, itemsFromInput, itemsFromMessages, itemsToHistory, itemToChatInput, itemView, runView, splitForRun,
} from '../../../services/agent-runtime/src/domain/conversations/items.js';
import type { ItemRow, NewItem } from '../../../services/agent-runtime/src/domain/conversations/ports.js';
import { runEnd } from '../../../services/agent-runtime/src/domain/conversations/runs.js';
import { rowsToModelMessages } from '../../../services/agent-runtime/src/domain/chat/build-prompt.js';
import type { MessageRow } from '../../../services/agent-runtime/src/domain/ports.js';
import type { TurnOutcome } from '../../../services/agent-runtime/src/domain/chat/turn.js';
import { openRuntimeStore } from '../../../services/agent-runtime/src/store/runtime-store.js';
import { AguiTranslator } from '../../../services/gateway/src/agui/translate.js';

const NOW = '2025-03-01T10:00:00.000Z';
let seq = 0;
const row = (it: NewItem): ItemRow => ({ ...it, conversation_id: 'conv_1', seq: ++seq });
const msg = (role: string, content: string, extra: Partial<MessageRow> = {}): MessageRow => ({
  id: `m${++seq}`, session_id: 's', seq, role, content, parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: 't1', trace: null, receipt: null,
  created_at: NOW, ...extra,
});

test('cursors round-trip and refuse foreign or malformed values with invalid_request', () => {
  assert.equal(decodeCursor('i', encodeCursor('i', 42)), 42);
  assert.equal(decodeCursor('c', encodeCursor('c', 'conv_01JNABCDEFGHJKMNPQRSTVWXYZ')), 'conv_01JNABCDEFGHJKMNPQRSTVWXYZ');
  for (const bad of [encodeCursor('c', 'conv_01JNABCDEFGHJKMNPQRSTVWXYZ'), 'garbage', encodeCursor('i', 'x1'), '']) {
    assert.throws(() => decodeCursor('i', bad), (e: unknown) => e instanceof DomainError && e.code === 'invalid_request');
  }
  assert.throws(() => decodeCursor('c', encodeCursor('c', "conv_x' OR 1=1")), (e: unknown) => e instanceof DomainError && e.code === 'invalid_request');
});

test('views: conversation with Unix seconds, items in OpenAI shape without the runtime\'s own fields', () => {
  assert.deepEqual(conversationView({ id: 'conv_1', tenant_id: 't', user_id: 'u', session_id: null, metadata: '{"a":"b"}', created_at: NOW, updated_at: NOW }), {
    id: 'conv_1', object: 'conversation', created_at: Date.parse(NOW) / 1000, metadata: { a: 'b' }, session_id: null,
  });
  const [m, call, out] = itemsFromInput([
    { role: 'user', content: 'hi' },
    { type: 'function_call', call_id: 'c1', name: 'calc', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: '2' },
  ], NOW, 'body.items').map(row);
  assert.deepEqual(itemView(m!), { id: m!.id, type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'hi' }], created_at: Date.parse(NOW) / 1000 });
  assert.deepEqual(itemView(call!), { id: call!.id, type: 'function_call', status: 'completed', call_id: 'c1', name: 'calc', arguments: '{}', created_at: Date.parse(NOW) / 1000 });
  assert.deepEqual(itemView(out!), { id: out!.id, type: 'function_call_output', status: 'completed', call_id: 'c1', output: '2', created_at: Date.parse(NOW) / 1000 });
  const file = row({ ...m!, content: JSON.stringify([{ type: 'input_file', file_id: 'doc1', filename: 'a.csv', path: 'data/a.csv' }]) });
  assert.deepEqual(itemView(file).content, [{ type: 'input_file', file_id: 'doc1', filename: 'a.csv' }]);
  const assistant = itemsFromInput([{ role: 'assistant', content: 'yes' }], NOW, 'body.items')[0]!;
  assert.deepEqual(JSON.parse(assistant.content!), [{ type: 'output_text', text: 'yes' }], 'an assistant string is output_text');
  assert.throws(() => itemsFromInput([{ role: 'user', content: [{ type: 'input_text', text: ' ' }] }], NOW, 'body.items'),
    (e: unknown) => e instanceof DomainError && e.code === 'invalid_request' && (e.extra as { field: string }).field === 'body.items.0.content');
});

test('a run view reports times in Unix seconds and its error', () => {
  const v = runView({
    id: 'run_1', conversation_id: 'conv_1', tenant_id: 't', user_id: 'u', agent_id: 'default', status: 'failed', turn_id: null, model: 'm', usage: '{"prompt_tokens":1}',
    receipt: null, error_code: 'input_blocked', error_message: 'no', created_at: NOW, started_at: NOW, completed_at: null,
  }, []);
  assert.equal(v.object, 'conversation.run');
  assert.equal(v.started_at, Date.parse(NOW) / 1000);
  assert.equal(v.completed_at, null);
  assert.deepEqual(v.error, { code: 'input_blocked', message: 'no' });
  assert.deepEqual(v.usage, { prompt_tokens: 1 });
});

test('stored messages -> items -> history gives the model the same messages back', () => {
  const rows = [
    msg('user', 'hi'),
    msg('assistant', 'let me look', { tool_calls: JSON.stringify([{ id: 'c1', name: 'calc', arguments: '{"x":1}' }, { id: 'c2', name: 'time', arguments: '{}' }]) }),
    msg('tool', '1', { tool_call_id: 'c1', name: 'calc' }),
    msg('tool', 'noon', { tool_call_id: 'c2', name: 'time' }),
    msg('assistant', 'done'),
  ];
  const items = itemsFromMessages(rows).map(row);
  assert.deepEqual(items.map((i) => i.type), ['message', 'message', 'function_call', 'function_call', 'function_call_output', 'function_call_output', 'message']);
  assert.deepEqual(rowsToModelMessages(itemsToHistory(items)), rowsToModelMessages(rows));
});

test('history leaves out excluded inputs and unanswered or orphaned tool calls; developer becomes system', () => {
  const blocked = itemsFromMessages([msg('user', 'secret', { trace: JSON.stringify({ excluded: true, reason: 'x' }) })]).map(row);
  assert.equal(blocked[0]!.status, 'incomplete');
  assert.equal(blocked[0]!.excluded, 1);
  const items = [
    ...blocked,
    ...itemsFromInput([
      { role: 'developer', content: 'be brief' },
      { type: 'function_call', call_id: 'lonely', name: 'calc', arguments: '{}' },
      { type: 'function_call_output', call_id: 'orphan', output: 'x' },
      { role: 'user', content: 'go' },
    ], NOW, 'body.items').map(row),
  ];
  const msgs = rowsToModelMessages(itemsToHistory(items));
  assert.deepEqual(msgs, [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'go' }]);
});

test('a run takes the trailing user messages as input (excluded ones skipped) and the rest as history', () => {
  const items = itemsFromInput([
    { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }, { role: 'user', content: [{ type: 'input_text', text: 'd' }, { type: 'input_image', image_url: 'https://x/y.png' }] },
  ], NOW, 'body.items').map(row);
  items[2]!.excluded = 1;
  const split = splitForRun(items);
  assert.deepEqual(split.history.map((i) => i.id), [items[0]!.id, items[1]!.id]);
  assert.deepEqual(split.input.map((i) => i.id), [items[3]!.id]);
  assert.deepEqual(itemToChatInput(items[3]!), { role: 'user', content: [{ type: 'text', text: 'd' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }] });
  assert.deepEqual(splitForRun(items.slice(0, 2)).input, [], 'nothing to answer after the assistant');
});

test('how a turn ends its run', () => {
  const base = {
    sessionId: 's', agentId: 'a', content: '', userMessageId: 'u', assistantMessageId: null, receipt: null, approvals: [],
    trace: { model: 'm', usage: { prompt_tokens: 1, completion_tokens: 2 }, guardrail: { input: 'block', output: 'skipped', reason: 'nope' } },
  } as unknown as TurnOutcome;
  assert.equal(runEnd({ ...base, status: 'completed' }, false).status, 'completed');
  assert.deepEqual(runEnd({ ...base, status: 'blocked' }, false).error_code, 'input_blocked');
  assert.equal(runEnd({ ...base, status: 'failed', error: { code: 'client_closed', message: '' } }, false).status, 'cancelled');
  assert.equal(runEnd({ ...base, status: 'failed', error: { code: 'backend_unavailable', message: '' } }, true).status, 'cancelled');
  const failed = runEnd({ ...base, status: 'failed', error: { code: 'backend_unavailable', message: 'down' } }, false);
  assert.deepEqual([failed.status, failed.error_code, failed.error_message], ['failed', 'backend_unavailable', 'down']);
  assert.equal(runEnd({ ...base, status: 'completed' }, true).status, 'completed', 'a run that finished before the cancel took effect stays completed');
});

test('store: a run ends once; runs alive at a stop fail with runtime_restarted at the next open; items cascade with their conversation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'conv-store-'));
  try {
    const cfg = { dbDir: dir, migrationsDir: join(process.cwd(), 'migrations') };
    let store = openRuntimeStore(cfg);
    const s = store.conversations;
    s.create({ id: 'conv_a', tenant_id: 't', user_id: 'u', session_id: null, metadata: '{}', created_at: NOW, updated_at: NOW },
      itemsFromInput([{ role: 'user', content: 'x' }, { role: 'user', content: 'y' }], NOW, 'body.items'));
    assert.deepEqual(s.items('conv_a').map((i) => i.seq), [1, 2]);
    assert.deepEqual(s.itemPage({ conversationId: 'conv_a', order: 'desc', limit: 5, afterSeq: 2 }).map((i) => i.seq), [1]);
    const run = {
      id: 'run_a', conversation_id: 'conv_a', tenant_id: 't', user_id: 'u', agent_id: 'default', status: 'in_progress', turn_id: null, model: null, usage: null,
      receipt: null, error_code: null, error_message: null, created_at: NOW, started_at: NOW, completed_at: null,
    };
    s.insertRun(run);
    s.insertRun({ ...run, id: 'run_b' });
    const end = { status: 'cancelled', model: null, usage: null, receipt: null, error_code: null, error_message: null, completed_at: NOW };
    assert.equal(s.finishRun('run_a', end), true);
    assert.equal(s.finishRun('run_a', { ...end, status: 'completed' }), false, 'the first end wins');
    store.close();

    store = openRuntimeStore(cfg);
    assert.equal(store.conversations.failActiveRuns(NOW, 'runtime_restarted', 'gone', ['conv_a']), 0, 'a conversation another runtime holds is kept');
    assert.equal(store.conversations.run('conv_a', 'run_b')?.status, 'in_progress');
    assert.equal(store.conversations.failActiveRuns(NOW, 'runtime_restarted', 'gone'), 1);
    assert.equal(store.conversations.run('conv_a', 'run_b')?.error_code, 'runtime_restarted');
    assert.equal(store.conversations.run('conv_a', 'run_a')?.status, 'cancelled');
    assert.equal(store.conversations.get('conv_a', 't', 'other'), undefined, 'owner-scoped');
    assert.equal(store.conversations.delete('conv_a', 't', 'u'), true);
    assert.deepEqual(store.conversations.items('conv_a'), []);
    assert.equal(store.conversations.run('conv_a', 'run_b'), undefined);
    assert.equal(store.conversations.appendItems('conv_a', itemsFromInput([{ role: 'user', content: 'late' }], NOW, 'body.items'), NOW), false);
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the gateway\'s AG-UI stream carries conversation_created as CUSTOM', () => {
  const t = new AguiTranslator({ runId: 'turn1', threadId: null, newId: () => 'id' });
  const out = [
    ...t.push({ event: 'session_created', data: { session_id: 's1' } }),
    ...t.push({ event: 'conversation_created', data: { conversation_id: 'conv_1' } }),
  ];
  assert.deepEqual(out.find((e) => e.type === 'CUSTOM' && e.name === 'conversation_created'), { type: 'CUSTOM', name: 'conversation_created', value: { conversation_id: 'conv_1' } });
});
