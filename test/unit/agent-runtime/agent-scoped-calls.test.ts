/**
 * An agent's limits on its tools' service calls (issue 17 item 1; domain/agents/scoped-calls.ts),
 * over a recording fake `ServiceCall`: the knowledge search gets the agent's filter (replacing any
 * the tool or the model sent), memory calls are kept under the agent for scope `agent`, other
 * agents' own memories are left out for scope `user`, and scope `none` reaches no memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServiceAnswer, ServiceCall } from '../../../services/agent-runtime/src/contracts.js';
import type { ResolvedAgent } from '../../../services/agent-runtime/src/domain/agents/catalog.js';
import { agentServiceCall, knowledgeFilterOf } from '../../../services/agent-runtime/src/domain/agents/scoped-calls.js';

const agent = (over: Partial<ResolvedAgent>): ResolvedAgent => ({
  id: 'A', name: 'a', instructions: '', tools: [], modelRole: null, toolApproval: 'auto', memoryScope: 'user', model: null, knowledge: null, guardrailPolicy: null, ...over,
});

function recorder(answer: (path: string) => ServiceAnswer = () => ({ ok: true, status: 200, body: {} })): { call: ServiceCall; seen: Array<{ service: string; path: string; body: unknown }> } {
  const seen: Array<{ service: string; path: string; body: unknown }> = [];
  return { seen, call: async (service, _method, path, body) => { seen.push({ service, path, body }); return answer(path); } };
}

const mem = (id: string, agentId: string | null): Record<string, unknown> => ({ id, content: id, scope: { tenant_id: 't', user_id: 'u', agent_id: agentId, session_id: null } });

test('knowledgeFilterOf: trimmed lists, empty ones left out, null when nothing is named', () => {
  assert.equal(knowledgeFilterOf(undefined), null);
  assert.equal(knowledgeFilterOf(agent({ knowledge: { tags: [' ', ''] } })), null);
  assert.deepEqual(knowledgeFilterOf(agent({ knowledge: { tags: [' legal ', 'legal'], document_ids: [] } })), { tags: ['legal'] });
});

test('knowledge search: the agent\'s filter replaces any the tool sent; without one the body passes as it is', async () => {
  const r = recorder();
  await agentServiceCall(r.call, 'A', agent({ knowledge: { tags: ['legal'] } }))('knowledge', 'POST', '/v1/knowledge/search', { query: 'q', filter: { document_ids: ['anything'] } });
  assert.deepEqual(r.seen[0]!.body, { query: 'q', filter: { tags: ['legal'] } });
  await agentServiceCall(r.call, 'A', agent({}))('knowledge', 'POST', '/v1/knowledge/search', { query: 'q', filter: { tags: ['wider'] } });
  assert.deepEqual(r.seen[1]!.body, { query: 'q', filter: { tags: ['wider'] } }, 'a filter only narrows, so it passes');
  await agentServiceCall(r.call, 'A', agent({ knowledge: { tags: ['legal'] } }))('knowledge', 'GET', '/v1/knowledge/wiki');
  assert.equal(r.seen[2]!.body, undefined, 'other calls pass as they are');
});

test('memory scope agent: store and search under the agent; results of others left out', async () => {
  const r = recorder((path) => (path === '/v1/memory/search' ? { ok: true, status: 200, body: { memories: [mem('own', 'A'), mem('shared', null), mem('other', 'B')] } } : { ok: true, status: 201, body: {} }));
  const call = agentServiceCall(r.call, 'A', agent({ memoryScope: 'agent' }));
  await call('memory', 'POST', '/v1/memory', { content: 'x', scope: { agent_id: 'B' } });
  assert.deepEqual((r.seen[0]!.body as { scope: unknown }).scope, { agent_id: 'A' });
  const found = await call('memory', 'POST', '/v1/memory/search', { query: 'x' });
  assert.deepEqual((r.seen[1]!.body as { scope: unknown }).scope, { agent_id: 'A' });
  assert.deepEqual((found.body as { memories: Array<{ id: string }> }).memories.map((m) => m.id), ['own']);
});

test('memory scope user: shared and own memories, not another agent\'s; a get of one is 404; scope none reaches nothing', async () => {
  const r = recorder((path) => (path === '/v1/memory/search'
    ? { ok: true, status: 200, body: { memories: [mem('own', 'A'), mem('shared', null), mem('other', 'B')] } }
    : { ok: true, status: 200, body: mem('other', 'B') }));
  const call = agentServiceCall(r.call, 'A', agent({ memoryScope: 'user' }));
  const found = await call('memory', 'POST', '/v1/memory/search', { query: 'x' });
  assert.deepEqual((found.body as { memories: Array<{ id: string }> }).memories.map((m) => m.id), ['own', 'shared']);
  assert.deepEqual(r.seen[0]!.body, { query: 'x' }, 'the user scope sends the search as it is');
  assert.equal((await call('memory', 'GET', '/v1/memory/01ABC')).status, 404);
  const none = await agentServiceCall(r.call, 'A', agent({ memoryScope: 'none' }))('memory', 'POST', '/v1/memory/search', { query: 'x' });
  assert.equal(none.status, 403);
  assert.equal(r.seen.length, 2, 'scope none makes no call');
});
