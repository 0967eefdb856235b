/**
 * Chat through the whole stack (issue 5 "Done when", checked from outside through the public API):
 * supervisor + every service, login at the gateway, the inference router's `default` role mapped to
 * the scripted provider. A chat answers with the provider's text and a receipt whose bundle verifies
 * once sealed; the second turn carries the history; the SSE stream ends with done; the receipt's
 * events include the runtime's; a provider that goes away yields error / backend_unavailable.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { SseParser, type SseRecord } from '../../services/gateway/src/agui/sse.js';
import type { ChatResponse } from '../../services/agent-runtime/src/contracts.js';
import { eventually } from '../helpers/runtime-harness.js';

let stack: TestStack;
let llm: ScriptedLlm;
let token: string;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* text */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

before(async () => {
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      return { content: `echo: ${String(msgs.at(-1)!.content)}` };
    },
  });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status === 201 || prov.status === 200, `provider registration: ${prov.status} ${JSON.stringify(prov.body)}`);
  const role = await api('PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' });
  assert.ok(role.status >= 200 && role.status < 300, `role mapping: ${role.status} ${JSON.stringify(role.body)}`);
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('through the gateway: provider text, receipt that seals and verifies with the runtime events, history on turn two', async () => {
  const r = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: 'Hello stack' }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const b = r.body as ChatResponse;
  assert.equal(b.message.content, 'echo: Hello stack');
  const turn = r.headers.get('x-svc-turn-id')!;
  assert.equal(b.receipt?.turn_id, turn);
  const detail = await eventually(async () => {
    const x = await api('GET', `/v1/receipts/${turn}`);
    return x.status === 200 ? x.body as { events: Array<{ payload_type: string }> } : null;
  }, 15_000, 200);
  const types = detail.events.map((e) => e.payload_type);
  for (const t of ['turn_started', 'prompt_generated', 'model_invoked', 'model_response', 'turn_sealed']) assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
  const v = await api('POST', `/v1/receipts/${turn}/verify`);
  assert.equal(v.status, 200);
  assert.equal((v.body as { ok: boolean }).ok, true);

  const second = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: 'Turn two' }], session_id: b.session_id });
  assert.equal(second.status, 200);
  const sent = llm.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.deepEqual(sent.filter((m) => m.role !== 'system').map((m) => m.content), ['Hello stack', 'echo: Hello stack', 'Turn two']);
});

test('through the real gateway: the AG-UI stream validates with @ag-ui/core and verifyEvents, RUN_STARTED first, RUN_FINISHED last', async () => {
  const { EventSchemas } = await import('@ag-ui/core/schemas');
  const { verifyEvents } = await import('@ag-ui/client');
  const { from, lastValueFrom, toArray } = await import('rxjs');
  const r = await fetch(`${stack.url}/v1/chat/agui/stream`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'agui please' }] }),
  });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
  const text = await r.text();
  const records = text.split('\n\n').filter((b) => b.trim()).map((b) => {
    assert.ok(!/^event:/m.test(b), 'AG-UI records carry data lines only');
    return JSON.parse(b.replace(/^data: /gm, '')) as { type: string; delta?: string };
  });
  for (const e of records) assert.ok(EventSchemas.safeParse(e).success, `schema: ${JSON.stringify(e)}`);
  assert.equal(records[0]!.type, 'RUN_STARTED');
  assert.equal(records.at(-1)!.type, 'RUN_FINISHED');
  const content = records.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join('');
  assert.equal(content, 'echo: agui please');
  const verified = await lastValueFrom(verifyEvents()(from(records as never[])).pipe(toArray()));
  assert.equal(verified.length, records.length);
  assert.ok(r.headers.get('x-svc-turn-id'));
});


test('through the gateway: the SSE stream ends with done; a provider that goes away yields error/backend_unavailable', async () => {
  const read = async (): Promise<SseRecord[]> => {
    const r = await fetch(`${stack.url}/v1/chat/stream`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Stream please' }] }),
    });
    assert.equal(r.status, 200);
    const p = new SseParser();
    return [...p.push(await r.text()), ...p.end()];
  };
  const ok = await read();
  assert.equal(ok[0]!.event, 'session_created');
  assert.equal(ok.at(-1)!.event, 'done');
  await llm.close();
  const gone = await read();
  assert.equal(gone.at(-1)!.event, 'error');
  assert.equal((gone.at(-1)!.data as { code: string }).code, 'backend_unavailable');
});
