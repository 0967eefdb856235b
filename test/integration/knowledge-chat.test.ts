/**
 * Cited answers in chat through the whole stack (issue 7 "Done when", item 4): a document ingested
 * through the gateway, the runtime registers the knowledge and memory tools once those services
 * answer, the model calls `knowledge_search`, the stream carries the tool call, its result and the
 * citations, and the answer uses the retrieved passage.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

let stack: TestStack;
let llm: ScriptedLlm;
let token: string;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) as unknown : null };
}

before(async () => {
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      const toolMsg = msgs.find((m) => m.role === 'tool');
      if (!toolMsg) return { toolCalls: [{ id: 'call_1', name: 'knowledge_search', arguments: JSON.stringify({ query: 'zebra migration Serengeti' }) }] };
      return { content: `According to the source [1]: ${String(toolMsg.content).slice(0, 400)}` };
    },
  });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201);
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' })).status < 300);
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('knowledge_search is registered, called by the model, and its passage cited in the answer', async () => {
  const ingest = await api('POST', '/v1/knowledge/ingest/text', { title: 'Serengeti field notes', content: 'The great zebra migration crosses the Serengeti every year, following the rains toward fresh grass in the north.' });
  assert.equal(ingest.status, 201, JSON.stringify(ingest.body));
  let names: string[] = [];
  for (let i = 0; i < 100 && !names.includes('knowledge_search'); i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    const t = await api('GET', '/v1/tools');
    const body = t.body as { items?: Array<{ name?: string; function?: { name: string } }> } | Array<{ name?: string }>;
    const items = Array.isArray(body) ? body : body.items ?? [];
    names = items.map((x) => (x as { name?: string; function?: { name: string } }).name ?? (x as { function?: { name: string } }).function?.name ?? '');
  }
  assert.ok(names.includes('knowledge_search'), `tools: ${names.join(',')}`);
  assert.ok(names.includes('memory_recall'));

  const r = await fetch(`${stack.url}/v1/chat/stream`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'How do zebras move through the Serengeti?' }] }),
  });
  assert.equal(r.status, 200);
  const text = await r.text();
  const events = text.split('\n\n').filter((b) => b.trim()).map((b) => ({
    type: /^event: (.+)$/m.exec(b)?.[1], data: JSON.parse(/^data: (.+)$/m.exec(b)?.[1] ?? 'null') as Record<string, unknown>,
  }));
  const types = events.map((e) => e.type);
  assert.ok(types.includes('tool_call'), types.join(','));
  const result = events.find((e) => e.type === 'tool_result');
  assert.match(String(result?.data.result), /zebra migration/);
  const artifact = events.find((e) => e.type === 'artifact');
  assert.match(JSON.stringify(artifact?.data ?? {}), /Serengeti field notes/, 'citations reach the client');
  const answer = events.filter((e) => e.type === 'token').map((e) => e.data.content).join('');
  assert.match(answer, /zebra migration/);
  assert.equal(types.at(-1), 'done');
});
