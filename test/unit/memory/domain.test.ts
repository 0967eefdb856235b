/**
 * The memory use cases over the real SQLite store in memory, with no embedding model and a fake
 * memory role: scopes and authorization, store outcomes (ADD / NONE / UPDATE), role extraction,
 * consolidation (deterministic and by the role), and the role answer parsing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { jsonObjectOf } from '../../../services/memory/src/clients/memory-role.js';
import { Consolidator } from '../../../services/memory/src/domain/consolidate.js';
import { DenseIndex } from '../../../services/memory/src/domain/dense.js';
import type { MemoryDeps } from '../../../services/memory/src/domain/deps.js';
import { MemoryEditor } from '../../../services/memory/src/domain/edit.js';
import type { MemoryRole } from '../../../services/memory/src/domain/ports.js';
import { candidatesFromRole } from '../../../services/memory/src/domain/role-prompts.js';
import { ownedMemory, resolveScope, type Caller } from '../../../services/memory/src/domain/scopes.js';
import { MemoryWriter } from '../../../services/memory/src/domain/write.js';
import { openMemoryStore } from '../../../services/memory/src/store/memory-store.js';
import type { Embedder } from '../../../services/embedder/src/index.js';
import type { Principal } from '../../../services/shared/identity/principal.js';
import { REPO_ROOT } from '../../helpers/service-configs.js';

const now = Math.floor(Date.now() / 1000);
const who = (id: string, roles: string[] = ['user'], tenant = 'acme'): Principal => ({ id, tenant_id: tenant, roles, groups: [], auth_method: 'password', iat: now, exp: now + 300 });
const caller = (p: Principal, headers: Record<string, string> = {}): Caller => ({ principal: p, turnId: null, headers });

const noModel: Embedder = {
  status: () => ({ state: 'unavailable', model: null, path: null, dims: 384, file: null, reason: 'no model', texts_embedded: 0 }),
  whenSettled: async () => noModel.status(),
  available: false,
  embed: async () => { throw new Error('no model'); },
  close: async () => {},
};

function setup(role: MemoryRole = { ask: async () => null }) {
  const store = openMemoryStore(':memory:', join(REPO_ROOT, 'migrations'));
  const dense = new DenseIndex({ vectors: store.vectors, embedder: noModel });
  const deps: MemoryDeps = {
    memories: store.memories, vectors: store.vectors, history: store.history, tx: store.txAsync, dense, role, events: null,
    settings: { prefetchTokenBudget: 512, duplicateSimilarity: 0.92 },
  };
  return { store, deps, writer: new MemoryWriter(deps), editor: new MemoryEditor(deps), consolidator: new Consolidator(deps) };
}

test('scopes: own user by default, tenant roles within the tenant, platform roles across; others are refused', () => {
  assert.deepEqual(resolveScope(who('alice'), undefined), { tenant_id: 'acme', user_id: 'alice', agent_id: null, session_id: null });
  assert.deepEqual(resolveScope(who('root', ['admin']), { user_id: 'bob', agent_id: 'a1' }), { tenant_id: 'acme', user_id: 'bob', agent_id: 'a1', session_id: null });
  assert.throws(() => resolveScope(who('alice'), { user_id: 'bob' }), { code: 'scope_forbidden' });
  assert.throws(() => resolveScope(who('root', ['admin']), { tenant_id: 'other' }), { code: 'scope_forbidden' });
  assert.equal(resolveScope(who('ops', ['platform_admin']), { tenant_id: 'other', user_id: 'x' }).tenant_id, 'other');
});

test('store: ADD, then NONE for the same content, then UPDATE of a near-duplicate; history and ownership', async () => {
  const { store, writer, editor } = setup();
  const alice = caller(who('alice'));
  const tea = 'Alice prefers oolong tea with honey and lemon every afternoon in her garden office';
  const a = await writer.store(alice, { content: tea, memory_type: 'user', pinned: true });
  assert.equal(a.created, true);
  assert.equal(a.result.results[0]!.event, 'ADD');
  assert.equal(a.result.memories[0]!.pinned, true);
  assert.equal(a.result.extraction, 'content');
  const again = await writer.store(alice, { content: `${tea.toUpperCase()}!`, memory_type: 'user' });
  assert.equal(again.created, false);
  assert.equal(again.result.results[0]!.event, 'NONE');
  const near = await writer.store(alice, { content: `${tea} quietly`, memory_type: 'user' });
  assert.equal(near.result.results[0]!.event, 'UPDATE');
  assert.equal(near.result.memories[0]!.id, a.result.memories[0]!.id, 'the near-duplicate is replaced in place');
  assert.equal(near.result.memories[0]!.pinned, true, 'pin kept when the request does not say');
  const detail = await editor.get(who('alice'), a.result.memories[0]!.id);
  assert.deepEqual(detail.history.map((h) => [h.event, h.user_initiated]), [['ADD', 1], ['UPDATE', 0]]);
  await assert.rejects(ownedMemory(store.memories, who('bob'), a.result.memories[0]!.id), { code: 'memory_not_found' });
  await assert.rejects(writer.store(alice, {}), (err: { code?: string; extra?: { field?: string } }) => err.code === 'invalid_request' && err.extra?.field === 'content');
  await assert.rejects(writer.store(alice, { content: 'x', expires_at: 'soon' }), { code: 'invalid_request' });
  store.close();
});

test('store from messages: the role extracts when it answers, deterministic cues otherwise', async () => {
  const byRole = setup({ ask: async () => ({ memories: [{ content: ' Alice is allergic to peanuts ', memory_type: 'bogus' }, { content: '' }] }) });
  const r = await byRole.writer.store(caller(who('alice'), { 'x-svc-principal': 'stamp' }), { messages: [{ role: 'user', content: 'peanuts make me ill' }] });
  assert.equal(r.result.extraction, 'memory_role');
  assert.deepEqual(r.result.memories.map((m) => [m.content, m.memory_type, m.source]), [['Alice is allergic to peanuts', 'user', 'conversation:memory_role']]);
  byRole.store.close();
  const det = setup();
  const d = await det.writer.store(caller(who('alice')), { messages: [{ role: 'user', content: 'I live in Porto. What time is it?' }], why_stored: 'asked' });
  assert.equal(d.result.extraction, 'deterministic');
  assert.deepEqual(d.result.memories.map((m) => [m.content, m.why_stored]), [['I live in Porto.', 'asked']]);
  det.store.close();
});

test('consolidation: deterministic merge into the newest; the role decides when it answers for the group', async () => {
  const det = setup();
  const alice = caller(who('alice'));
  await det.writer.store(alice, { content: 'Alice lives in Leeds, West Yorkshire, England', memory_type: 'user' });
  await det.store.memories.insert({
    id: '01JZZZZZZZZZZZZZZZZZZZZZZZ', tenant_id: 'acme', user_id: 'alice', scope_key: 'acme:alice', agent_id: null, session_id: null, memory_type: 'user',
    content: 'Alice lives in Leeds, West Yorkshire, England today', content_key: 'k', pinned: false, expires_at: null, source: 'api', why_stored: null,
  }, 'alice lives leeds west yorkshire england today', new Date(Date.now() + 1000).toISOString());
  const rep = await det.consolidator.forCaller(alice, undefined);
  assert.equal(rep.decided_by, 'deterministic');
  assert.equal(rep.merged, 1);
  assert.deepEqual(rep.decisions.map((x) => x.event), ['NONE', 'DELETE']);
  assert.equal(rep.decisions[1]!.merged_into, '01JZZZZZZZZZZZZZZZZZZZZZZZ', 'the newest stays');
  det.store.close();

  const asked: string[] = [];
  const role: MemoryRole = {
    ask: async (_h, _system, user) => {
      asked.push(user);
      const group = JSON.parse(user) as Array<{ id: string }>;
      return { decisions: [{ memory_id: group[0]!.id, event: 'UPDATE', content: 'Bob codes in Rust and Go', reason: 'merged' }, { memory_id: group[1]!.id, event: 'DELETE' }] };
    },
  };
  const bob = caller(who('bob'), { 'x-svc-principal': 'stamp' });
  const twoNearDuplicates = async (w: MemoryWriter) => {
    await w.store(bob, { content: 'Bob codes in Rust and in Go mostly', memory_type: 'project' });
    await w.store(bob, { content: 'Bob codes in Rust and in Go mostly these days', memory_type: 'project' });
  };
  const silent = setup(role);
  await twoNearDuplicates(silent.writer);
  const none = await silent.consolidator.forCaller(caller(who('bob')), undefined);
  assert.equal(none.decided_by, 'deterministic', 'no headers: the role is not asked');
  assert.equal(asked.length, 0);
  silent.store.close();
  const byRole = setup(role);
  await twoNearDuplicates(byRole.writer);
  const r = await byRole.consolidator.forCaller(bob, undefined);
  assert.equal(asked.length, 1);
  assert.equal(r.decided_by, 'memory_role');
  assert.deepEqual(r.decisions.map((x) => [x.event, x.reason]), [['UPDATE', 'merged'], ['DELETE', 'decided by the memory role']]);
  assert.deepEqual((await byRole.editor.list(who('bob'), {})).items.map((m) => m.content), ['Bob codes in Rust and Go']);
  byRole.store.close();
});

test('role answers: the JSON object inside the first choice, fences ignored; candidates need content', () => {
  const body = (content: unknown) => JSON.stringify({ choices: [{ message: { content } }] });
  assert.deepEqual(jsonObjectOf(body('```json\n{"memories": []}\n```')), { memories: [] });
  assert.deepEqual(jsonObjectOf(body('Sure: {"a": 1} done')), { a: 1 });
  assert.equal(jsonObjectOf(body('no json here')), null);
  assert.equal(jsonObjectOf(body(42)), null);
  assert.throws(() => jsonObjectOf('not json'));
  assert.equal(candidatesFromRole(null, 'user'), null);
  assert.equal(candidatesFromRole({ decisions: [] }, 'user'), null);
  assert.deepEqual(candidatesFromRole({ memories: [{ content: 'x'.repeat(5000), memory_type: 'project' }] }, 'user')!.map((c) => [c.content.length, c.memory_type, c.why_stored]), [[4000, 'project', 'extracted by the memory role']]);
});
