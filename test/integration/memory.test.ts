/**
 * The memory service on port 0 with a temp data dir: scope isolation between users, authorization
 * (own scope, admins within the tenant), the four types, search with scores, list/update/delete/
 * forget, prefetch within a budget, consolidation (deterministic, and decided by the `memory` role
 * through the scripted OpenAI-compatible server), extraction from messages, memory_op events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ulid } from 'ulid';
import { start } from '../../services/memory/src/index.js';
import { start as startAudit } from '../../services/audit/src/index.js';
import { auditConfig } from '../helpers/audit.js';
import { startScriptedLlm } from '../helpers/scripted-llm.js';
import { callJson as call, stampedHeaders as headersFor, testPrincipal } from '../helpers/principals.js';
import { memoryConfig, removeDir } from '../helpers/service-configs.js';

type T = import('node:test').TestContext;
const TENANT = 'acme';
const principal = (id: string, roles: string[] = ['user']) => testPrincipal(id, roles, TENANT);

async function boot(t: T, overrides = {}, urls = {}) {
  const cfg = memoryConfig({ tenantId: TENANT, urls }, overrides);
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  return { cfg, base: `http://127.0.0.1:${svc.port}` };
}
const alice = () => headersFor(principal('alice'));
const bob = () => headersFor(principal('bob'));
const admin = () => headersFor(principal('root', ['admin']));

test('memories stored in one user scope never appear for another; admins act within the tenant', async (t) => {
  const { base } = await boot(t);
  const a = await call(base, 'POST', '/v1/memory', alice(), { content: 'Alice prefers oolong tea in the afternoon', memory_type: 'user', scope: { tenant_id: TENANT, user_id: 'alice' } });
  assert.equal(a.status, 201, JSON.stringify(a.body));
  const rec = a.body.memories[0];
  assert.equal(rec.scope.user_id, 'alice');
  assert.equal(rec.memory_type, 'user');
  assert.equal(rec.pinned, false);
  assert.equal(a.body.results[0].event, 'ADD');
  await call(base, 'POST', '/v1/memory', bob(), { content: 'Bob drinks espresso every morning', memory_type: 'user' });

  const sb = await call(base, 'POST', '/v1/memory/search', bob(), { query: 'oolong tea afternoon', limit: 10 });
  assert.equal(sb.status, 200);
  assert.ok(!sb.body.memories.some((m: { content: string }) => /oolong/.test(m.content)), 'bob never sees alice');
  assert.equal((await call(base, 'POST', '/v1/memory/search', bob(), { query: 'tea', scope: { user_id: 'alice' } })).status, 403);
  assert.equal((await call(base, 'GET', '/v1/memory?user_id=alice', bob())).status, 403);
  assert.equal((await call(base, 'GET', `/v1/memory/${rec.id}`, bob())).status, 404);
  assert.equal((await call(base, 'PUT', `/v1/memory/${rec.id}`, bob(), { content: 'hijack' })).status, 404);
  assert.equal((await call(base, 'DELETE', `/v1/memory/${rec.id}`, bob())).status, 404);
  assert.equal((await call(base, 'POST', `/v1/memory/${rec.id}/forget`, bob())).status, 404);
  assert.equal((await call(base, 'POST', '/v1/memory', bob(), { content: 'x', scope: { user_id: 'alice' } })).status, 403);
  assert.equal((await call(base, 'POST', '/v1/memory/search', alice(), { query: 'x', scope: { tenant_id: 'other-tenant' } })).status, 403);
  const lb = await call(base, 'GET', '/v1/memory', bob());
  assert.deepEqual(lb.body.items.map((m: { content: string }) => m.content), ['Bob drinks espresso every morning']);

  const sa = await call(base, 'POST', '/v1/memory/search', alice(), { query: 'what tea does she like?' });
  assert.equal(sa.body.memories[0].id, rec.id);
  assert.ok(sa.body.memories[0].score > 0 && sa.body.memories[0].score <= 1);
  assert.ok(sa.body.memories[0].last_recalled_at);
  // admin within the tenant
  const la = await call(base, 'GET', `/v1/memory?tenant_id=${TENANT}&user_id=alice`, admin());
  assert.equal(la.status, 200);
  assert.equal(la.body.items.length, 1);
  assert.equal((await call(base, 'GET', `/v1/memory/${rec.id}`, admin())).status, 200);
});

test('types, pinned, expiry, update, delete and forget with history; duplicates are not stored twice', async (t) => {
  const { base } = await boot(t);
  const mk = async (content: string, memory_type: string, extra = {}) => (await call(base, 'POST', '/v1/memory', alice(), { content, memory_type, ...extra })).body;
  const f = await mk('Answer in short bullet points', 'feedback', { pinned: true, why_stored: 'user asked' });
  await mk('Working on the Atlas migration due in March', 'project');
  await mk('Design doc lives in the wiki under atlas-design', 'reference');
  await mk('Alice is a data engineer', 'user', { expires_at: new Date(Date.now() - 1000).toISOString() });
  assert.equal(f.memories[0].pinned, true);
  assert.equal(f.memories[0].why_stored, 'user asked');
  assert.equal(f.memories[0].source, 'api');
  const dup = await call(base, 'POST', '/v1/memory', alice(), { content: 'answer in short bullet points!', memory_type: 'feedback' });
  assert.equal(dup.status, 200);
  assert.equal(dup.body.results[0].event, 'NONE');
  const list = await call(base, 'GET', '/v1/memory', alice());
  assert.equal(list.body.items.length, 3, 'expired memories are not listed');
  assert.equal((await call(base, 'GET', '/v1/memory?memory_type=project', alice())).body.items.length, 1);
  const typed = await call(base, 'POST', '/v1/memory/search', alice(), { query: 'atlas', memory_type: 'reference' });
  assert.deepEqual(typed.body.memories.map((m: { memory_type: string }) => m.memory_type), ['reference']);
  assert.equal((await call(base, 'POST', '/v1/memory', alice(), { content: 'x', memory_type: 'bogus' })).status, 400);

  const id = f.memories[0].id;
  const up = await call(base, 'PUT', `/v1/memory/${id}`, alice(), { content: 'Answer in at most three bullet points', scope: { user_id: 'alice' } });
  assert.equal(up.status, 200);
  assert.equal(up.body.content, 'Answer in at most three bullet points');
  assert.equal(up.body.pinned, true);
  const forgot = await call(base, 'POST', `/v1/memory/${id}/forget`, alice(), { tenant_id: TENANT, user_id: 'alice' });
  assert.deepEqual(forgot.body, { id, deleted: true, forgotten: true, initiated_by: 'user' });
  assert.equal((await call(base, 'GET', `/v1/memory/${id}`, alice())).status, 404);
  const other = list.body.items.find((m: { memory_type: string }) => m.memory_type === 'project');
  const del = await call(base, 'DELETE', `/v1/memory/${other.id}?tenant_id=${TENANT}&user_id=alice`, alice());
  assert.deepEqual(del.body, { id: other.id, deleted: true });
  assert.equal((await call(base, 'GET', '/v1/memory', alice())).body.items.length, 1);
});

test('prefetch: pinned first, relevant next, within the token budget', async (t) => {
  const { base } = await boot(t);
  await call(base, 'POST', '/v1/memory', alice(), { content: 'Always reply in British English', memory_type: 'feedback', pinned: true });
  await call(base, 'POST', '/v1/memory', alice(), { content: 'Alice manages the Kestrel data pipeline', memory_type: 'project' });
  await call(base, 'POST', '/v1/memory', alice(), { content: 'Alice owns a border collie named Pip', memory_type: 'user' });
  await call(base, 'POST', '/v1/memory', alice(), { content: 'The Kestrel runbook is in Confluence at KES-42', memory_type: 'reference', scope: { agent_id: 'ops-agent' } });
  const p = await call(base, 'POST', '/v1/memory/prefetch', alice(), { messages: [{ role: 'user', content: 'The kestrel pipeline failed again, what now?' }], scope: { agent_id: 'ops-agent' }, token_budget: 64 });
  assert.equal(p.status, 200);
  assert.equal(p.body.memories[0].content, 'Always reply in British English');
  assert.ok(p.body.memories.some((m: { content: string }) => /Kestrel data pipeline/.test(m.content)));
  assert.ok(p.body.memories.some((m: { content: string }) => /runbook/.test(m.content)), 'agent-scoped memories of the turn agent are eligible');
  assert.ok(!p.body.memories.some((m: { content: string }) => /collie/.test(m.content)), 'irrelevant memories stay out');
  assert.ok(p.body.tokens_used <= 64);
  assert.match(p.body.context, /\[feedback\] Always reply/);
  const tiny = await call(base, 'POST', '/v1/memory/prefetch', alice(), { query: 'kestrel', token_budget: 16 });
  assert.ok(tiny.body.tokens_used <= 16);
  const otherAgent = await call(base, 'POST', '/v1/memory/prefetch', alice(), { query: 'kestrel runbook', scope: { agent_id: 'other' } });
  assert.ok(!otherAgent.body.memories.some((m: { content: string }) => /runbook/.test(m.content)));
});

test('extraction and consolidation: deterministic without the memory role, decided by it when mapped; memory_op events', async (t) => {
  const acfg = auditConfig({ tenantId: TENANT });
  const audit = await startAudit(acfg);
  t.after(async () => { await audit.close(); removeDir(acfg.dataDir); });
  const auditUrl = `http://127.0.0.1:${audit.port}`;
  // No router reachable: deterministic paths.
  const { base } = await boot(t, {}, { audit: auditUrl });
  const turn = ulid();
  const ex = await call(base, 'POST', '/v1/memory', headersFor(principal('alice'), turn), {
    messages: [
      { role: 'user', content: "Hi! I'm a radiologist in Leeds. Please answer without emojis. What's the weather?" },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'We are building a triage dashboard due by June.' },
    ],
  });
  assert.equal(ex.status, 201, JSON.stringify(ex.body));
  assert.equal(ex.body.extraction, 'deterministic');
  const types = ex.body.memories.map((m: { memory_type: string }) => m.memory_type).sort();
  assert.deepEqual(types, ['feedback', 'project', 'user']);
  const replay = await call(auditUrl, 'GET', `/v1/audit/turns/${turn}/replay?tenant_id=${TENANT}`, headersFor(principal('root', ['admin'])));
  const ev = (replay.body.events as Array<{ payload_type: string; payload?: { subtype: string }; payload_json?: string }>).find((e) => e.payload_type === 'memory_op');
  assert.ok(ev);
  assert.equal((ev.payload ?? JSON.parse(ev.payload_json!)).subtype, 'memory_write');

  await call(base, 'POST', '/v1/memory', alice(), { content: 'Alice lives in Leeds, West Yorkshire, England', memory_type: 'user' });
  await call(base, 'POST', '/v1/memory', alice(), { content: 'Alice lives in Leeds, West Yorkshire, England today', memory_type: 'user' });
  const c = await call(base, 'POST', '/v1/memory/consolidate', alice(), {});
  assert.equal(c.status, 200);
  assert.equal(c.body.decided_by, 'deterministic');
  assert.equal(c.body.merged, 1);
  assert.ok(c.body.decisions.some((d: { event: string; merged_into?: string }) => d.event === 'DELETE' && d.merged_into));

  // With the memory role mapped (the scripted OpenAI-compatible server answers as the router).
  const llm = await startScriptedLlm({
    script: (r) => {
      const sys = String((r.body.messages as Array<{ content: string }>)[0]!.content);
      if (sys.startsWith('You extract')) return { content: JSON.stringify({ memories: [{ content: 'Alice is allergic to peanuts', memory_type: 'user', why_stored: 'health fact' }] }) };
      const group = JSON.parse(String((r.body.messages as Array<{ content: string }>)[1]!.content)) as Array<{ id: string }>;
      return { content: JSON.stringify({ decisions: [{ memory_id: group[0]!.id, event: 'UPDATE', content: 'Alice codes in Rust and Go', reason: 'merged' }, ...group.slice(1).map((g) => ({ memory_id: g.id, event: 'DELETE', reason: 'redundant' }))] }) };
    },
  });
  t.after(() => llm.close());
  const m2 = await boot(t, {}, { 'inference-router': llm.url });
  const ex2 = await call(m2.base, 'POST', '/v1/memory', alice(), { messages: [{ role: 'user', content: 'fyi peanuts make me ill' }] });
  assert.equal(ex2.body.extraction, 'memory_role');
  assert.equal(ex2.body.memories[0].content, 'Alice is allergic to peanuts');
  assert.equal(llm.requests[0]!.body.model, 'memory');
  await call(m2.base, 'POST', '/v1/memory', alice(), { content: 'Alice codes in Rust and in Go mostly', memory_type: 'project' });
  await call(m2.base, 'POST', '/v1/memory', alice(), { content: 'Alice codes in Rust and in Go mostly these days', memory_type: 'project' });
  const c2 = await call(m2.base, 'POST', '/v1/memory/consolidate', alice(), {});
  assert.equal(c2.body.decided_by, 'memory_role');
  const left = (await call(m2.base, 'GET', '/v1/memory?memory_type=project', alice())).body.items;
  assert.deepEqual(left.map((m: { content: string }) => m.content), ['Alice codes in Rust and Go']);
  const ready = await (await fetch(`${m2.base}/readyz`)).json() as { dense_retrieval: string };
  assert.equal(ready.dense_retrieval, 'off');
});
