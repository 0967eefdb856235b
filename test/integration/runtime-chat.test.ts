/**
 * Agent runtime chat over real sockets (issue 5 items 1, 2, 4; spec "Chat", "Chat stream events",
 * "Turn events", "Receipt", "Errors"): provider text and receipt, history on the next turn, SSE order,
 * multimodal to the vision role, turn events with captured artifacts, provider gone ->
 * backend_unavailable, bad input -> 400.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { auditGet, eventually, startHarness, type Harness } from '../helpers/runtime-harness.js';
import type { ChatResponse, ReceiptRef } from '../../services/agent-runtime/src/contracts.js';

let h: Harness;

before(async () => {
  h = await startHarness({}, {
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      if (r.body.model === 'title') return { content: 'Title: "Capital of France"' };
      const last = msgs[msgs.length - 1]!;
      const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
      if (text.includes('think first')) return { reasoning: 'Let me consider.', content: 'Thought it through.' };
      return { content: `echo: ${text}` };
    },
  });
});
after(async () => { await h.close(); });

const chatBody = (text: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content: text }], ...extra });

test('chat answers with the provider text, a processing trace and a pending receipt that seals and verifies', async () => {
  const turn = '01JTESTCHAT000000000000001';
  await h.startTurn(turn);
  const r = await h.call('POST', '/v1/chat', chatBody('What is the capital of France?'), {}, turn);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const b = r.body as ChatResponse;
  assert.equal(b.message.role, 'assistant');
  assert.equal(b.message.content, 'echo: What is the capital of France?');
  assert.match(b.session_id, /^[0-9A-Z]{26}$/);
  assert.equal(b.agent_id, 'default');
  assert.ok(b.receipt);
  assert.equal(b.receipt.turn_id, turn);
  assert.equal(b.receipt.status, 'pending');
  assert.equal(b.receipt.sealed, false);
  assert.equal(b.receipt.tier, 'attestable');
  assert.match(b.receipt.id ?? '', /^[0-9A-Z]{26}$/, 'receipt id fetched from audit');
  assert.equal(b.receipt.receipt_url, `/v1/receipts/${turn}`);
  assert.equal(b.receipt.proof_url, `/v1/receipts/${turn}/proof`);
  assert.equal(b.receipt.bundle_url, `/v1/receipts/${turn}/bundle`);
  assert.deepEqual(b.message.receipt, b.receipt);
  const tr = b.message.processing_trace;
  assert.equal(tr.turn_id, turn);
  assert.equal(tr.model_role, 'default');
  assert.equal(tr.model, 'default');
  assert.equal(tr.steps, 1);
  assert.equal(tr.guardrail.input, 'allow');
  assert.equal(tr.guardrail.output, 'allow');
  assert.equal(tr.context.memories, 'unavailable');
  assert.ok(typeof tr.timings.ttft_ms === 'number');

  // The router call carried the caller's stamped headers and the role alias.
  const call = h.llm.requests.find((q) => q.headers['x-svc-turn-id'] === turn && q.body.model === 'default')!;
  assert.ok(call, 'the model was called with the turn id');
  assert.ok(typeof call.headers['x-svc-principal'] === 'string');
  assert.ok(typeof call.headers['x-svc-cap-token'] === 'string');
  assert.equal(call.body.stream, true);
  // The guardrail saw the input under the turn.
  assert.ok(h.guard.seen.some((s) => s.path === '/v1/guard/input' && s.headers['x-svc-turn-id'] === turn && s.body.content === 'What is the capital of France?'));

  // Turn events from the runtime landed before the answer; the gateway's turn_sealed seals the turn.
  await h.sealTurn(turn);
  const receipt = await eventually(async () => {
    const x = await auditGet(h, `/v1/receipts/${turn}`);
    return x.status === 200 ? x.body as { receipt: ReceiptRef; events: Array<{ payload_type: string; emitter_service: string }> } : null;
  });
  const types = receipt.events.map((e) => e.payload_type);
  for (const t of ['turn_started', 'prompt_generated', 'model_invoked', 'model_response', 'turn_sealed']) assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
  assert.equal(types[types.length - 1], 'turn_sealed');
  assert.equal(receipt.receipt.id, b.receipt.id);
  const v = await fetch(`${h.auditUrl}/v1/receipts/${turn}/verify`, { method: 'POST', headers: h.serviceHeaders() });
  assert.equal(v.status, 200);
  assert.equal((await v.json() as { ok: boolean }).ok, true, 'the bundle verifies');

  // Prompt and model bodies were captured as artifacts, committed to by their events.
  const replay = await auditGet(h, `/v1/audit/turns/${turn}/replay`);
  const evs = (replay.body as { events: Array<{ payload_type: string; payload: { artifact?: { sha256: string } }; artifacts: Array<{ kind: string; sha256: string; url: string }> }> }).events;
  const prompt = evs.find((e) => e.payload_type === 'prompt_generated')!;
  assert.equal(prompt.artifacts[0]?.kind, 'prompt');
  assert.equal(prompt.artifacts[0]?.sha256, prompt.payload.artifact?.sha256);
  const body = await auditGet(h, prompt.artifacts[0]!.url);
  assert.equal((body.body as { model: string }).model, 'default');
  assert.equal(evs.find((e) => e.payload_type === 'model_response')!.artifacts[0]?.kind, 'model_response');
});

test('the second turn of a session carries the history; sessions list and get show it', async () => {
  const first = await h.call('POST', '/v1/chat', chatBody('My name is Ada.'));
  const sid = (first.body as ChatResponse).session_id;
  const second = await h.call('POST', '/v1/chat', chatBody('What is my name?', { session_id: sid }));
  assert.equal(second.status, 200);
  assert.equal((second.body as ChatResponse).session_id, sid);
  const req = h.llm.requests.find((q) => q.headers['x-svc-turn-id'] === second.turnId && q.body.model === 'default')!;
  const msgs = (req.body.messages as Array<{ role: string; content: string }>).map((m) => [m.role, m.content]);
  assert.deepEqual(msgs, [['user', 'My name is Ada.'], ['assistant', 'echo: My name is Ada.'], ['user', 'What is my name?']]);
  const got = await h.call('GET', `/v1/sessions/${sid}`);
  assert.equal(got.status, 200);
  const s = got.body as { messages: Array<{ role: string; content: string; receipt?: ReceiptRef }>; message_count: number; title: string };
  assert.equal(s.message_count, 4);
  assert.deepEqual(s.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
  assert.equal(s.messages[3]!.receipt?.turn_id, second.turnId);
  // Title: set at once from the first message, then generated by the `title` role in the background.
  await eventually(async () => ((await h.call('GET', `/v1/sessions/${sid}`)).body as { title: string }).title === 'Capital of France');
  assert.ok(h.llm.requests.some((q) => q.body.model === 'title'));
});

test('SSE: the spec events in order, ending with done {session_id, receipt, message ids}; thinking before tokens', async () => {
  const r = await h.stream(chatBody('please think first'));
  assert.equal(r.status, 200);
  const names = r.records.map((x) => x.event);
  assert.equal(names[0], 'session_created');
  assert.equal(names[names.length - 1], 'done');
  const firstThinking = names.indexOf('thinking');
  const firstToken = names.indexOf('token');
  assert.ok(firstThinking > 0 && firstToken > firstThinking, names.join(','));
  assert.ok(names.indexOf('trace_update') > 0 && names.indexOf('trace_update') < firstThinking);
  assert.equal(r.records.filter((x) => x.event === 'thinking').map((x) => (x.data as { content: string }).content).join(''), 'Let me consider.');
  assert.equal(r.records.filter((x) => x.event === 'token').map((x) => (x.data as { content: string }).content).join(''), 'Thought it through.');
  const done = r.records[r.records.length - 1]!.data as { session_id: string; agent_id: string; receipt: ReceiptRef; assistant_message_id: string; user_message_id: string };
  assert.equal(done.session_id, (r.records[0]!.data as { session_id: string }).session_id);
  assert.equal(done.agent_id, 'default');
  assert.equal(done.receipt.turn_id, r.turnId);
  assert.match(done.assistant_message_id, /^[0-9A-Z]{26}$/);
  assert.match(done.user_message_id, /^[0-9A-Z]{26}$/);
  assert.match(r.raw, /^event: session_created\ndata: \{/);
});

test('an existing session streams no session_created', async () => {
  const s = await h.call('POST', '/v1/sessions', { title: 'Mine' });
  assert.equal(s.status, 201);
  const r = await h.stream(chatBody('hello', { session_id: (s.body as { id: string }).id }));
  assert.notEqual(r.records[0]!.event, 'session_created');
  assert.equal(r.records[r.records.length - 1]!.event, 'done');
});

test('an image part goes to the vision role as OpenAI content parts', async () => {
  const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
  const r = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: png } }] }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal((r.body as ChatResponse).message.processing_trace.model_role, 'vision');
  const req = h.llm.requests.find((q) => q.headers['x-svc-turn-id'] === r.turnId)!;
  assert.equal(req.body.model, 'vision');
  const content = (req.body.messages as Array<{ content: Array<{ type: string }> }>)[0]!.content;
  assert.deepEqual(content.map((p) => p.type), ['text', 'image_url']);
});

test('the provider code passes through; an unknown provider error text is derived', async () => {
  h.llm.setScript(() => ({ status: 503, errorBody: { error: 'no provider configured for role default', code: 'role_not_configured' } }));
  try {
    const s = await h.stream(chatBody('hi'));
    const last = s.records[s.records.length - 1]!;
    assert.equal(last.event, 'error');
    assert.equal((last.data as { code: string }).code, 'role_not_configured');
    h.llm.setScript(() => ({ status: 500, errorBody: { error: { message: 'upstream connect error' } } }));
    const j = await h.call('POST', '/v1/chat', chatBody('hi'));
    assert.equal(j.status, 503);
    assert.equal((j.body as { code: string }).code, 'backend_unavailable');
  } finally {
    h.llm.setScript((r) => ({ content: `echo: ${String((r.body.messages as Array<{ content: string }>).at(-1)!.content)}` }));
  }
});

test('bad input answers 400 invalid_request, never 500', async () => {
  const bad: unknown[] = [
    '{not json', {}, { messages: [] }, { messages: 'hi' }, { messages: [{ role: 'user' }] }, { messages: [{ role: 'robot', content: 'x' }] },
    { messages: [{ role: 'assistant', content: 'last is not the user' }] }, { messages: [{ role: 'user', content: '   ' }] },
    { messages: [{ role: 'user', content: [] }] }, { messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] },
    { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }] },
    { messages: [{ role: 'user', content: [{ type: 'text' }] }] }, { messages: [{ role: 'user', content: 42 }] },
    { messages: [{ role: 'user', content: 'x' }], session_id: '../../etc' }, { messages: [{ role: 'user', content: 'x' }], agent_id: '' },
  ];
  for (const body of bad) {
    for (const path of ['/v1/chat', '/v1/chat/stream']) {
      const r = await h.call('POST', path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)} -> ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal((r.body as { code: string }).code, 'invalid_request');
    }
  }
  const missing = await h.call('POST', '/v1/chat/stream', chatBody('x', { session_id: '01JNOSUCHSESSION0000000000' }));
  assert.equal(missing.status, 404);
  assert.equal((missing.body as { code: string }).code, 'session_not_found');
  const unstamped = await fetch(`${h.url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chatBody('x')) });
  assert.equal(unstamped.status, 401);
});

test('a provider that goes away yields error/backend_unavailable on the stream (never a 502) and turn_failed', async () => {
  const dead = await startHarness({}, {});
  try {
    await dead.llm.close();
    const turn = '01JTESTDEAD000000000000001';
    await dead.startTurn(turn);
    const r = await dead.stream(chatBody('anyone there?'), {}, { turnId: turn });
    assert.equal(r.status, 200);
    const last = r.records[r.records.length - 1]!;
    assert.equal(last.event, 'error');
    assert.equal((last.data as { code: string }).code, 'backend_unavailable');
    assert.equal(typeof (last.data as { message: string }).message, 'string');
    const j = await dead.call('POST', '/v1/chat', chatBody('anyone there?'));
    assert.equal(j.status, 503);
    assert.equal((j.body as { code: string }).code, 'backend_unavailable');
    // turn_failed is terminal: audit sealed the turn as failed.
    const sealed = await eventually(async () => {
      const x = await auditGet(dead, `/v1/receipts/${turn}`);
      return x.status === 200 ? x.body as { envelope: { payload: { status: string } }; events: Array<{ payload_type: string }> } : null;
    });
    assert.equal(sealed.envelope.payload.status, 'failed');
    assert.ok(sealed.events.some((e) => e.payload_type === 'turn_failed'));
  } finally {
    await dead.close();
  }
});
