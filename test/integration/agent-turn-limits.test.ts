/**
 * An agent's stored settings applied to its turns (issue 17 item 1), through the whole stack with
 * the scripted LLM:
 * - `knowledge {tags}` narrows knowledge retrieval (the prefetched context and `knowledge_search`)
 *   to documents with those tags, within the user's own visibility; knowledge's search `filter`
 *   itself (tags, document ids, never wider than the caller's visibility);
 * - `model` is what the router is asked for (the scripted LLM receives that model name) and the
 *   turn's trace and `model_invoked` / `prompt_generated` events name it;
 * - `guardrail_policy` names the guardrail's policy override the turn's checks apply;
 * - `memory_scope: agent` keeps memories under the agent: another agent of the same user does not
 *   find them (prefetch or `memory_recall`), and the agent does not find the user's shared ones.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let bob: string;
let carol: string;

type Msg = { role: string; content: unknown };
const messagesOf = (r: RecordedRequest): Msg[] => r.body.messages as Msg[];
const systemText = (r: RecordedRequest): string => messagesOf(r).filter((m) => m.role === 'system').map((m) => String(m.content)).join('\n');
const toolText = (r: RecordedRequest): string => messagesOf(r).filter((m) => m.role === 'tool').map((m) => String(m.content)).join('\n');
const lastUser = (r: RecordedRequest): string => String([...messagesOf(r)].reverse().find((m) => m.role === 'user')?.content ?? '');

/** The scripted model: a prefix of the user's message names the one tool call it makes first. */
function script(r: RecordedRequest): ScriptedReply {
  const user = lastUser(r);
  const msgs = messagesOf(r);
  if (msgs.some((m) => m.role === 'tool')) return { content: `done: ${toolText(r).slice(0, 60)}` };
  const call = (name: string, args: unknown): ScriptedReply => ({ toolCalls: [{ id: `call-${name}`, name, arguments: JSON.stringify(args) }] });
  if (user.startsWith('ks:')) return call('knowledge_search', { query: 'okapi migration corridor' });
  if (user.startsWith('mstore:')) return call('memory_store', { content: user.slice('mstore:'.length).trim(), memory_type: 'user' });
  if (user.startsWith('mrecall:')) return call('memory_recall', { query: user.slice('mrecall:'.length).trim() });
  return { content: `echo: ${user}` };
}

const api = (token: string, method: string, path: string, body?: unknown): Promise<JsonAnswer> => callJson(stack.url, token, method, path, body);

async function until<T>(fn: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One chat turn as `token`: the answer and the requests the scripted LLM received for it. */
async function chat(token: string, body: Record<string, unknown>): Promise<{ r: JsonAnswer; requests: RecordedRequest[] }> {
  const from = llm.requests.length;
  const r = await api(token, 'POST', '/v1/chat', body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { r, requests: llm.requests.slice(from).filter((x) => x.path.includes('chat/completions')) };
}

const msg = (text: string): Array<{ role: string; content: string }> => [{ role: 'user', content: text }];

before(async () => {
  llm = await startScriptedLlm({ script, models: ['scripted-model', 'special-model'] });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  for (const u of ['bob', 'carol']) {
    const c = await api(admin, 'POST', '/v1/admin/users', { email: `${u}@example.test`, display_name: u, password: `${u}-long-password`, roles: ['user'] });
    assert.equal(c.status, 201, JSON.stringify(c.body));
  }
  bob = await login(stack.url, 'bob@example.test', 'bob-long-password');
  carol = await login(stack.url, 'carol@example.test', 'carol-long-password');
  // The knowledge and memory tools are registered once their services answer.
  await until(async () => {
    const body = (await api(bob, 'GET', '/v1/tools')).body as { items?: unknown[] } | unknown[];
    const items = (Array.isArray(body) ? body : body.items ?? []) as Array<{ name?: string; function?: { name: string } }>;
    const names = items.map((t) => t.name ?? t.function?.name);
    return names.includes('knowledge_search') && names.includes('memory_recall') ? true : null;
  });
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('knowledge {tags}: the agent grounds only on documents with the tag; the search filter never widens visibility', async () => {
  const batch = await api(bob, 'POST', '/v1/knowledge/ingest/batch', {
    records: [
      { title: 'Legal memo LEX-41', content: 'The okapi migration corridor agreement is governed by Kenyan law and expires in 2031.', metadata: { tags: ['legal'] } },
      { title: 'Field diary FD-88', content: 'The okapi migration corridor was muddy today; we saw three okapi near the river.' },
    ],
  });
  assert.equal(batch.status, 201, JSON.stringify(batch.body));
  const [legal, diary] = batch.body.documents as Array<{ document_id: string; title: string }>;
  const titles = async (token: string, filter?: unknown): Promise<string[]> => {
    const r = await api(token, 'POST', '/v1/knowledge/search', { query: 'okapi migration corridor', ...(filter ? { filter } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.results as Array<{ document_title: string }>).map((x) => x.document_title).sort();
  };
  // The search filter (knowledge contract): tags, document ids, or none.
  assert.deepEqual(await until(async () => { const t = await titles(bob); return t.length === 2 ? t : null; }), ['Field diary FD-88', 'Legal memo LEX-41']);
  assert.deepEqual(await titles(bob, { tags: ['legal'] }), ['Legal memo LEX-41']);
  assert.deepEqual(await titles(bob, { document_ids: [diary!.document_id] }), ['Field diary FD-88']);
  assert.deepEqual(await titles(bob, { tags: ['legal'], document_ids: [diary!.document_id] }), ['Field diary FD-88', 'Legal memo LEX-41'], 'any of the lists');
  assert.deepEqual(await titles(bob, { tags: [] }), ['Field diary FD-88', 'Legal memo LEX-41'], 'an empty filter narrows nothing');
  assert.deepEqual(await titles(carol, { tags: ['legal'], document_ids: [legal!.document_id] }), [], 'a filter never reaches beyond the caller\'s visibility');
  assert.deepEqual((await titles(admin, { tags: ['legal'] })).filter((t) => /LEX-41|FD-88/.test(t)), ['Legal memo LEX-41'], 'admins (who see everything) are narrowed too');
  assert.equal((await api(bob, 'POST', '/v1/knowledge/search', { query: 'okapi', filter: { colour: ['red'] } })).status, 400, 'the filter is schema-checked');

  const agent = await api(bob, 'POST', '/v1/agents', { name: 'Legal only', knowledge: { tags: ['legal'] } });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  // Prefetched context and the knowledge_search tool both see the legal memo only.
  const limited = await chat(bob, { agent_id: agent.body.id, messages: msg('ks: what about the okapi migration corridor?') });
  assert.equal(limited.requests.length, 2);
  assert.match(systemText(limited.requests[0]!), /LEX-41/);
  assert.doesNotMatch(systemText(limited.requests[0]!), /FD-88/, 'the other document the user can see is not in the context');
  assert.match(toolText(limited.requests[1]!), /LEX-41/);
  assert.doesNotMatch(toolText(limited.requests[1]!), /FD-88/, 'nor in the tool results');
  assert.equal(limited.r.body.message.processing_trace.context.knowledge, 1);
  // The default agent still reaches both.
  const open = await chat(bob, { messages: msg('ks: what about the okapi migration corridor?') });
  assert.match(systemText(open.requests[0]!), /LEX-41/);
  assert.match(systemText(open.requests[0]!), /FD-88/);
  assert.match(toolText(open.requests[1]!), /FD-88/);
});

test('model: the agent\'s concrete model is what the LLM receives and the trace and turn events name it', async () => {
  const agent = await api(bob, 'POST', '/v1/agents', { name: 'Special', model: 'special-model' });
  assert.equal(agent.status, 201);
  const special = await chat(bob, { agent_id: agent.body.id, messages: msg('hello special') });
  assert.ok(special.requests.length >= 1);
  for (const r of special.requests) assert.equal(r.body.model, 'special-model');
  assert.equal(special.r.body.message.processing_trace.model, 'special-model');
  const turnId = special.r.headers.get('x-svc-turn-id');
  assert.ok(turnId);
  {
    const events = await until(async () => {
      const r = await api(bob, 'GET', `/v1/receipts/${turnId}`);
      if (r.status !== 200) return null;
      const evs = r.body.events as Array<{ payload_type: string; payload_json: string }>;
      return evs.some((e) => e.payload_type === 'turn_sealed') ? evs : null;
    });
    const invoked = events.find((e) => e.payload_type === 'model_invoked');
    assert.equal(JSON.parse(invoked!.payload_json).model, 'special-model', 'the receipt records the model asked for');
    assert.equal(JSON.parse(events.find((e) => e.payload_type === 'prompt_generated')!.payload_json).model, 'special-model');
  }
  const plain = await chat(bob, { messages: msg('hello default') });
  for (const r of plain.requests) assert.equal(r.body.model, 'scripted-model', 'without a model the role routes');
});

test('guardrail_policy: the named policy\'s decision applies to the agent\'s turns only', async () => {
  const put = await api(admin, 'PUT', '/v1/guard/policy', { agent_id: 'strict-pii', policy: { pii: { input: 'block' } } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const strict = await api(bob, 'POST', '/v1/agents', { name: 'Strict', guardrail_policy: 'strict-pii' });
  assert.equal(strict.status, 201);
  const text = 'please email the contract to jane.doe@example.org today';
  const blocked = await chat(bob, { agent_id: strict.body.id, messages: msg(text) });
  assert.equal(blocked.r.body.message.processing_trace.guardrail.input, 'block');
  assert.equal(blocked.requests.length, 0, 'the blocked message never reached the model');
  const open = await chat(bob, { messages: msg(text) });
  assert.notEqual(open.r.body.message.processing_trace.guardrail.input, 'block', 'the tenant policy (pii flagged) for the default agent');
  assert.equal(open.requests.length, 1);
});

test('memory_scope agent: stored and searched under the agent only; another agent of the user does not find them, and vice versa', async () => {
  const privy = await api(bob, 'POST', '/v1/agents', { name: 'Private memory', memory_scope: 'agent' });
  const other = await api(bob, 'POST', '/v1/agents', { name: 'Shared memory' });
  assert.equal(privy.status, 201);
  assert.equal(other.status, 201);
  const A = privy.body.id as string;
  const B = other.body.id as string;
  // The agent-scoped agent stores through its tool: the memory is under the agent.
  await chat(bob, { agent_id: A, messages: msg('mstore: The user grows bonsai trees named Kiwi and Mango') });
  const underA = await api(bob, 'GET', `/v1/memory?agent_id=${A}`);
  assert.equal(underA.status, 200);
  assert.ok((underA.body.items as Array<{ content: string; scope: { agent_id: string } }>).some((m) => /bonsai/.test(m.content) && m.scope.agent_id === A), JSON.stringify(underA.body));
  // A shared memory of the user (no agent), stored by the other agent.
  await chat(bob, { agent_id: B, messages: msg('mstore: The user drinks rooibos tea every evening') });
  const shared = await api(bob, 'GET', '/v1/memory');
  assert.ok((shared.body.items as Array<{ content: string; scope: { agent_id: string | null } }>).some((m) => /rooibos/.test(m.content) && !m.scope.agent_id), JSON.stringify(shared.body));

  // Prefetch: A finds its own and not the shared one; B finds the shared one and not A's.
  const aBonsai = await chat(bob, { agent_id: A, messages: msg('bonsai trees named Kiwi and Mango') });
  assert.match(systemText(aBonsai.requests[0]!), /bonsai/);
  const aTea = await chat(bob, { agent_id: A, messages: msg('rooibos tea every evening') });
  assert.doesNotMatch(systemText(aTea.requests[0]!), /rooibos/, 'an agent-scoped agent reads no shared memories');
  const bBonsai = await chat(bob, { agent_id: B, messages: msg('bonsai trees named Kiwi and Mango') });
  assert.doesNotMatch(systemText(bBonsai.requests[0]!), /bonsai/, 'another agent does not find the agent\'s memories');
  const bTea = await chat(bob, { agent_id: B, messages: msg('rooibos tea every evening') });
  assert.match(systemText(bTea.requests[0]!), /rooibos/);

  // memory_recall: the same both ways.
  const aRecall = await chat(bob, { agent_id: A, messages: msg('mrecall: bonsai rooibos') });
  assert.match(toolText(aRecall.requests[1]!), /bonsai/);
  assert.doesNotMatch(toolText(aRecall.requests[1]!), /rooibos/);
  const bRecall = await chat(bob, { agent_id: B, messages: msg('mrecall: bonsai rooibos') });
  assert.match(toolText(bRecall.requests[1]!), /rooibos/);
  assert.doesNotMatch(toolText(bRecall.requests[1]!), /bonsai/);
});
