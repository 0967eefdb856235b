/**
 * "Why this answer" through the whole stack (issue 13 item 5; spec "Agent runtime surfaces":
 * `/v1/context/*`): a user with a stored memory and an ingested document chats; the turn's context
 * record lists the system prompt, the memory and the retrieved chunk with their scores, the tokens
 * of every part (adding up to the prompt's estimate) and the timed steps (guard input, prefetch,
 * the model call with its model and tokens, guard output). Another user gets 404
 * `context_not_found` for it, exactly as for a turn that does not exist; an admin of the tenant reads it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let alice: string;
let bob: string;
const SYSTEM_PROMPT = 'You are the workstation assistant of the context trace test.';

async function api(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; headers: Headers }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) as unknown : null, headers: r.headers };
}

async function user(email: string): Promise<string> {
  const password = `${email}-long-password`;
  const r = await api(admin, 'POST', '/v1/admin/users', { email, display_name: email.split('@')[0], password, roles: ['user'] });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return login(stack.url, email, password);
}

before(async () => {
  llm = await startScriptedLlm({ script: () => ({ content: 'Oolong, brewed during the zebra migration.', usage: { prompt_tokens: 120, completion_tokens: 9 } }) });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_SYSTEM_PROMPT: SYSTEM_PROMPT });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201);
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' })).status < 300);
  alice = await user('alice@example.test');
  bob = await user('bob@example.test');
});
after(async () => { await stack?.stop(); await llm?.close(); });

interface Part { name: string; kind: string; tokens: number; state: string; text?: string; items?: Array<Record<string, unknown>> }
interface Record_ { turn_id: string; session_id: string; status: string; parts: Part[]; budget_tokens: number; total_tokens: number; model: string | null; trace: Array<{ step: string; started_at: string; duration_ms: number; status: string; detail: Record<string, unknown> }> }

test('a turn with memory and knowledge: the record lists system prompt, memory, chunk with score, tokens per part and the steps; others get 404', async () => {
  const doc = await api(alice, 'POST', '/v1/knowledge/ingest/text', { title: 'Serengeti tea handbook', content: 'During the great zebra migration across the Serengeti the camp serves oolong tea at dusk.' });
  assert.equal(doc.status, 201, JSON.stringify(doc.body));
  const documentId = (doc.body as { document_id: string }).document_id;
  // Stored without an agent: the chat's prefetch covers the agent's memories and the user's shared
  // ones (regression: the runtime used memory's exact-agent search and never saw this memory).
  const mem = await api(alice, 'POST', '/v1/memory', { content: 'Alice prefers oolong tea during the zebra migration season', memory_type: 'user' });
  assert.ok(mem.status < 300, JSON.stringify(mem.body));

  const chat = await api(alice, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'Which tea is served during the zebra migration?' }] });
  assert.equal(chat.status, 200, JSON.stringify(chat.body));
  const turnId = (chat.body as { receipt: { turn_id: string } | null }).receipt?.turn_id ?? chat.headers.get('x-svc-turn-id');
  assert.ok(turnId);

  const got = await api(alice, 'GET', `/v1/context/turns/${turnId}`);
  assert.equal(got.status, 200, JSON.stringify(got.body));
  const r = got.body as Record_;
  assert.equal(r.turn_id, turnId);
  assert.equal(r.session_id, (chat.body as { session_id: string }).session_id);
  assert.equal(r.status, 'completed');
  const part = (name: string): Part => r.parts.find((p) => p.name === name)!;
  assert.deepEqual(r.parts.map((p) => p.name), ['system_prompt', 'profile', 'memories', 'knowledge', 'skills', 'history', 'input']);
  assert.equal(part('profile').kind, 'profile');

  assert.equal(part('system_prompt').text, SYSTEM_PROMPT);
  const memories = part('memories');
  assert.equal(memories.state, 'included');
  const m = memories.items!.find((i) => String(i.text).includes('prefers oolong'));
  assert.ok(m, JSON.stringify(memories));
  assert.equal(typeof m.score, 'number');
  assert.equal(typeof m.id, 'string');

  const knowledge = part('knowledge');
  assert.equal(knowledge.state, 'included');
  const chunk = knowledge.items!.find((i) => i.document_id === documentId);
  assert.ok(chunk, JSON.stringify(knowledge));
  assert.equal(chunk.document_title, 'Serengeti tea handbook');
  assert.equal(chunk.chunk_index, 0);
  assert.ok(typeof chunk.score === 'number' && chunk.score > 0 && chunk.score <= 1);
  assert.deepEqual(part('skills').items, []);

  for (const name of ['system_prompt', 'memories', 'knowledge', 'input']) assert.ok(part(name).tokens > 0, `${name} has tokens`);
  assert.equal(r.parts.reduce((a, p) => a + p.tokens, 0), r.total_tokens, 'the parts add up to the estimate');
  assert.equal(r.budget_tokens, 8192 - 1024);
  assert.equal(r.model, 'scripted-model');

  assert.deepEqual(r.trace.map((s) => s.step), ['guard_input', 'prefetch', 'model_call', 'guard_output']);
  assert.equal(r.trace[0]!.status, 'allow');
  assert.equal(r.trace[1]!.status, 'ok');
  const call = r.trace[2]!;
  assert.equal(call.status, 'ok');
  assert.equal(call.detail.model, 'scripted-model');
  assert.equal(call.detail.prompt_tokens, 120);
  assert.equal(call.detail.completion_tokens, 9);
  assert.equal(typeof call.detail.latency_ms, 'number');
  for (const s of r.trace) assert.ok(Date.parse(s.started_at) > 0 && s.duration_ms >= 0);

  const trace = await api(alice, 'GET', `/v1/context/turns/${turnId}/trace`);
  assert.equal(trace.status, 200);
  assert.deepEqual((trace.body as { trace: unknown[] }).trace, r.trace);

  for (const path of [`/v1/context/turns/${turnId}`, `/v1/context/turns/${turnId}/trace`]) {
    const other = await api(bob, 'GET', path);
    assert.equal(other.status, 404);
    assert.equal((other.body as { code: string }).code, 'context_not_found');
  }
  const missing = await api(alice, 'GET', '/v1/context/turns/01JNOTAREALTURN0000000000');
  assert.deepEqual([missing.status, (missing.body as { code: string }).code], [404, 'context_not_found'], 'another user\'s turn answers as a missing one');

  const asAdmin = await api(admin, 'GET', `/v1/context/turns/${turnId}`);
  assert.equal(asAdmin.status, 200);
  assert.equal((asAdmin.body as Record_).turn_id, turnId);
});

test('the overview lists the turn among the user\'s recent turns, not among another user\'s', async () => {
  const mine = await api(alice, 'GET', '/v1/overview');
  assert.equal(mine.status, 200);
  const turns = (mine.body as { recent_activity: { turns: Array<{ turn_id: string; status: string; total_tokens: number }> } }).recent_activity.turns;
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.status, 'completed');
  assert.ok(turns[0]!.total_tokens > 0);
  const theirs = await api(bob, 'GET', '/v1/overview');
  assert.deepEqual((theirs.body as { recent_activity: { turns: unknown[] } }).recent_activity.turns, []);
});

test('deleting a chat deletes the context records of its turns', async () => {
  const chat = await api(bob, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'Remember nothing of this.' }] });
  assert.equal(chat.status, 200, JSON.stringify(chat.body));
  const body = chat.body as { session_id: string; receipt: { turn_id: string } | null };
  const turnId = body.receipt?.turn_id ?? chat.headers.get('x-svc-turn-id');
  assert.equal((await api(bob, 'GET', `/v1/context/turns/${turnId}`)).status, 200);
  assert.ok((await api(bob, 'DELETE', `/v1/sessions/${body.session_id}`)).status < 300);
  assert.equal((await api(bob, 'GET', `/v1/context/turns/${turnId}`)).status, 404, 'the record went with the chat');
  assert.deepEqual(((await api(bob, 'GET', '/v1/overview')).body as { recent_activity: { turns: unknown[] } }).recent_activity.turns, []);
});
