/**
 * `POST /v1/chat/agui/stream` end to end through the AG-UI handler (services/gateway/src/agui/handler.ts)
 * mounted the way the gateway's `gateway-agui` plugin (routes/agui.ts) mounts it, in front of the real runtime: the stream
 * validates against @ag-ui/core 1.0 and @ag-ui/client's verifyEvents, starts with RUN_STARTED (threadId =
 * session, runId = turn) and ends with RUN_FINISHED; runtime refusals pass through; a missing provider is
 * RUN_ERROR backend_unavailable; an unreachable runtime is 502.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { request } from 'undici';
import { aguiStreamHandler, type ForwardToRuntime } from '../../services/gateway/src/agui/handler.js';
import { startHarness, type Harness } from '../helpers/runtime-harness.js';
import { assertValidRun } from '../helpers/agui.js';

let h: Harness;
let gw: FastifyInstance;
let base: string;
let runtimeUrl: string;

before(async () => {
  h = await startHarness({ titleGeneration: false }, {
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: string }>;
      if (msgs.at(-1)!.role === 'tool') return { content: `Result: ${msgs.at(-1)!.content}` };
      if (String(msgs.at(-1)!.content).includes('time')) return { reasoning: 'Need the clock.', toolCalls: [{ id: 'call_t', name: 'get_current_time', arguments: '{}' }] };
      return { content: 'Hello from the model.' };
    },
  });
  runtimeUrl = h.url;
  // A stand-in for the gateway's 'agui' local route: body as bytes, stamped headers, handler call.
  gw = Fastify();
  gw.removeAllContentTypeParsers();
  gw.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  gw.post('/v1/chat/agui/stream', async (req, reply) => {
    const turnId = String(req.headers['x-test-turn'] ?? '01JTESTAGUI000000000000001');
    void reply.header('x-svc-turn-id', turnId);
    const forward: ForwardToRuntime = async (body) => {
      const res = await request(`${runtimeUrl}/v1/chat/stream`, {
        method: 'POST', headers: { ...h.headers({}, turnId), 'content-type': 'application/json' }, body: body ?? (req.body as Buffer),
      });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    };
    await aguiStreamHandler(req, reply, forward);
    return reply;
  });
  await gw.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(gw.server.address() as { port: number }).port}`;
});
after(async () => { await gw.close(); await h.close(); });

async function agui(body: unknown, turn?: string): Promise<{ status: number; type: string; events: Array<Record<string, unknown>>; raw: string }> {
  const r = await fetch(`${base}/v1/chat/agui/stream`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...(turn ? { 'x-test-turn': turn } : {}) }, body: JSON.stringify(body),
  });
  const raw = await r.text();
  const events = r.headers.get('content-type')?.includes('text/event-stream')
    ? raw.split('\n\n').filter(Boolean).map((rec) => { assert.ok(rec.startsWith('data: '), `data-only records: ${rec}`); return JSON.parse(rec.slice(6)) as Record<string, unknown>; })
    : [];
  return { status: r.status, type: r.headers.get('content-type') ?? '', events, raw };
}

test('a chat turn as AG-UI: valid events, RUN_STARTED first (session, turn), text, RUN_FINISHED last with the receipt', async () => {
  const turn = '01JTESTAGUI000000000000002';
  const r = await agui({ messages: [{ role: 'user', content: 'Say hello' }] }, turn);
  assert.equal(r.status, 200);
  assert.match(r.type, /text\/event-stream/);
  await assertValidRun(r.events);
  const types = r.events.map((e) => e.type);
  assert.equal(types[0], 'RUN_STARTED');
  assert.equal(types.at(-1), 'RUN_FINISHED');
  assert.equal(r.events[0]!.runId, turn);
  const created = r.events.find((e) => e.type === 'CUSTOM' && e.name === 'session_created')!;
  const sid = (created.value as { session_id: string }).session_id;
  assert.equal(r.events[0]!.threadId, sid);
  assert.equal(r.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), 'Hello from the model.');
  const fin = r.events.at(-1)!;
  assert.equal(fin.threadId, sid);
  assert.equal((fin.result as { receipt: { turn_id: string } }).receipt.turn_id, turn);

  // Continuing the session: threadId is the session from the first record on.
  const again = await agui({ messages: [{ role: 'user', content: 'Again' }], session_id: sid });
  await assertValidRun(again.events);
  assert.equal(again.events[0]!.threadId, sid);
});

test('reasoning and a tool call map to REASONING_* and TOOL_CALL_* events that verify', async () => {
  const r = await agui({ messages: [{ role: 'user', content: 'What time is it?' }] });
  await assertValidRun(r.events);
  const types = r.events.map((e) => e.type as string);
  for (const t of ['REASONING_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_END', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT']) assert.ok(types.includes(t), t);
  assert.ok(types.indexOf('REASONING_END') < types.indexOf('TOOL_CALL_START'));
  assert.equal(r.events.find((e) => e.type === 'TOOL_CALL_START')!.toolCallName, 'get_current_time');
  assert.equal(types.at(-1), 'RUN_FINISHED');
});

test('runtime refusals pass through with their status; a missing provider is RUN_ERROR backend_unavailable', async () => {
  const bad = await agui({ messages: [] });
  assert.equal(bad.status, 400);
  assert.equal((JSON.parse(bad.raw) as { code: string }).code, 'invalid_request');
  const missing = await agui({ messages: [{ role: 'user', content: 'x' }], session_id: '01JNOSUCHSESSION0000000000' });
  assert.equal(missing.status, 404);

  const saved = h.llm.url;
  h.llm.setScript(() => ({ status: 503, errorBody: { error: 'connect ECONNREFUSED 127.0.0.1:1', code: 'backend_unavailable' } }));
  try {
    const r = await agui({ messages: [{ role: 'user', content: 'anyone?' }] });
    assert.equal(r.status, 200);
    await assertValidRun(r.events);
    assert.equal(r.events[0]!.type, 'RUN_STARTED');
    assert.deepEqual({ type: r.events.at(-1)!.type, code: r.events.at(-1)!.code }, { type: 'RUN_ERROR', code: 'backend_unavailable' });
  } finally {
    h.llm.setScript(() => ({ content: 'Hello from the model.' }));
    assert.equal(h.llm.url, saved);
  }
});

test('an unreachable runtime answers 502 with the spec body', async () => {
  const saved = runtimeUrl;
  runtimeUrl = 'http://127.0.0.1:1';
  try {
    const r = await agui({ messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.status, 502);
    assert.equal(r.raw, '{"error":"service unavailable"}');
  } finally {
    runtimeUrl = saved;
  }
});
