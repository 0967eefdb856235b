/**
 * Agents and skills through the whole stack (issue 17 items 1 and 2; spec "Agent runtime surfaces":
 * `/v1/agents`, `/v1/skills`), checked from outside through the gateway with the scripted LLM:
 * - the catalog's scope rules: tenant agents and skills by admins only (403 `forbidden`), another
 *   user's personal agent or skill is 404 to read, edit, delete or use in a chat, the default agent
 *   exists and is read-only to users;
 * - a chat with `agent_id` runs the agent: its instructions reach the model, its tool allow-list
 *   narrows the tools offered, and `agent_id` is in the answer, the stream's `done` and the sealed
 *   receipt's `prompt_generated`;
 * - skills are versioned with the sha256 of their SKILL.md form; the model is offered names and
 *   descriptions only, calls `load_skill`, gets the body, and the receipt commits the skill's id,
 *   version and hash in the call's `tool_returned`.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { SseParser, type SseRecord } from '../../services/gateway/src/agui/sse.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let bob: string;
let carol: string;

const INSTRUCTIONS = 'You review contracts for the legal team. Always cite clause numbers. Marker ZEBRA-7.';
const SKILL_BODY_V1 = '# NDA review\n\n1. Check the term.\n2. Check the jurisdiction.';
const SKILL_BODY_V2 = '# NDA review\n\n1. Check the term (max 3 years).\n2. Check the jurisdiction.\n3. Flag non-solicit clauses. Marker OKAPI-3.';

type Msg = { role: string; content: unknown; tool_call_id?: string };
const messagesOf = (r: RecordedRequest): Msg[] => r.body.messages as Msg[];
const toolNames = (r: RecordedRequest): string[] => ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
const systemText = (r: RecordedRequest): string => messagesOf(r).filter((m) => m.role === 'system').map((m) => String(m.content)).join('\n');
const lastUser = (r: RecordedRequest): string => String([...messagesOf(r)].reverse().find((m) => m.role === 'user')?.content ?? '');

/** The scripted model: asked to use a skill, it calls `load_skill` once, then answers with what the tool returned. */
function script(r: RecordedRequest): ScriptedReply {
  const msgs = messagesOf(r);
  const user = lastUser(r);
  if (user.startsWith('use-skill') && toolNames(r).includes('load_skill') && !msgs.some((m) => m.role === 'tool')) {
    return { toolCalls: [{ id: 'call-skill-1', name: 'load_skill', arguments: JSON.stringify({ name: 'nda-review' }) }] };
  }
  const tool = msgs.find((m) => m.role === 'tool');
  return { content: tool ? `loaded: ${String(tool.content).slice(0, 40)}` : `echo: ${user}` };
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

/** The sealed receipt's events of a turn (`payload_json` parsed). */
async function sealedEvents(token: string, turnId: string): Promise<Array<{ payload_type: string; payload: Record<string, unknown> }>> {
  return until(async () => {
    const r = await api(token, 'GET', `/v1/receipts/${turnId}`);
    if (r.status !== 200) return null;
    const events = (r.body.events as Array<{ payload_type: string; payload_json: string }>);
    if (!events.some((e) => e.payload_type === 'turn_sealed')) return null;
    return events.map((e) => ({ payload_type: e.payload_type, payload: JSON.parse(e.payload_json) as Record<string, unknown> }));
  });
}

/** A chat stream as `token` with `body`: every record. */
async function stream(token: string, body: unknown): Promise<SseRecord[]> {
  const r = await fetch(`${stack.url}/v1/chat/stream`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(r.status, 200);
  const parser = new SseParser();
  const dec = new TextDecoder();
  const out: SseRecord[] = [];
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) out.push(...parser.push(dec.decode(chunk, { stream: true })));
  out.push(...parser.end());
  return out;
}

before(async () => {
  llm = await startScriptedLlm({ script });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false' });
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
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('agents: the default agent exists read-only; tenant agents by admins only; a personal agent is its owner\'s alone', async () => {
  const list = await api(bob, 'GET', '/v1/agents');
  assert.equal(list.status, 200);
  assert.equal(list.body.items[0].id, 'default');
  assert.equal(list.body.items[0].is_default, true);
  assert.equal(list.body.items[0].editable, false);
  assert.equal((await api(bob, 'PATCH', '/v1/agents/default', { instructions: 'x' })).body.code, 'forbidden');
  assert.equal((await api(admin, 'DELETE', '/v1/agents/default')).status, 403, 'nobody deletes the default agent');

  const userTenant = await api(bob, 'POST', '/v1/agents', { name: 'Team agent', scope: 'tenant' });
  assert.equal(userTenant.status, 403);
  assert.equal(userTenant.body.code, 'forbidden');
  const team = await api(admin, 'POST', '/v1/agents', { name: 'Team agent', scope: 'tenant', description: 'for everyone', tool_approval: 'ask' });
  assert.equal(team.status, 201, JSON.stringify(team.body));
  assert.equal(team.body.scope, 'tenant');
  const seen = await api(bob, 'GET', `/v1/agents/${team.body.id}`);
  assert.equal(seen.status, 200);
  assert.equal(seen.body.editable, false);
  assert.equal((await api(bob, 'PATCH', `/v1/agents/${team.body.id}`, { description: 'mine now' })).status, 403);
  assert.equal((await api(bob, 'DELETE', `/v1/agents/${team.body.id}`)).status, 403);

  const mine = await api(bob, 'POST', '/v1/agents', { name: 'Contracts reviewer', instructions: INSTRUCTIONS, tools: ['calculator'], knowledge: { audiences: ['legal'] }, memory_scope: 'agent' });
  assert.equal(mine.status, 201, JSON.stringify(mine.body));
  assert.equal(mine.body.scope, 'personal', 'scope defaults to personal');
  assert.deepEqual(mine.body.tools, ['calculator']);
  assert.deepEqual(mine.body.knowledge, { audiences: ['legal'] });
  assert.equal(mine.body.editable, true);
  const id = mine.body.id as string;
  for (const [method, body] of [['GET', undefined], ['PATCH', { description: 'stolen' }], ['PUT', { name: 'stolen' }], ['DELETE', undefined]] as const) {
    const r = await api(carol, method, `/v1/agents/${id}`, body);
    assert.equal(r.status, 404, `${method} by another user`);
    assert.equal(r.body.code, 'agent_not_found');
  }
  assert.equal((await api(admin, 'GET', `/v1/agents/${id}`)).status, 404, 'personal agents are not the admin\'s either');
  assert.ok(!(await api(carol, 'GET', '/v1/agents')).body.items.some((a: { id: string }) => a.id === id));
  assert.ok((await api(bob, 'GET', '/v1/agents')).body.items.some((a: { id: string }) => a.id === id));

  const patched = await api(bob, 'PATCH', `/v1/agents/${id}`, { description: 'reviews NDAs' });
  assert.equal(patched.status, 200);
  assert.equal(patched.body.description, 'reviews NDAs');
  assert.equal(patched.body.instructions, INSTRUCTIONS, 'PATCH keeps what it does not name');
  assert.equal((await api(bob, 'PUT', `/v1/agents/${id}`, { name: 'x', scope: 'tenant' })).status, 400, 'the scope cannot change');
  assert.equal((await api(bob, 'POST', '/v1/agents', { name: 'bad', tools: ['has space'] })).status, 400);

  const throwaway = await api(bob, 'POST', '/v1/agents', { name: 'Throwaway' });
  assert.equal((await api(bob, 'DELETE', `/v1/agents/${throwaway.body.id}`)).status, 204);
  assert.equal((await api(bob, 'GET', `/v1/agents/${throwaway.body.id}`)).status, 404);
});

test('chat with agent_id: instructions reach the model, tools narrowed to the allow-list, agent_id in answer, done and sealed receipt; another user\'s agent is 404', async () => {
  const agent = await api(bob, 'POST', '/v1/agents', { name: 'Reviewer', instructions: INSTRUCTIONS, tools: ['calculator'] });
  const agentId = agent.body.id as string;

  const r = await api(bob, 'POST', '/v1/chat', { agent_id: agentId, messages: [{ role: 'user', content: 'agent-turn one' }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.agent_id, agentId);
  assert.equal(r.body.message.processing_trace.agent_id, agentId);
  const seen = llm.requests.filter((x) => lastUser(x) === 'agent-turn one');
  assert.equal(seen.length, 1);
  assert.ok(systemText(seen[0]!).includes('ZEBRA-7'), 'the agent\'s instructions are in the system prompt');
  assert.deepEqual(toolNames(seen[0]!), ['calculator'], 'only the allowed tools are offered');

  const plain = await api(bob, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'default-turn one' }] });
  assert.equal(plain.body.agent_id, 'default');
  const plainReq = llm.requests.find((x) => lastUser(x) === 'default-turn one')!;
  assert.ok(!systemText(plainReq).includes('ZEBRA-7'));
  assert.ok(toolNames(plainReq).includes('get_current_time'), 'the default agent has the default tool set');

  const events = await sealedEvents(bob, r.headers.get('x-svc-turn-id')!);
  const prompt = events.find((e) => e.payload_type === 'prompt_generated')!;
  assert.equal(prompt.payload.agent_id, agentId, 'the sealed receipt names the agent');

  const records = await stream(bob, { agent_id: agentId, messages: [{ role: 'user', content: 'agent-turn stream' }] });
  const done = records.find((x) => x.event === 'done');
  assert.equal((done?.data as { agent_id: string }).agent_id, agentId);

  const foreign = await api(carol, 'POST', '/v1/chat', { agent_id: agentId, messages: [{ role: 'user', content: 'carol uses bob\'s agent' }] });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.code, 'agent_not_found');
  assert.equal((await api(bob, 'POST', '/v1/chat', { agent_id: 'no-such-agent', messages: [{ role: 'user', content: 'x' }] })).body.code, 'agent_not_found');
  assert.ok(!llm.requests.some((x) => lastUser(x) === 'carol uses bob\'s agent'), 'the model never saw it');
});

test('tool_approval deny offers no tools; memory_scope none drops the memory tools', async () => {
  const agent = await api(bob, 'POST', '/v1/agents', { name: 'No tools', tool_approval: 'deny' });
  const r = await api(bob, 'POST', '/v1/chat', { agent_id: agent.body.id, messages: [{ role: 'user', content: 'deny-turn' }] });
  assert.equal(r.status, 200);
  assert.deepEqual(toolNames(llm.requests.find((x) => lastUser(x) === 'deny-turn')!), []);

  const plain = toolNames(llm.requests.find((x) => lastUser(x) === 'default-turn one')!);
  assert.ok(plain.includes('memory_recall'), `the default set has the memory tools: ${plain.join(',')}`);
  const forgetful = await api(bob, 'POST', '/v1/agents', { name: 'Forgetful', memory_scope: 'none' });
  assert.equal((await api(bob, 'POST', '/v1/chat', { agent_id: forgetful.body.id, messages: [{ role: 'user', content: 'no-memory-turn' }] })).status, 200);
  const offered = toolNames(llm.requests.find((x) => lastUser(x) === 'no-memory-turn')!);
  assert.deepEqual(offered, plain.filter((n) => !n.startsWith('memory_')));
});

test('skills: versions and SKILL.md hash; tenant by admins only; another user\'s skill is 404; names unique per scope', async () => {
  const sha = (name: string, description: string, content: string): string =>
    createHash('sha256').update(`---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n${content}`).digest('hex');
  const desc = 'Review a non-disclosure agreement';
  const s = await api(bob, 'POST', '/v1/skills', { name: 'nda-review', description: desc, content: SKILL_BODY_V1 });
  assert.equal(s.status, 201, JSON.stringify(s.body));
  assert.equal(s.body.version, 1);
  assert.equal(s.body.scope, 'personal');
  assert.equal(s.body.sha256, sha('nda-review', desc, SKILL_BODY_V1));
  const id = s.body.id as string;

  const v2 = await api(bob, 'PUT', `/v1/skills/${id}`, { content: SKILL_BODY_V2 });
  assert.equal(v2.status, 200);
  assert.equal(v2.body.version, 2);
  assert.equal(v2.body.sha256, sha('nda-review', desc, SKILL_BODY_V2));
  const same = await api(bob, 'PUT', `/v1/skills/${id}`, { content: SKILL_BODY_V2 });
  assert.equal(same.body.version, 2, 'no change, no new version');
  const versions = await api(bob, 'GET', `/v1/skills/${id}/versions`);
  assert.deepEqual(versions.body.items.map((v: { version: number; sha256: string }) => [v.version, v.sha256]),
    [[2, sha('nda-review', desc, SKILL_BODY_V2)], [1, sha('nda-review', desc, SKILL_BODY_V1)]]);

  for (const [method, path, body] of [['GET', '', undefined], ['GET', '/versions', undefined], ['PUT', '', { content: 'stolen' }], ['DELETE', '', undefined]] as const) {
    const r = await api(carol, method, `/v1/skills/${id}${path}`, body);
    assert.equal(r.status, 404, `${method} ${path} by another user`);
    assert.equal(r.body.code, 'skill_not_found');
  }
  assert.ok(!(await api(carol, 'GET', '/v1/skills')).body.items.some((x: { id: string }) => x.id === id));

  assert.equal((await api(bob, 'POST', '/v1/skills', { name: 'team-style', description: 'd', content: 'c', scope: 'tenant' })).body.code, 'forbidden');
  const team = await api(admin, 'POST', '/v1/skills', { name: 'team-style', description: 'House writing style', content: 'Write short sentences.', scope: 'tenant' });
  assert.equal(team.status, 201);
  assert.ok((await api(carol, 'GET', '/v1/skills')).body.items.some((x: { id: string }) => x.id === team.body.id), 'tenant skills are everyone\'s');
  assert.equal((await api(carol, 'PUT', `/v1/skills/${team.body.id}`, { content: 'mine' })).body.code, 'forbidden');
  assert.equal((await api(admin, 'POST', '/v1/skills', { name: 'team-style', description: 'again', content: 'x', scope: 'tenant' })).body.code, 'skill_name_taken');
  assert.equal((await api(bob, 'POST', '/v1/skills', { name: 'nda-review', description: 'dup', content: 'x' })).status, 409);
  assert.equal((await api(carol, 'POST', '/v1/skills', { name: 'nda-review', description: 'carol\'s own', content: 'x' })).status, 201, 'names are per owner');
  assert.equal((await api(bob, 'POST', '/v1/skills', { name: 'Not A Slug', description: 'd', content: 'c' })).status, 400);
});

test('load_skill: names and descriptions offered, the body loaded on request, the skill\'s id, version and hash in the sealed receipt', async () => {
  const skill = (await api(bob, 'GET', '/v1/skills')).body.items.find((x: { name: string; scope: string }) => x.name === 'nda-review' && x.scope === 'personal');
  assert.ok(skill, 'the skill of the previous test');
  const r = await api(bob, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'use-skill please review this NDA' }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const reqs = llm.requests.filter((x) => lastUser(x) === 'use-skill please review this NDA');
  assert.equal(reqs.length, 2, 'the tool call and the answer');
  const first = reqs[0]!;
  assert.ok(systemText(first).includes('nda-review: Review a non-disclosure agreement'), 'the name and description are offered');
  assert.ok(systemText(first).includes('team-style'), 'the tenant skill too');
  assert.ok(!systemText(first).includes('OKAPI-3'), 'not the body');
  assert.ok(toolNames(first).includes('load_skill'));
  const toolMsg = messagesOf(reqs[1]!).find((m) => m.role === 'tool' && m.tool_call_id === 'call-skill-1');
  assert.ok(String(toolMsg?.content).includes('OKAPI-3'), 'load_skill returned the current body');
  assert.equal(r.body.message.processing_trace.tool_calls[0].tool, 'load_skill');
  assert.equal(r.body.message.processing_trace.tool_calls[0].status, 'ok');

  const events = await sealedEvents(bob, r.headers.get('x-svc-turn-id')!);
  const returned = events.find((e) => e.payload_type === 'tool_returned' && e.payload.tool === 'load_skill')!;
  assert.deepEqual(returned.payload.skill_loaded, { skill_id: skill.id, name: 'nda-review', version: 2, sha256: skill.sha256 });

  // Carol sees her own nda-review, never Bob's body.
  await api(carol, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'use-skill carol' }] });
  const carolReqs = llm.requests.filter((x) => lastUser(x) === 'use-skill carol');
  assert.ok(systemText(carolReqs[0]!).includes('carol\'s own'));
  assert.ok(!systemText(carolReqs[0]!).includes('non-disclosure'));
  const carolTool = messagesOf(carolReqs[1]!).find((m) => m.role === 'tool');
  assert.ok(!String(carolTool?.content).includes('OKAPI-3'));
});
