/**
 * The workspace overview and the integration status through the whole stack (issue 13 items 5, 6;
 * spec "Agent runtime surfaces": `GET /v1/overview`, `GET /v1/user/integrations/status`): every
 * section is present (mail providers as an empty list), the registered inference provider is listed
 * with its health from the router, the user's recent sessions and documents, a waiting approval while
 * a run is parked on it, and the integrations in their shape (the phone not configured).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack, openChatStream } from '../helpers/stack.js';
import { SimDevice } from '../helpers/second-factor.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import type { ApprovalView, IntegrationStatusList, Overview } from '../../services/agent-runtime/src/contracts.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let user: string;
let providerId: string;

async function api<T = unknown>(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
}

/** A model that calls the calculator when asked to calculate, else answers. */
function script(r: RecordedRequest): ScriptedReply {
  const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = msgs[msgs.length - 1]!;
  if (last.role === 'tool') return { content: `The tool said: ${String(last.content)}` };
  if (String(last.content).includes('calculate')) return { toolCalls: [{ id: 'call_1', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }] };
  return { content: 'Hello there.' };
}

/** Start a chat stream as `token` on the stack (test/helpers/stack.ts `openChatStream`). */
const openStream = (token: string, content: string, until: string): ReturnType<typeof openChatStream> => openChatStream(stack.url, token, content, until);

before(async () => {
  llm = await startScriptedLlm({ script });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api<{ id: string }>(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201);
  providerId = prov.body.id;
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: providerId, model: 'scripted-model' })).status < 300);
  assert.equal((await api(admin, 'POST', '/v1/admin/users', { email: 'olga@example.test', display_name: 'Olga', password: 'olga-long-password', roles: ['user'] })).status, 201);
  user = await login(stack.url, 'olga@example.test', 'olga-long-password');
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('integration status: every item in its shape; the phone is not configured; no OAuth connectors or MCP servers yet', async () => {
  const r = await api<IntegrationStatusList>(user, 'GET', '/v1/user/integrations/status');
  assert.equal(r.status, 200);
  assert.ok(Array.isArray(r.body.items));
  for (const i of r.body.items) {
    assert.deepEqual(Object.keys(i).filter((k) => !['id', 'kind', 'name', 'state', 'detail'].includes(k)), [], 'no undeclared fields');
    assert.ok(typeof i.id === 'string' && typeof i.kind === 'string' && typeof i.name === 'string');
    assert.ok(['connected', 'disconnected', 'error', 'not_configured'].includes(i.state));
  }
  const phone = r.body.items.find((i) => i.kind === 'phone');
  assert.equal(phone?.state, 'not_configured');
  assert.deepEqual(r.body.items.filter((i) => i.kind === 'oauth' || i.kind === 'mcp'), []);
  assert.equal((await fetch(`${stack.url}/v1/user/integrations/status`)).status, 401, 'signed-in users only');
});

test('overview: every section present, the provider healthy from the router, recent sessions and documents, a waiting approval', async () => {
  const empty = await api<Overview>(user, 'GET', '/v1/overview');
  assert.equal(empty.status, 200, JSON.stringify(empty.body));
  const o0 = empty.body;
  assert.deepEqual(Object.keys(o0).sort(), ['agents', 'approvals_waiting', 'generated_at', 'inference_providers', 'inference_router', 'integrations', 'mail_providers', 'recent_activity']);
  assert.deepEqual(o0.mail_providers, []);
  assert.deepEqual(o0.agents, [{ id: 'default', name: 'Assistant', default: true }]);
  assert.deepEqual(o0.inference_router, { state: 'ready', detail: null });
  const p = o0.inference_providers.find((x) => x.id === providerId);
  assert.ok(p, JSON.stringify(o0.inference_providers));
  assert.equal(p.name, 'scripted');
  assert.equal(p.health, 'healthy');
  assert.deepEqual(p.roles, ['default']);
  assert.deepEqual(p.models, ['scripted-model']);
  assert.ok(o0.integrations.some((i) => i.kind === 'phone' && i.state === 'not_configured'));
  assert.deepEqual(o0.approvals_waiting, { count: 0, items: [] });
  assert.deepEqual([o0.recent_activity.sessions, o0.recent_activity.turns, o0.recent_activity.documents], [[], [], []]);
  assert.equal(o0.recent_activity.documents_state, 'ok');

  const doc = await api<{ document_id: string }>(user, 'POST', '/v1/knowledge/ingest/text', { title: 'Olga notes', content: 'Notes about the overview test.' });
  assert.equal(doc.status, 201);
  const chat = await api<{ session_id: string }>(user, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'hello' }] });
  assert.equal(chat.status, 200);

  assert.equal((await api(admin, 'PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' })).status, 200);
  try {
    const s = openStream(user, 'please calculate 6 * 7', 'approval_required');
    const approval = ((await s.first).data as { approvals: ApprovalView[] }).approvals[0]!;
    const o = (await api<Overview>(user, 'GET', '/v1/overview')).body;
    assert.equal(o.approvals_waiting.count, 1);
    assert.deepEqual(o.approvals_waiting.items.map((a) => [a.id, a.tool]), [[approval.id, 'calculator']]);
    assert.ok(o.recent_activity.sessions.some((x) => x.id === chat.body.session_id));
    assert.deepEqual(o.recent_activity.documents.map((d) => [d.document_id, d.title]), [[doc.body.document_id, 'Olga notes']]);
    assert.equal(o.recent_activity.turns.length, 1, 'the finished chat; the parked one is still running');
    assert.deepEqual((await api<Overview>(admin, 'GET', '/v1/overview')).body.approvals_waiting.count, 0, 'another user\'s approvals are not in the admin\'s overview');

    assert.equal((await api(user, 'POST', `/v1/user/approvals/${approval.id}/reject`, { reason: 'not now' })).status, 200);
    assert.equal((await s.done).at(-1)?.event, 'done');
    const after = (await api<Overview>(user, 'GET', '/v1/overview')).body;
    assert.equal(after.approvals_waiting.count, 0);
    assert.equal(after.recent_activity.turns.length, 2);
  } finally {
    await api(admin, 'DELETE', '/v1/admin/policies/tools/calculator');
  }
});

test('the phone (issue 14): pairing one makes the integration connected and the admin\'s onboarding item done; revoking it undoes both', async () => {
  const status = async (token: string): Promise<IntegrationStatusList['items'][number] | undefined> =>
    (await api<IntegrationStatusList>(token, 'GET', '/v1/user/integrations/status')).body.items.find((i) => i.kind === 'phone');
  const phoneItem = async (): Promise<{ state: string; detail: string }> =>
    (await api<{ items: Array<{ id: string; state: string; detail: string }> }>(admin, 'GET', '/v1/admin/onboarding/checklist')).body.items.find((i) => i.id === 'phone_paired')!;
  assert.equal((await phoneItem()).state, 'todo');

  const pairing = await api<{ enrollment_url: string }>(admin, 'POST', '/v1/account/devices/pairing', {});
  assert.equal(pairing.status, 201, JSON.stringify(pairing.body));
  const phone = await SimDevice.create();
  assert.equal((await phone.pair(stack.url, pairing.body.enrollment_url, 'Desk phone')).status, 201);

  const connected = await status(admin);
  assert.equal(connected?.state, 'connected');
  assert.match(connected!.detail ?? '', /1 phone paired \(Desk phone\)/);
  assert.equal((await status(user))?.state, 'not_configured', 'another user\'s phone is not theirs');
  assert.equal((await phoneItem()).state, 'done');

  assert.ok((await api(admin, 'DELETE', `/v1/account/devices/${phone.device_id}`)).status < 300);
  assert.equal((await status(admin))?.state, 'not_configured');
  assert.equal((await phoneItem()).state, 'todo');
});
