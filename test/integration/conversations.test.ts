/**
 * Durable conversations (issue 13 item 4; spec "Agent runtime surfaces": `/v1/conversations*`,
 * "Chat stream events": `conversation_created`): conversations, items and runs on the real runtime
 * with the scripted LLM, chat turns over a conversation, the guardrail's exclusion kept out of the
 * history, owner-only access, durability across a restart, and the feature switched off.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startHarness, type Harness } from '../helpers/runtime-harness.js';
import type { RecordedRequest, ScriptedReply } from '../helpers/scripted-llm.js';
import { start as startRuntime } from '../../services/agent-runtime/src/index.js';
import type {
  ChatResponse, Conversation, ConversationItem, ConversationItemPage, ConversationPage, ConversationRun,
} from '../../services/agent-runtime/src/contracts.js';

let h: Harness;
const OTHER = { id: 'user-2' };

type Msg = { role: string; content: unknown };
const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : '');

/** Echo the last user message; call the calculator when asked; answer slowly when asked. */
function script(r: RecordedRequest): ScriptedReply {
  if (r.body.model === 'title') return { content: 'A title' };
  const msgs = r.body.messages as Msg[];
  const last = msgs[msgs.length - 1]!;
  if (last.role === 'tool') return { content: `The tool said: ${text(last.content)}` };
  const said = text([...msgs].reverse().find((m) => m.role === 'user')?.content);
  if (said.includes('use the calculator')) return { content: '', toolCalls: [{ id: 'call_7', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }] };
  if (said.includes('slowly')) return { content: 'a slow answer', delayMs: 4000 };
  return { content: `echo: ${said}` };
}

before(async () => {
  h = await startHarness({ conversationsEnabled: true, titleGeneration: false, maxToolSteps: 3 }, { script });
});
after(async () => { await h.close(); });

const create = async (body: unknown = {}, caller = {}): Promise<Conversation> => {
  const r = await h.call('POST', '/v1/conversations', body, caller);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body as Conversation;
};
const items = async (id: string, query = 'order=asc&limit=100'): Promise<ConversationItem[]> =>
  ((await h.call('GET', `/v1/conversations/${id}/items?${query}`)).body as ConversationItemPage).items;
const textOf = (it: ConversationItem): string => (it.content ?? []).map((p) => p.text ?? '').join('');
const lastModelCall = (): Msg[] => [...h.llm.requests].reverse().find((r) => r.body.model !== 'title')!.body.messages as Msg[];

test('create, get, list newest first with paging, update metadata, delete; another user gets 404', async () => {
  const before = Math.floor(Date.now() / 1000);
  const a = await create({ metadata: { topic: 'trip' }, items: [{ type: 'message', role: 'user', content: 'hello' }] });
  assert.match(a.id, /^conv_/);
  assert.equal(a.object, 'conversation');
  assert.ok(a.created_at >= before - 1 && a.created_at <= before + 5, 'created_at is Unix seconds');
  assert.deepEqual(a.metadata, { topic: 'trip' });
  assert.equal(a.session_id, null);
  const b = await create();
  const c = await create(null);
  assert.deepEqual((await h.call('GET', `/v1/conversations/${a.id}`)).body, a);

  const p1 = (await h.call('GET', '/v1/conversations?limit=2')).body as ConversationPage;
  assert.deepEqual(p1.items.map((x) => x.id).slice(0, 2), [c.id, b.id], 'newest first');
  assert.ok(p1.next_cursor);
  const p2 = (await h.call('GET', `/v1/conversations?limit=2&cursor=${p1.next_cursor}`)).body as ConversationPage;
  assert.equal(p2.items[0]!.id, a.id);
  assert.equal((await h.call('GET', '/v1/conversations?cursor=bm9wZQ')).status, 400);
  assert.equal(((await h.call('GET', '/v1/conversations?cursor=bm9wZQ')).body as { code: string }).code, 'invalid_request');

  const upd = await h.call('POST', `/v1/conversations/${a.id}`, { metadata: { topic: 'lisbon' } });
  assert.deepEqual((upd.body as Conversation).metadata, { topic: 'lisbon' });
  const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
  assert.equal((await h.call('POST', '/v1/conversations', { metadata: tooMany })).status, 400, 'at most 16 metadata pairs');

  // Another user: 404 on every route, and it is not in their list.
  for (const [method, path, body] of [
    ['GET', `/v1/conversations/${a.id}`], ['GET', `/v1/conversations/${a.id}/items`], ['POST', `/v1/conversations/${a.id}/items`, { items: [{ role: 'user', content: 'x' }] }],
    ['POST', `/v1/conversations/${a.id}/runs`, {}], ['DELETE', `/v1/conversations/${a.id}`], ['POST', `/v1/conversations/${a.id}`, { metadata: {} }],
  ] as Array<[string, string, unknown?]>) {
    const r = await h.call(method, path, body, OTHER);
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal((r.body as { code: string }).code, 'conversation_not_found');
  }
  const theirs = (await h.call('GET', '/v1/conversations', undefined, OTHER)).body as ConversationPage;
  assert.equal(theirs.items.length, 0);
  const chat = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }], conversation_id: a.id }, OTHER);
  assert.equal(chat.status, 404);
  assert.equal((chat.body as { code: string }).code, 'conversation_not_found');

  const del = await h.call('DELETE', `/v1/conversations/${b.id}`);
  assert.deepEqual(del.body, { id: b.id, object: 'conversation.deleted', deleted: true });
  assert.equal((await h.call('GET', `/v1/conversations/${b.id}`)).status, 404);
});

test('items: append, list asc/desc with cursor and after, get, delete', async () => {
  const c = await create({ items: [{ role: 'user', content: 'one' }] });
  const added = await h.call('POST', `/v1/conversations/${c.id}/items`, {
    items: [
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'two' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'three' }] },
      { type: 'function_call', call_id: 'c1', name: 'calculator', arguments: '{"expression":"1+1"}' },
      { type: 'function_call_output', call_id: 'c1', output: '2' },
    ],
  });
  assert.equal(added.status, 201);
  const created = (added.body as ConversationItemPage).items;
  assert.deepEqual(created.map((i) => i.type), ['message', 'message', 'function_call', 'function_call_output']);
  assert.deepEqual(created[0], { ...created[0], type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'two' }] });
  assert.match(created[2]!.id, /^fc_/);
  assert.equal(created[2]!.name, 'calculator');
  assert.equal(created[3]!.output, '2');

  const asc: string[] = [];
  let cursor: string | undefined;
  do {
    const page = (await h.call('GET', `/v1/conversations/${c.id}/items?order=asc&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body as ConversationItemPage;
    asc.push(...page.items.map(textOrOutput));
    cursor = page.next_cursor;
  } while (cursor);
  assert.deepEqual(asc, ['one', 'two', 'three', 'calculator', '2']);
  const desc = (await h.call('GET', `/v1/conversations/${c.id}/items?limit=2`)).body as ConversationItemPage;
  assert.deepEqual(desc.items.map(textOrOutput), ['2', 'calculator'], 'newest first by default');
  const after = (await h.call('GET', `/v1/conversations/${c.id}/items?order=asc&after=${created[0]!.id}`)).body as ConversationItemPage;
  assert.deepEqual(after.items.map(textOrOutput), ['three', 'calculator', '2']);
  assert.equal((await h.call('GET', `/v1/conversations/${c.id}/items?after=msg_nope`)).status, 400);

  assert.deepEqual((await h.call('GET', `/v1/conversations/${c.id}/items/${created[1]!.id}`)).body, created[1]);
  const del = await h.call('DELETE', `/v1/conversations/${c.id}/items/${created[1]!.id}`);
  assert.equal((del.body as Conversation).id, c.id);
  const gone = await h.call('GET', `/v1/conversations/${c.id}/items/${created[1]!.id}`);
  assert.equal(gone.status, 404);
  assert.equal((gone.body as { code: string }).code, 'conversation_item_not_found');
  assert.equal((await items(c.id)).length, 4);

  const tooMany = Array.from({ length: 21 }, () => ({ role: 'user', content: 'x' }));
  assert.equal((await h.call('POST', `/v1/conversations/${c.id}/items`, { items: tooMany })).status, 400, 'at most 20 items per append');
  assert.equal((await h.call('POST', `/v1/conversations/${c.id}/items`, { items: [{ type: 'function_call', call_id: 'x' }] })).status, 400, 'a call needs name and arguments');
  assert.equal((await h.call('POST', `/v1/conversations/${c.id}/items`, { items: [{ role: 'user', content: '   ' }] })).status, 400, 'a message needs text');
});

function textOrOutput(it: ConversationItem): string {
  return it.type === 'message' ? textOf(it) : it.type === 'function_call' ? it.name! : it.output!;
}

test('a run answers over the conversation: the answer becomes an item, the history reaches the model, tool calls are items', async () => {
  const c = await create({ items: [{ role: 'user', content: 'what is the capital of Portugal' }] });
  const r = await h.call('POST', `/v1/conversations/${c.id}/runs`, {});
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const run = r.body as ConversationRun;
  assert.match(run.id, /^run_/);
  assert.equal(run.object, 'conversation.run');
  assert.equal(run.status, 'completed');
  assert.equal(run.conversation_id, c.id);
  assert.equal(run.turn_id, r.turnId, 'the run is the request turn (its receipt)');
  assert.equal(run.receipt?.turn_id, r.turnId);
  assert.equal(run.error, null);
  assert.equal(run.output.length, 1);
  assert.equal(run.output[0]!.role, 'assistant');
  assert.deepEqual(run.output[0]!.content, [{ type: 'output_text', text: 'echo: what is the capital of Portugal' }]);
  assert.deepEqual((await h.call('GET', `/v1/conversations/${c.id}/runs/${run.id}`)).body, run);

  const all = await items(c.id);
  assert.deepEqual(all.map(textOf), ['what is the capital of Portugal', 'echo: what is the capital of Portugal']);
  const conv = (await h.call('GET', `/v1/conversations/${c.id}`)).body as Conversation;
  assert.ok(conv.session_id, 'the conversation runs in a chat session');

  // A second run with new items: the earlier items are the model's history.
  const r2 = (await h.call('POST', `/v1/conversations/${c.id}/runs`, { items: [{ role: 'user', content: 'and of Spain' }] })).body as ConversationRun;
  assert.equal(r2.status, 'completed');
  const sent = lastModelCall().filter((m) => m.role !== 'system').map((m) => [m.role, text(m.content)]);
  assert.deepEqual(sent, [
    ['user', 'what is the capital of Portugal'], ['assistant', 'echo: what is the capital of Portugal'], ['user', 'and of Spain'],
  ]);
  const runs = (await h.call('GET', `/v1/conversations/${c.id}/runs`)).body as { items: ConversationRun[] };
  assert.deepEqual(runs.items.map((x) => x.id), [r2.id, run.id]);

  // A run with a tool call: the call and its result are items too.
  const r3 = (await h.call('POST', `/v1/conversations/${c.id}/runs`, { items: [{ role: 'user', content: 'use the calculator' }] })).body as ConversationRun;
  assert.equal(r3.status, 'completed', JSON.stringify(r3));
  assert.deepEqual(r3.output.map((i) => i.type), ['function_call', 'function_call_output', 'message']);
  assert.equal(r3.output[0]!.call_id, 'call_7');
  assert.equal(r3.output[1]!.call_id, 'call_7');
  assert.match(r3.output[1]!.output!, /42/);
  assert.match(textOf(r3.output[2]!), /The tool said: .*42/);

  // The next run sends the tool exchange back as history.
  await h.call('POST', `/v1/conversations/${c.id}/runs`, { items: [{ role: 'user', content: 'thanks' }] });
  const hist = lastModelCall();
  const call = hist.find((m) => (m as { tool_calls?: unknown[] }).tool_calls);
  assert.ok(call, 'the function call reaches the model as an assistant tool call');
  assert.ok(hist.some((m) => m.role === 'tool' && /42/.test(text(m.content))));

  // Nothing to answer: the conversation ends with the assistant.
  const idle = await create({ items: [{ role: 'assistant', content: 'hi' }] });
  const bad = await h.call('POST', `/v1/conversations/${idle.id}/runs`, {});
  assert.equal(bad.status, 400);
  assert.equal((bad.body as { code: string }).code, 'invalid_request');
});

test('a slow run is in progress, refuses other writes, and is cancelled', async () => {
  const c = await create({ items: [{ role: 'user', content: 'answer slowly please' }] });
  const pending = h.call('POST', `/v1/conversations/${c.id}/runs`, {});
  const active = await eventually(async () => {
    const list = (await h.call('GET', `/v1/conversations/${c.id}/runs`)).body as { items: ConversationRun[] };
    return list.items.find((r) => r.status === 'in_progress');
  });
  const busy = await h.call('POST', `/v1/conversations/${c.id}/items`, { items: [{ role: 'user', content: 'more' }] });
  assert.equal(busy.status, 409);
  assert.equal((busy.body as { code: string }).code, 'conversation_busy');
  const again = await h.call('POST', `/v1/conversations/${c.id}/runs`, {});
  assert.equal((again.body as { code: string }).code, 'conversation_busy');
  const t0 = Date.now();
  const cancelled = await h.call('POST', `/v1/conversations/${c.id}/runs/${active.id}/cancel`);
  assert.equal(cancelled.status, 200);
  assert.equal((cancelled.body as ConversationRun).status, 'cancelled');
  assert.ok(Date.now() - t0 < 3000, 'the model call was aborted, not waited for');
  const started = await pending;
  assert.equal(started.status, 201);
  assert.equal((started.body as ConversationRun).status, 'cancelled');
  assert.equal((started.body as ConversationRun).output.length, 0);
  assert.equal((await items(c.id)).length, 1, 'no answer was appended');
  const twice = await h.call('POST', `/v1/conversations/${c.id}/runs/${active.id}/cancel`);
  assert.equal((twice.body as ConversationRun).status, 'cancelled', 'cancelling a cancelled run answers it as it is');
  // Free again: a finished run cannot be cancelled.
  const next = (await h.call('POST', `/v1/conversations/${c.id}/runs`, { items: [{ role: 'user', content: 'now quickly' }] })).body as ConversationRun;
  assert.equal(next.status, 'completed');
  const late = await h.call('POST', `/v1/conversations/${c.id}/runs/${next.id}/cancel`);
  assert.equal(late.status, 409);
  assert.equal((late.body as { code: string }).code, 'conversation_run_finished');
  assert.equal((await h.call('GET', `/v1/conversations/${c.id}/runs/run_nope`)).status, 404);
});

test('a chat with conversation_id appends its turn and reads the items as history', async () => {
  const c = await create({ items: [{ role: 'user', content: 'my name is Ada' }, { role: 'assistant', content: 'Hello Ada' }] });
  const r = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'what is my name' }], conversation_id: c.id });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const chat = r.body as ChatResponse;
  assert.equal(chat.conversation_id, c.id);
  const sent = lastModelCall().filter((m) => m.role !== 'system').map((m) => [m.role, text(m.content)]);
  assert.deepEqual(sent, [['user', 'my name is Ada'], ['assistant', 'Hello Ada'], ['user', 'what is my name']]);
  assert.deepEqual((await items(c.id)).map(textOf), ['my name is Ada', 'Hello Ada', 'what is my name', 'echo: what is my name']);

  // The turn ran in a session the conversation now names; a second turn reuses it (no session_created).
  const conv = (await h.call('GET', `/v1/conversations/${c.id}`)).body as Conversation;
  assert.equal(conv.session_id, chat.session_id);
  const s = await h.stream({ messages: [{ role: 'user', content: 'again' }], conversation_id: c.id });
  assert.ok(!s.records.some((x) => x.event === 'session_created' || x.event === 'conversation_created'));
  assert.equal((s.records.find((x) => x.event === 'done')!.data as { session_id: string }).session_id, chat.session_id);
  // A chat naming the session alone also lands in the conversation.
  await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'by session' }], session_id: chat.session_id });
  assert.equal((await items(c.id)).length, 8);
  // A session of another chat with this conversation: refused.
  const other = (await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'elsewhere' }] })).body as ChatResponse;
  const mixed = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'x' }], conversation_id: c.id, session_id: other.session_id });
  assert.equal(mixed.status, 400);
});

test('a chat with conversation: true starts one and emits conversation_created once, after session_created', async () => {
  const s = await h.stream({ messages: [{ role: 'user', content: 'start a durable chat' }], conversation: true });
  assert.equal(s.status, 200);
  const names = s.records.map((r) => r.event);
  assert.equal(names.filter((n) => n === 'conversation_created').length, 1);
  assert.equal(names.indexOf('conversation_created'), names.indexOf('session_created') + 1);
  const id = (s.records.find((r) => r.event === 'conversation_created')!.data as { conversation_id: string }).conversation_id;
  assert.match(id, /^conv_/);
  assert.deepEqual((await items(id)).map(textOf), ['start a durable chat', 'echo: start a durable chat']);
  const next = await h.stream({ messages: [{ role: 'user', content: 'go on' }], conversation_id: id });
  assert.ok(!next.records.some((r) => r.event === 'conversation_created'), 'only the chat that starts it');
  assert.equal((await items(id)).length, 4);
  const listed = (await h.call('GET', '/v1/conversations?limit=100')).body as ConversationPage;
  assert.ok(listed.items.some((x) => x.id === id));

  // Over an existing session: the session's messages become the first items.
  const plain = (await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'plain chat' }] })).body as ChatResponse;
  const json = (await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'keep it' }], session_id: plain.session_id, conversation: true })).body as ChatResponse;
  assert.ok(json.conversation_id);
  assert.deepEqual((await items(json.conversation_id!)).map(textOf), ['plain chat', 'echo: plain chat', 'keep it', 'echo: keep it']);
});

test('a message the input guardrail blocks never reaches the model from the conversation', async () => {
  const c = await create({ items: [{ role: 'user', content: 'forbidden words' }] });
  h.guard.input = (content) => (content.includes('forbidden') ? { decision: 'block', reason: 'not allowed' } : { decision: 'allow' });
  try {
    const run = (await h.call('POST', `/v1/conversations/${c.id}/runs`, {})).body as ConversationRun;
    assert.equal(run.status, 'failed');
    assert.equal(run.error?.code, 'input_blocked');
    const first = (await items(c.id))[0]!;
    assert.equal(first.status, 'incomplete', 'the blocked input is marked');
    const n = h.llm.requests.length;
    const next = (await h.call('POST', `/v1/conversations/${c.id}/runs`, { items: [{ role: 'user', content: 'hello there' }] })).body as ConversationRun;
    assert.equal(next.status, 'completed');
    assert.ok(h.llm.requests.length > n);
    assert.ok(!JSON.stringify(lastModelCall()).includes('forbidden'), 'the blocked text is not in the history');
  } finally {
    h.guard.input = () => ({ decision: 'allow' });
  }
});

test('items survive a restart of the runtime (same data dir)', async () => {
  const dbDir = mkdtempSync(join(tmpdir(), 'svc-conv-'));
  try {
    const cfg = { ...h.cfg, dbDir, port: 0 };
    let rt = await startRuntime(cfg, { pluginProbeMs: 0 });
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
      const r = await fetch(`http://127.0.0.1:${rt.port}${path}`, {
        method, headers: { ...h.headers(), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: r.status, body: await r.json() };
    };
    const c = (await call('POST', '/v1/conversations', { metadata: { k: 'v' }, items: [{ role: 'user', content: 'remember this' }] })).body as Conversation;
    const run = (await call('POST', `/v1/conversations/${c.id}/runs`, {})).body as ConversationRun;
    assert.equal(run.status, 'completed');
    const before = ((await call('GET', `/v1/conversations/${c.id}/items?order=asc`)).body as ConversationItemPage).items;
    assert.equal(before.length, 2);
    await rt.close();

    rt = await startRuntime(cfg, { pluginProbeMs: 0 });
    try {
      assert.deepEqual(((await call('GET', `/v1/conversations/${c.id}`)).body as Conversation).metadata, { k: 'v' });
      assert.deepEqual(((await call('GET', `/v1/conversations/${c.id}/items?order=asc`)).body as ConversationItemPage).items, before);
      assert.equal(((await call('GET', `/v1/conversations/${c.id}/runs/${run.id}`)).body as ConversationRun).status, 'completed');
      const more = (await call('POST', `/v1/conversations/${c.id}/runs`, { items: [{ role: 'user', content: 'still there?' }] })).body as ConversationRun;
      assert.equal(more.status, 'completed');
      assert.ok(lastModelCall().some((m) => text(m.content) === 'remember this'), 'the history came back from disk');
    } finally {
      await rt.close();
    }
  } finally {
    rmSync(dbDir, { recursive: true, force: true });
  }
});

test('switched off: every /v1/conversations route and conversation fields in chat answer 404 conversations_disabled', async () => {
  const off = await startHarness({ titleGeneration: false });
  try {
    for (const [method, path, body] of [
      ['GET', '/v1/conversations'], ['POST', '/v1/conversations', {}], ['GET', '/v1/conversations/conv_x/items'],
      ['POST', '/v1/conversations/conv_x/runs', {}], ['DELETE', '/v1/conversations/conv_x/items/msg_x'], ['POST', '/v1/conversations/conv_x/items', '{not json'],
    ] as Array<[string, string, unknown?]>) {
      const r = await off.call(method, path, body);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.equal((r.body as { code: string }).code, 'conversations_disabled', `${method} ${path}`);
    }
    for (const extra of [{ conversation_id: 'conv_x' }, { conversation: true }]) {
      const r = await off.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }], ...extra });
      assert.equal(r.status, 404);
      assert.equal((r.body as { code: string }).code, 'conversations_disabled');
      const s = await off.stream({ messages: [{ role: 'user', content: 'hi' }], ...extra });
      assert.equal(s.status, 404);
    }
    const plain = await off.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(plain.status, 200, 'chat without conversation fields is unchanged');
    assert.equal((plain.body as ChatResponse).conversation_id, undefined);
  } finally {
    await off.close();
  }
});
