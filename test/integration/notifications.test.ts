/**
 * Notifications (issue 13 item 1; spec "Agent runtime surfaces": /v1/notifications*,
 * /v1/internal/notifications; "Limits": payload 8 KiB and 8 levels, NOTIFICATIONS_MAX_PER_USER):
 * the real runtime on port 0 with a temp data dir. A service posts twice with one idempotency key
 * and the user sees one notification; read marks and the unread count; payloads over the limits are
 * refused with their codes; callers that are not allow-listed services are refused before their body
 * is read; eviction removes read notifications before unread ones; the live stream; the approval
 * producer fires when a tool call waits for approval; the producers in the other services (knowledge:
 * finished uploads; observability: spend past a budget limit; sandbox: a removed session, when Docker
 * answers) notify their users through the runtime with their service stamps.
 */
import { test, before, after, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startHarness, type Caller, type Harness } from '../helpers/runtime-harness.js';
import type { ApprovalView, NotificationPage, NotificationView } from '../../services/agent-runtime/src/contracts.js';
import type { RecordedRequest, ScriptedReply } from '../helpers/scripted-llm.js';
import { SseParser, type SseRecord } from '../../services/gateway/src/agui/sse.js';
import { start as startRuntime } from '../../services/agent-runtime/src/index.js';
import { start as startKnowledge } from '../../services/knowledge/src/index.js';
import { commonConfig, removeDir, serviceUrls, TEST_CAP_KEY, TEST_PRINCIPAL_KEY } from '../helpers/service-configs.js';
import { obsConfig } from '../helpers/router-config.js';
import { dockerMissing, sandboxConfig } from '../helpers/sandbox.js';
import { start as startObservability } from '../../services/observability/src/index.js';
import { start as startSandbox } from '../../services/sandbox/src/index.js';
import { ulid } from 'ulid';
import { runtimeSettings } from '../helpers/runtime-config.js';
import { stampedHeaders, testPrincipal, callJson } from '../helpers/principals.js';
import { knowledgeConfig, TOKENIZER } from '../helpers/embedder/service-helpers.js';
import { writeTestModel } from '../helpers/embedder/make-test-model.js';
import { multipart } from '../helpers/embedder/documents.js';

const KNOWLEDGE: Caller = { id: 'service:knowledge', roles: ['service-account'] };
const ADMIN: Caller = { id: 'admin-1', roles: ['admin', 'user'] };

/** A model that calls the calculator once, then answers. */
function calculatorThenAnswer(r: RecordedRequest): ScriptedReply {
  if (r.body.model === 'title') return { content: 'A title' };
  const msgs = r.body.messages as Array<{ role: string }>;
  if (msgs[msgs.length - 1]!.role === 'tool') return { content: 'Done.' };
  return { content: 'Let me check. ', toolCalls: [{ id: 'call_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }] };
}

/** A payload nested `depth` levels (`{}` is 1). */
function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}

let h: Harness;
before(async () => {
  h = await startHarness({ approvalTimeoutSeconds: 30, maxToolSteps: 3 }, { script: calculatorThenAnswer });
});
after(async () => { await h.close(); });

function post(body: unknown, caller: Caller = KNOWLEDGE) {
  return h.call('POST', '/v1/internal/notifications', body, caller);
}
const list = async (caller?: Caller, q = ''): Promise<NotificationPage> => (await h.call('GET', `/v1/notifications${q}`, undefined, caller)).body as NotificationPage;
const unread = async (caller?: Caller): Promise<number> => ((await h.call('GET', '/v1/notifications/unread-count', undefined, caller)).body as { count: number }).count;

test('a service posts twice with one idempotency key: 201 then 200 with the original; the user sees one; read and unread count follow', async () => {
  const body = { tenant_id: 'acme', user_id: 'user-1', kind: 'document_indexed', title: 'Report indexed', body: '3 chunks', payload: { document_id: 'd1' }, idempotency_key: 'document:d1:indexed' };
  const first = await post(body);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const n = first.body as NotificationView;
  assert.deepEqual(Object.keys(n).sort(), ['body', 'created_at', 'id', 'kind', 'payload', 'read_at', 'title']);
  assert.equal(n.read_at, null);
  assert.deepEqual(n.payload, { document_id: 'd1' });
  const again = await post({ ...body, title: 'A different title' });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, n, 'the original, unchanged');

  const mine = await list();
  assert.equal(mine.items.filter((x) => x.id === n.id).length, 1);
  assert.equal(mine.items.filter((x) => x.kind === 'document_indexed').length, 1, 'seen once');
  assert.equal(await unread(), 1);
  assert.equal((await list({ id: 'user-2' })).items.length, 0, 'own only');
  assert.equal(await unread({ id: 'user-2' }), 0);

  const other = await h.call('POST', `/v1/notifications/${n.id}/read`, undefined, { id: 'user-2' });
  assert.equal(other.status, 404);
  assert.equal((other.body as { code: string }).code, 'notification_not_found');
  const read = await h.call('POST', `/v1/notifications/${n.id}/read`);
  assert.equal(read.status, 200);
  assert.ok((read.body as NotificationView).read_at);
  assert.equal(await unread(), 0);
  const twice = await h.call('POST', `/v1/notifications/${n.id}/read`);
  assert.equal((twice.body as NotificationView).read_at, (read.body as NotificationView).read_at, 'reading again keeps the first time');
  assert.equal(await unread(), 0);
  // A repeated key after the read still answers the original (now read) and adds nothing.
  const late = await post(body);
  assert.equal(late.status, 200);
  assert.equal(await unread(), 0);
});

test('list: newest first, limit and cursor; read-all; a malformed cursor is 400', async () => {
  const who: Caller = { id: 'user-3' };
  for (let i = 0; i < 5; i++) assert.equal((await post({ tenant_id: 'acme', user_id: 'user-3', kind: 'test', title: `n${i}` })).status, 201);
  const p1 = await list(who, '?limit=2');
  assert.deepEqual(p1.items.map((x) => x.title), ['n4', 'n3']);
  assert.ok(p1.next_cursor);
  const p2 = await list(who, `?limit=2&cursor=${p1.next_cursor}`);
  assert.deepEqual(p2.items.map((x) => x.title), ['n2', 'n1']);
  const p3 = await list(who, `?limit=2&cursor=${p2.next_cursor}`);
  assert.deepEqual(p3.items.map((x) => x.title), ['n0']);
  assert.equal(p3.next_cursor, undefined);
  assert.equal((await h.call('GET', '/v1/notifications?limit=101', undefined, who)).status, 400);
  const bad = await h.call('GET', '/v1/notifications?cursor=bm90LWFuLWlk', undefined, who);
  assert.equal(bad.status, 400);
  assert.equal((bad.body as { code: string }).code, 'invalid_request');
  assert.equal(await unread(who), 5);
  const all = await h.call('POST', '/v1/notifications/read-all', undefined, who);
  assert.deepEqual(all.body, { marked: 5 });
  assert.equal(await unread(who), 0);
  assert.ok((await list(who)).items.every((x) => x.read_at !== null));
});

test('payload limits: over 8 KiB is 413 payload_too_large, over 8 levels is 400 payload_too_deep (also far deeper); 8 levels pass', async () => {
  const base = { tenant_id: 'acme', user_id: 'user-4', kind: 'test', title: 'limits' };
  const big = await post({ ...base, payload: { blob: 'x'.repeat(8 * 1024) } });
  assert.equal(big.status, 413);
  assert.equal((big.body as { code: string }).code, 'payload_too_large');
  const deep = await post({ ...base, payload: nested(9) });
  assert.equal(deep.status, 400);
  assert.equal((deep.body as { code: string }).code, 'payload_too_deep');
  const deeper = await post(`{"tenant_id":"acme","user_id":"user-4","kind":"test","title":"x","payload":${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}`);
  assert.equal(deeper.status, 400);
  assert.equal((deeper.body as { code: string }).code, 'payload_too_deep');
  const arrays = await post({ ...base, payload: { a: [[[[[[[[1]]]]]]]] } });
  assert.equal((arrays.body as { code: string }).code, 'payload_too_deep', 'arrays count as levels');
  const eight = await post({ ...base, payload: nested(8) });
  assert.equal(eight.status, 201, JSON.stringify(eight.body));
  const fits = await post({ ...base, payload: { blob: 'x'.repeat(8 * 1024 - 20) } });
  assert.equal(fits.status, 201);
  const notObject = await post({ ...base, payload: [1, 2] });
  assert.equal(notObject.status, 400);
  assert.equal(await unread({ id: 'user-4' }), 2, 'refused ones stored nothing');
});

test('only allow-listed services: another service 403 producer_not_allowed, a user 403 service_account_required (also claiming the service role)', async () => {
  const body = { tenant_id: 'acme', user_id: 'user-5', kind: 'test', title: 'x' };
  const other = await post(body, { id: 'service:test', roles: ['service-account'] });
  assert.equal(other.status, 403);
  assert.equal((other.body as { code: string }).code, 'producer_not_allowed');
  const user = await post(body, { id: 'user-5' });
  assert.equal(user.status, 403);
  assert.equal((user.body as { code: string }).code, 'service_account_required');
  const admin = await post(body, ADMIN);
  assert.equal((admin.body as { code: string }).code, 'service_account_required');
  const claim = await post(body, { id: 'user-5', roles: ['service-account'] });
  assert.equal(claim.status, 403);
  assert.equal((claim.body as { code: string }).code, 'service_account_required');
  // Refused before the body is read: a malformed body still answers 403.
  const early = await post('{not json', { id: 'service:test', roles: ['service-account'] });
  assert.equal((early.body as { code: string }).code, 'producer_not_allowed');
  assert.equal(await unread({ id: 'user-5' }), 0);
});

/** Open the live stream of `caller`; records arrive in `records`. */
async function openStream(caller: Caller): Promise<{ records: SseRecord[]; close(): void; status: number }> {
  const ac = new AbortController();
  const r = await fetch(`${h.url}/v1/notifications/stream`, { headers: h.headers(caller), signal: ac.signal });
  const records: SseRecord[] = [];
  const parser = new SseParser();
  void (async () => {
    const dec = new TextDecoder();
    try {
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) for (const rec of parser.push(dec.decode(chunk, { stream: true }))) records.push(rec);
    } catch { /* aborted */ }
  })();
  return { records, status: r.status, close: () => ac.abort() };
}

test('live stream: unread_count first, then notification and unread_count on a post, unread_count on read-all', async () => {
  const who: Caller = { id: 'user-6' };
  const s = await openStream(who);
  try {
    assert.equal(s.status, 200);
    await eventually(async () => s.records.length >= 1);
    assert.deepEqual(s.records[0], { event: 'unread_count', data: { count: 0 } });
    const created = (await post({ tenant_id: 'acme', user_id: 'user-6', kind: 'test', title: 'live', idempotency_key: 'live-1' })).body as NotificationView;
    await post({ tenant_id: 'acme', user_id: 'user-6', kind: 'test', title: 'live', idempotency_key: 'live-1' });
    await post({ tenant_id: 'acme', user_id: 'user-7', kind: 'test', title: 'someone else' });
    await eventually(async () => s.records.length >= 3);
    assert.equal(s.records[1]!.event, 'notification');
    assert.equal((s.records[1]!.data as NotificationView).id, created.id);
    assert.deepEqual(s.records[2], { event: 'unread_count', data: { count: 1 } });
    await h.call('POST', '/v1/notifications/read-all', undefined, who);
    await eventually(async () => s.records.length >= 4);
    assert.deepEqual(s.records[3], { event: 'unread_count', data: { count: 0 } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(s.records.length, 4, 'the repeat and the other user\'s notification sent nothing');
  } finally {
    s.close();
  }
});

test('approval waiting: a tool call that needs approval notifies its user once, with a link to the approval', async () => {
  assert.equal((await h.call('PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' }, ADMIN)).status, 200);
  try {
    let approval: ApprovalView | null = null;
    const streaming = h.stream({ messages: [{ role: 'user', content: 'What is 6 times 7?' }] }, {}, {
      onRecord: (rec) => { if (rec.event === 'approval_required') approval = (rec.data as { approvals: ApprovalView[] }).approvals[0]!; },
    });
    await eventually(async () => approval);
    const a = approval as unknown as ApprovalView;
    const n = await eventually(async () => (await list()).items.find((x) => x.kind === 'approval_waiting'));
    assert.match(n.title, /calculator/);
    assert.deepEqual(n.payload, { approval_id: a.id, session_id: a.session_id, tool: 'calculator', link: '/approvals' });
    assert.equal((await list({ id: 'user-2' })).items.length, 0);
    assert.equal((await h.call('POST', `/v1/user/approvals/${a.id}/approve`)).status, 200);
    await streaming;
    const settled = (await list()).items.filter((x) => x.kind === 'approval_waiting');
    assert.equal(settled.length, 1);
    assert.ok(settled[0]!.read_at, 'the decided approval\'s notice is read: nothing waits any more');
  } finally {
    await h.call('DELETE', '/v1/admin/policies/tools/calculator', undefined, ADMIN);
  }
});

test('NOTIFICATIONS_MAX_PER_USER: the oldest read notifications are evicted first, then the oldest unread', async () => {
  const small = await startHarness({ notificationsMaxPerUser: 5 });
  try {
    const add = async (title: string): Promise<string> => {
      const r = await small.call('POST', '/v1/internal/notifications', { tenant_id: 'acme', user_id: 'user-1', kind: 'test', title }, KNOWLEDGE);
      assert.equal(r.status, 201);
      return (r.body as NotificationView).id;
    };
    const titles = async (): Promise<string[]> => ((await small.call('GET', '/v1/notifications')).body as NotificationPage).items.map((x) => x.title).reverse();
    const ids: string[] = [];
    for (const t of ['n1', 'n2', 'n3', 'n4', 'n5']) ids.push(await add(t));
    await small.call('POST', `/v1/notifications/${ids[1]}/read`);
    await small.call('POST', `/v1/notifications/${ids[3]}/read`);
    await add('n6');
    assert.deepEqual(await titles(), ['n1', 'n3', 'n4', 'n5', 'n6'], 'oldest read (n2) went first, not the older unread n1');
    await add('n7');
    assert.deepEqual(await titles(), ['n1', 'n3', 'n5', 'n6', 'n7'], 'then the next read (n4)');
    await add('n8');
    assert.deepEqual(await titles(), ['n3', 'n5', 'n6', 'n7', 'n8'], 'no read one left: the oldest unread (n1)');
    assert.equal(((await small.call('GET', '/v1/notifications/unread-count')).body as { count: number }).count, 5);
  } finally {
    await small.close();
  }
});

/** A runtime on the test keys (service-configs.ts), as the producer services' configs use them; stopped after the test. */
async function plainRuntime(t: TestContext): Promise<{ url: string; inbox(user: string): Promise<NotificationPage> }> {
  const dir = mkdtempSync(join(tmpdir(), 'notif-rt-'));
  const rt = await startRuntime({ ...commonConfig('agent-runtime', dir, 'acme'), ...runtimeSettings() }, { pluginProbeMs: 0 });
  t.after(async () => { await rt.close(); removeDir(dir); });
  const url = `http://127.0.0.1:${rt.port}`;
  return { url, inbox: async (user) => (await callJson(url, 'GET', '/v1/notifications', stampedHeaders(testPrincipal(user, ['user'], 'acme')))).body as NotificationPage };
}

test('knowledge: a failed and an indexed upload each notify their creator once (through the runtime, service stamp)', async (t) => {
  const rt = await plainRuntime(t);
  const kcfg = knowledgeConfig({}, { 'agent-runtime': rt.url });
  const kn = await startKnowledge(kcfg, { events: false });
  t.after(async () => { await kn.close(); removeDir(kcfg.dataDir); });
  const kUrl = `http://127.0.0.1:${kn.port}`;
  const alice = stampedHeaders(testPrincipal('alice', ['user'], 'acme'));
  const upload = async (fields: Record<string, string>, file?: Parameters<typeof multipart>[1]) => {
    const m = multipart(fields, file);
    const r = await fetch(`${kUrl}${file ? '/v1/knowledge/ingest' : '/v1/knowledge/ingest/text'}`, { method: 'POST', headers: { ...alice, 'content-type': m.contentType }, body: m.body });
    return { status: r.status, body: await r.json() as { document_id: string } };
  };
  const bad = await upload({}, { filename: 'broken.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4\nthis is not a pdf') });
  assert.equal(bad.status, 422);
  const good = await upload({ title: 'Canteen menu', content: 'Soup on Mondays.' });
  assert.equal(good.status, 201);
  const items = await eventually(async () => { const x = await rt.inbox('alice'); return x.items.length >= 2 ? x.items : null; });
  const failed = items.find((x) => x.kind === 'document_failed')!;
  assert.ok(failed, JSON.stringify(items));
  assert.equal((failed.payload as { document_id: string }).document_id, bad.body.document_id);
  assert.equal((failed.payload as { link: string }).link, `/knowledge/${bad.body.document_id}`);
  assert.match(failed.body ?? '', /PDF/);
  const indexed = items.find((x) => x.kind === 'document_indexed')!;
  assert.equal((indexed.payload as { document_id: string }).document_id, good.body.document_id);
  assert.match(indexed.title, /Canteen menu/);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await rt.inbox('alice')).items.length, 2, 'once each');
  assert.equal((await rt.inbox('bob')).items.length, 0);
});

test('observability: spend past the soft, then the hard limit notifies the admin who set the budget, once per state', async (t) => {
  const rt = await plainRuntime(t);
  const keys = { principalKeys: [TEST_PRINCIPAL_KEY], capTokenKeys: [TEST_CAP_KEY] };
  const ocfg = obsConfig(keys, { serviceUrls: serviceUrls({ 'agent-runtime': rt.url }) });
  const obs = await startObservability(ocfg);
  t.after(async () => { await obs.close(); removeDir(ocfg.dataDir); });
  const oUrl = `http://127.0.0.1:${obs.port}`;
  const admin = stampedHeaders(testPrincipal('admin-1', ['admin', 'user'], 'acme'));
  const router = stampedHeaders(testPrincipal('service:inference-router', ['service-account'], 'acme'));
  const put = await callJson(oUrl, 'PUT', '/v1/admin/observability/budgets/acme', admin, { period: 'month', soft_limit_usd: 0.05, hard_limit_usd: 1 });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const spend = async (cost: number) => {
    const r = await callJson(oUrl, 'POST', '/v1/generations', router, {
      event_id: ulid(), created_at: new Date().toISOString(), user_id: 'user-1', turn_id: null, trace_id: null, span_id: null, role: null,
      requested_model: 'm', model: 'm', provider_id: 'p', provider_name: 'prov', backend: 'chat_completions', provider_version: null,
      deterministic: false, weight_hash: null, stream: false, status: 'ok', error_code: null, http_status: 200, latency_ms: 1, ttft_ms: null,
      prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, attempts: 1, cost_usd: cost,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  };
  await spend(0.01);
  await new Promise((r) => setTimeout(r, 150));
  assert.equal((await rt.inbox('admin-1')).items.length, 0, 'under the soft limit');
  await spend(0.05);
  await spend(0.01);
  const soft = await eventually(async () => (await rt.inbox('admin-1')).items.find((x) => x.kind === 'budget_threshold'));
  assert.equal((soft.payload as { state: string }).state, 'soft_exceeded');
  await spend(2);
  const both = await eventually(async () => { const x = (await rt.inbox('admin-1')).items; return x.length >= 2 ? x : null; });
  assert.deepEqual(both.map((x) => (x.payload as { state: string }).state), ['hard_exceeded', 'soft_exceeded']);
  await spend(1);
  await new Promise((r) => setTimeout(r, 150));
  assert.equal((await rt.inbox('admin-1')).items.length, 2, 'once per state');
  assert.equal((await rt.inbox('user-1')).items.length, 0);
});

const noDocker = await dockerMissing();
test('sandbox: an admin destroying a user\'s session notifies its creator', { skip: noDocker ?? false }, async (t) => {
  const rt = await plainRuntime(t);
  const scfg = sandboxConfig({ tenantId: 'acme' }, { serviceUrls: serviceUrls({ 'agent-runtime': rt.url }) });
  const sb = await startSandbox(scfg);
  t.after(async () => { await sb.close(); removeDir(scfg.dataDir); });
  const sUrl = `http://127.0.0.1:${sb.port}`;
  const alice = stampedHeaders(testPrincipal('u-alice', ['user'], 'acme'));
  const run = await callJson(sUrl, 'POST', '/execute', alice, { code: 'print(1)', language: 'python', tenant_id: 'acme', session_id: 'notif-s1' });
  assert.equal(run.status, 200, JSON.stringify(run.body));
  const del = await callJson(sUrl, 'DELETE', '/sessions/acme/notif-s1', stampedHeaders(testPrincipal('u-admin', ['admin'], 'acme')));
  assert.ok(del.status < 300, JSON.stringify(del.body));
  const n = await eventually(async () => (await rt.inbox('u-alice')).items.find((x) => x.kind === 'sandbox_session_removed'), 10_000);
  assert.deepEqual(n.payload, { session_id: 'notif-s1', reason: 'destroyed', link: '/chat/notif-s1' });
  assert.equal((await rt.inbox('u-admin')).items.length, 0);
});

test('knowledge with dense vectors: indexed once its vectors are in; batch records, a rename\'s re-embedding send nothing', async (t) => {
  const rt = await plainRuntime(t);
  const models = writeTestModel({ tokenizerDir: TOKENIZER });
  const kcfg = knowledgeConfig({ modelDirs: [models] }, { 'agent-runtime': rt.url });
  const kn = await startKnowledge(kcfg, { events: false });
  t.after(async () => { await kn.close(); removeDir(kcfg.dataDir); removeDir(models); });
  const kUrl = `http://127.0.0.1:${kn.port}`;
  const alice = stampedHeaders(testPrincipal('alice', ['user'], 'acme'));
  await eventually(async () => ((await callJson(kUrl, 'GET', '/readyz', {})).body as { dense_retrieval?: string }).dense_retrieval === 'on', 20_000);
  const doc = await callJson(kUrl, 'POST', '/v1/knowledge/ingest/text', alice, { title: 'Bees', content: 'Honeybees communicate flower locations with a waggle dance.' });
  assert.equal(doc.status, 201);
  const batch = await callJson(kUrl, 'POST', '/v1/knowledge/ingest/batch', alice, { records: Array.from({ length: 5 }, (_, i) => ({ title: `Note ${i}`, content: `Filler note ${i}.` })) });
  assert.equal(batch.status, 201);
  const n = await eventually(async () => (await rt.inbox('alice')).items.find((x) => x.kind === 'document_indexed'));
  assert.equal((n.payload as { document_id: string }).document_id, doc.body.document_id);
  const renamed = await callJson(kUrl, 'PATCH', `/v1/knowledge/documents/${doc.body.document_id}`, alice, { title: 'Honeybees' });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  await eventually(async () => (await callJson(kUrl, 'GET', `/v1/knowledge/documents/${doc.body.document_id}`, alice)).body.status === 'indexed');
  await eventually(async () => (await callJson(kUrl, 'GET', `/v1/knowledge/jobs/${batch.body.job_id}`, alice)).body.status === 'done', 20_000);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual((await rt.inbox('alice')).items.map((x) => x.kind), ['document_indexed'], 'one notification in all');
});
