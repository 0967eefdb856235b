/**
 * The admin surfaces from outside, through the gateway of a whole stack (issue 13 item 8 and its
 * "Done when": "the admin's mission control shows a waiting approval and a failed document; a normal
 * user gets 403 on every admin surface"): mission control, roles and permission profiles (a profile
 * restricting tools changes `/v1/tools` and the tools the model is offered), the onboarding
 * checklist, policies in one place (tools + guardrail), AgentOps after turns.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack, callJson, type JsonAnswer, openChatStream } from '../helpers/stack.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { multipart } from '../helpers/embedder/documents.js';
import type { AgentOps, ApprovalView, MissionControl, OnboardingChecklist, PermissionProfile, PoliciesSummary } from '../../services/agent-runtime/src/contracts.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let user: string;

/** Call the stack's gateway as `token`. */
const api = (token: string, method: string, path: string, body?: unknown): Promise<JsonAnswer> => callJson(stack.url, token, method, path, body);

/** A model that calls the calculator when asked to calculate, then answers with what the tool said. */
function script(r: RecordedRequest): ScriptedReply {
  const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = msgs[msgs.length - 1]!;
  if (last.role === 'tool') return { content: `The tool said: ${String(last.content)}` };
  if (String(last.content).includes('calculate')) return { content: 'Checking. ', toolCalls: [{ id: 'call_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }] };
  return { content: 'Hello there.' };
}

/** Start a chat stream as `token` on the stack (test/helpers/stack.ts `openChatStream`). */
const openStream = (token: string, content: string, until: string): ReturnType<typeof openChatStream> => openChatStream(stack.url, token, content, until);

before(async () => {
  llm = await startScriptedLlm({ script });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const created = await api(admin, 'POST', '/v1/admin/users', { email: 'u1@example.test', display_name: 'U1', password: 'u1-password-long', roles: ['user'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  user = await login(stack.url, 'u1@example.test', 'u1-password-long');
});
after(async () => { await stack?.stop(); await llm?.close(); });

/** Every admin route of item 8, with a body where it takes one. */
const ADMIN_ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/v1/admin/mission-control'],
  ['GET', '/v1/admin/onboarding/checklist'],
  ['GET', '/v1/admin/policies'],
  ['GET', '/v1/admin/policies/guardrail'],
  ['PUT', '/v1/admin/policies/guardrail', { policy: { pii: { threshold: 0.1 } } }],
  ['DELETE', '/v1/admin/policies/guardrail'],
  ['GET', '/v1/admin/roles'],
  ['GET', '/v1/admin/roles/effective?roles=user'],
  ['GET', '/v1/admin/roles/profiles'],
  ['POST', '/v1/admin/roles/profiles', { name: 'sneaky', roles: ['user'], tools: ['*'] }],
  ['GET', '/v1/admin/roles/profiles/01ABC'],
  ['PUT', '/v1/admin/roles/profiles/01ABC', { name: 'sneaky' }],
  ['DELETE', '/v1/admin/roles/profiles/01ABC'],
  ['GET', '/v1/admin/agentops/agents'],
  ['GET', '/v1/admin/agentops/agents?days=3'],
];

test('a normal user gets 403 admin_required on every admin surface', async () => {
  for (const [method, path, body] of ADMIN_ROUTES) {
    const r = await api(user, method, path, body);
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.code, 'admin_required', `${method} ${path}`);
  }
  assert.equal((await api(user, 'GET', '/v1/admin/roles/profiles')).status, 403);
  assert.equal((await api(admin, 'GET', '/v1/admin/roles/profiles')).body.items.length, 0, 'the refused POST stored nothing');
});

test('mission control shows a waiting approval, the parked turn and a failed document', async () => {
  const m = multipart({}, { filename: 'broken.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4\nthis is not a pdf') });
  const up = await fetch(`${stack.url}/v1/knowledge/ingest`, { method: 'POST', headers: { authorization: `Bearer ${user}`, 'content-type': m.contentType }, body: m.body });
  const bad = await up.json() as { code: string; document_id: string };
  assert.equal(up.status, 422);
  assert.equal(bad.code, 'ingestion_failed');

  assert.equal((await api(admin, 'PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' })).status, 200);
  try {
    const s = openStream(user, 'please calculate 6 * 7', 'approval_required');
    const rec = await s.first;
    const approval = (rec.data as { approvals: ApprovalView[] }).approvals[0]!;

    const mc = await api(admin, 'GET', '/v1/admin/mission-control');
    assert.equal(mc.status, 200, JSON.stringify(mc.body));
    const v = mc.body as MissionControl;
    assert.ok(v.approvals.pending >= 1);
    const waiting = v.approvals.items.find((a) => a.id === approval.id);
    assert.equal(waiting?.tool, 'calculator');
    assert.equal(waiting?.status, 'pending');
    const parked = v.active_turns.items.find((t) => t.turn_id === approval.turn_id);
    assert.ok(parked, 'the parked turn is active');
    assert.equal(parked.waiting_approval, true);
    assert.equal(v.index_jobs.state, 'ok', v.index_jobs.error ?? '');
    const failed = v.index_jobs.failed_documents.find((d) => d.document_id === bad.document_id);
    assert.ok(failed, 'the failed document is listed');
    assert.equal(failed.status, 'failed');
    assert.match(failed.last_error ?? '', /PDF/i);
    assert.ok(v.index_jobs.failed >= 1);
    assert.equal(v.services.total, 11);
    assert.deepEqual(v.services.items.map((x) => x.name).sort(), ['agent-runtime', 'audit', 'auth', 'dirauth', 'gateway', 'guardrail', 'inference-router', 'knowledge', 'memory', 'observability', 'sandbox']);
    for (const name of ['gateway', 'agent-runtime', 'knowledge', 'audit', 'guardrail']) assert.equal(v.services.items.find((x) => x.name === name)?.state, 'ready', name);
    assert.equal(v.spend.state, 'ok', v.spend.error ?? '');
    assert.equal(typeof v.spend.spend_usd, 'number');
    assert.ok(['ok', 'unavailable'].includes(v.sandbox.state));
    assert.equal(v.errors.window_seconds, 3600);
    assert.match(v.errors.source, /turn records/);

    assert.equal((await api(user, 'POST', `/v1/user/approvals/${approval.id}/reject`, { reason: 'not now' })).status, 200);
    const records = await s.done;
    assert.equal(records.at(-1)?.event, 'done');
    const after = (await api(admin, 'GET', '/v1/admin/mission-control')).body as MissionControl;
    assert.equal(after.approvals.items.some((a) => a.id === approval.id), false, 'decided approvals leave the list');
    assert.equal(after.active_turns.items.some((t) => t.turn_id === approval.turn_id), false, 'the ended turn is no longer active');
  } finally {
    await api(admin, 'DELETE', '/v1/admin/policies/tools/calculator');
  }
});

test('permission profiles: CRUD, and a profile restricting tools changes /v1/tools and the tools offered in chat', async () => {
  const toolNames = async (token: string): Promise<string[]> => ((await api(token, 'GET', '/v1/tools')).body.items as Array<{ name: string }>).map((t) => t.name).sort();
  const before = await toolNames(user);
  assert.ok(before.includes('calculator') && before.includes('get_current_time'), before.join(','));

  const timeOnly = await api(admin, 'POST', '/v1/admin/roles/profiles', { name: 'Users: clock only', roles: ['user'], tools: ['get_current_time'], knowledge: { audiences: ['staff'] } });
  assert.equal(timeOnly.status, 201, JSON.stringify(timeOnly.body));
  const p = timeOnly.body as PermissionProfile;
  assert.deepEqual({ roles: p.roles, groups: p.groups, tools: p.tools, agents: p.agents, knowledge: p.knowledge }, { roles: ['user'], groups: [], tools: ['get_current_time'], agents: [], knowledge: { audiences: ['staff'] } });
  assert.equal((await api(admin, 'POST', '/v1/admin/roles/profiles', { name: 'Users: clock only' })).body.code, 'permission_profile_name_taken');
  assert.equal((await api(admin, 'POST', '/v1/admin/roles/profiles', { name: 'bad', tools: ['has space'] })).status, 400);

  assert.deepEqual(await toolNames(user), ['get_current_time'], 'only the union of the applying profiles is offered');
  assert.deepEqual(await toolNames(admin), ['get_current_time'], 'the admin holds the user role too');
  const adminsAll = await api(admin, 'POST', '/v1/admin/roles/profiles', { name: 'Admins: everything', roles: ['admin'], tools: ['*'] });
  assert.equal(adminsAll.status, 201);
  const adminTools = await toolNames(admin);
  assert.ok(before.every((t) => adminTools.includes(t)), `union with * = every tool: ${adminTools.join(',')}`);
  assert.deepEqual(await toolNames(user), ['get_current_time']);

  const eff = await api(admin, 'GET', '/v1/admin/roles/effective?roles=user');
  assert.deepEqual(eff.body.tools, ['get_current_time']);
  assert.deepEqual(eff.body.knowledge.audiences, ['staff']);
  assert.deepEqual(eff.body.profiles.map((x: { name: string }) => x.name), ['Users: clock only']);

  // The model is offered only the allowed tools; a call to another one is denied.
  const n = llm.requests.length;
  const s = openStream(user, 'please calculate 6 * 7', 'done');
  const records = await s.done;
  const offered = (llm.requests.slice(n).find((q) => Array.isArray(q.body.tools))?.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
  assert.deepEqual(offered, ['get_current_time']);
  const result = records.find((r) => r.event === 'tool_result')?.data as { result: string } | undefined;
  assert.match(result?.result ?? '', /denied by policy/);

  const roles = await api(admin, 'GET', '/v1/admin/roles');
  assert.deepEqual(roles.body.items.map((r: { role: string }) => r.role), ['user', 'admin', 'tenant_admin', 'platform_admin']);
  assert.deepEqual(roles.body.profiles.map((x: PermissionProfile) => x.name), ['Admins: everything', 'Users: clock only']);
  assert.equal(roles.body.group_role_map, null);

  const put = await api(admin, 'PUT', `/v1/admin/roles/profiles/${p.id}`, { name: 'Users: clock and maths', roles: ['user'], tools: ['get_current_time', 'calc*'] });
  assert.equal(put.status, 200);
  assert.equal(put.body.created_at, p.created_at);
  assert.deepEqual(await toolNames(user), ['calculator', 'get_current_time'], 'prefix globs');
  assert.equal((await api(admin, 'GET', `/v1/admin/roles/profiles/${p.id}`)).body.name, 'Users: clock and maths');
  assert.equal((await api(admin, 'GET', '/v1/admin/roles/profiles/01NOSUCHPROFILE')).body.code, 'permission_profile_not_found');
  for (const id of [p.id, adminsAll.body.id as string]) assert.equal((await api(admin, 'DELETE', `/v1/admin/roles/profiles/${id}`)).status, 204);
  assert.equal((await api(admin, 'DELETE', `/v1/admin/roles/profiles/${p.id}`)).status, 404);
  const afterAll = await toolNames(user);
  assert.ok(before.every((t) => afterAll.includes(t)), `no profiles: every tool, as before: ${afterAll.join(',')}`);
});

test('onboarding checklist: every item with a live state, a detail and a fix link', async () => {
  const r = await api(admin, 'GET', '/v1/admin/onboarding/checklist');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const c = r.body as OnboardingChecklist;
  assert.deepEqual(c.items.map((i) => i.id), ['admin_created', 'provider_default_model', 'embedding_model', 'sandbox_image', 'phone_paired', 'backup_set']);
  const by = Object.fromEntries(c.items.map((i) => [i.id, i]));
  assert.equal(by.admin_created!.state, 'done');
  assert.match(by.admin_created!.detail, /admin@example\.com/);
  assert.equal(by.provider_default_model!.state, 'done');
  assert.match(by.provider_default_model!.detail, /scripted-model/);
  assert.deepEqual(by.provider_default_model!.fix, { label: 'Providers & roles', href: '/admin/providers' });
  for (const id of ['embedding_model', 'sandbox_image']) {
    assert.ok(['done', 'todo', 'warning'].includes(by[id]!.state), id);
    assert.ok(by[id]!.detail.length > 10, id);
    assert.ok(by[id]!.fix?.href.startsWith('/admin/'), id);
  }
  // The phone (issue 14): the admin has paired none yet, so todo with the page that pairs one.
  assert.equal(by.phone_paired!.state, 'todo');
  assert.match(by.phone_paired!.detail, /pair a phone/i);
  assert.deepEqual(by.phone_paired!.fix, { label: 'Pair a phone', href: '/account' });
  assert.equal(by.backup_set!.state, 'todo');
  assert.match(by.backup_set!.detail, /not available yet/i);
  assert.equal(by.backup_set!.fix, null);
  assert.equal(c.total, 6);
  assert.equal(c.done, c.items.filter((i) => i.state === 'done').length);
});

test('policies in one place: tool rules and the guardrail policy, which the admin changes through the runtime', async () => {
  assert.equal((await api(admin, 'PUT', '/v1/admin/policies/tools/get_current_time', { policy: 'ask' })).status, 200);
  try {
    const s = await api(admin, 'GET', '/v1/admin/policies');
    assert.equal(s.status, 200);
    const v = s.body as PoliciesSummary;
    assert.ok(v.tools.items.some((r) => r.tool === 'get_current_time' && r.policy === 'ask' && r.origin === 'admin'));
    assert.ok(v.tools.tools.some((t) => t.name === 'calculator'));
    assert.equal(v.guardrail.state, 'ok', v.guardrail.error ?? '');
    const g = v.guardrail.policy as { policy: { pii: { threshold: number } } };
    assert.equal(typeof g.policy.pii.threshold, 'number');
    assert.deepEqual((await api(admin, 'GET', '/v1/admin/policies/tools')).body.items, v.tools.items, 'the tool rules are the same answer');

    const put = await api(admin, 'PUT', '/v1/admin/policies/guardrail', { policy: { pii: { threshold: 0.91 } } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.policy.pii.threshold, 0.91);
    assert.equal((await api(admin, 'GET', '/v1/admin/policies/guardrail')).body.policy.pii.threshold, 0.91);
    const bad = await api(admin, 'PUT', '/v1/admin/policies/guardrail', { policy: { no_such_scanner: { input: 'block' } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_request');
    assert.equal((await api(admin, 'DELETE', '/v1/admin/policies/guardrail')).status, 204);
    assert.equal((await api(admin, 'GET', '/v1/admin/policies/guardrail')).body.policy.pii.threshold, g.policy.pii.threshold);
  } finally {
    await api(admin, 'DELETE', '/v1/admin/policies/tools/get_current_time');
  }
});

test('agentops: runs, failures, tool error rates, latency and cost per agent by day', async () => {
  const s = openStream(user, 'hello', 'done');
  await s.done;
  const r = await api(admin, 'GET', '/v1/admin/agentops/agents?days=7');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const v = r.body as AgentOps;
  assert.equal(v.days, 7);
  assert.equal(v.source.cost_state, 'ok', v.source.cost_error ?? '');
  const a = v.items.find((x) => x.agent_id === 'default')!;
  assert.ok(a.runs >= 3, `runs ${a.runs}`);
  assert.ok(a.tool_calls >= 2, `tool calls ${a.tool_calls}`);
  assert.equal(a.daily.length, 7);
  assert.equal(a.daily.reduce((n, d) => n + d.runs, 0), a.runs);
  assert.equal(a.daily.at(-1)!.day, new Date().toISOString().slice(0, 10));
  assert.ok(a.latency_ms.p50 !== null && a.latency_ms.p95 !== null && a.latency_ms.p50 <= a.latency_ms.p95);
  assert.ok(a.tools.some((t) => t.tool === 'calculator' && t.calls >= 2));
  assert.equal(typeof a.cost_usd, 'number');
  assert.equal((await api(admin, 'GET', '/v1/admin/agentops/agents?days=0')).status, 400);
  assert.equal((await api(admin, 'GET', '/v1/admin/agentops/agents')).body.days, 14);
});
