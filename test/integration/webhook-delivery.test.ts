/**
 * Signed webhooks through the whole stack (issue 18 item 2; spec `/v1/webhook`, `/v1/webhook/*`),
 * from outside through the gateway with the scripted LLM:
 * - admins create hooks (the secret answered once; list and get never show it), non-admins get 403;
 * - a well-signed delivery to an `agent_run` hook starts the agent as the hook's owner with the
 *   payload as input; the run's receipt seals with its turn events and verifies; the delivery is
 *   listed and audited (`webhook.delivery`);
 * - a replay is 409 `webhook_replayed`; a bad signature, an old timestamp and an unknown hook answer
 *   their pinned codes; a `notification` hook posts to its user; rotation makes the old secret fail.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let bob: string;
let bobId: string;

const api = (token: string, method: string, path: string, body?: unknown): Promise<JsonAnswer> => callJson(stack.url, token, method, path, body);

/** Deliver `body` signed with `secret` (timestamp `ts`, default now). */
async function deliver(path: string, secret: string, body: string, ts = Math.floor(Date.now() / 1000), sig?: string): Promise<JsonAnswer> {
  const signature = sig ?? `sha256=${createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')}`;
  const r = await fetch(stack.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-timestamp': String(ts), 'x-svc-signature': signature }, body });
  const text = await r.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* text */ }
  return { status: r.status, body: parsed, headers: r.headers };
}

async function until<T>(fn: () => Promise<T | null>, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  llm = await startScriptedLlm();
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const c = await api(admin, 'POST', '/v1/admin/users', { email: 'bob@example.test', display_name: 'bob', password: 'bob-long-password', roles: ['user'] });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  bob = await login(stack.url, 'bob@example.test', 'bob-long-password');
  bobId = (c.body.id ?? c.body.user?.id) as string;
  assert.ok(bobId, JSON.stringify(c.body));
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('admin only: a non-admin cannot list or create webhooks', async () => {
  assert.equal((await api(bob, 'GET', '/v1/admin/webhooks')).status, 403);
  assert.equal((await api(bob, 'POST', '/v1/admin/webhooks', { name: 'x', target: { kind: 'agent_run', agent_id: 'default' } })).status, 403);
});

test('agent_run: a signed delivery runs the agent as the owner, seals a verifiable receipt, and is audited; a replay is refused', async () => {
  const created = await api(admin, 'POST', '/v1/admin/webhooks', { name: 'CI failures', target: { kind: 'agent_run', agent_id: 'default' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id, secret } = created.body as { id: string; secret: string };
  assert.match(secret, /^whsec_/);
  assert.ok(typeof created.body.owner_id === 'string' && created.body.owner_id.length > 0, 'the creating admin owns the hook');
  const listed = await api(admin, 'GET', '/v1/admin/webhooks');
  assert.equal(listed.status, 200);
  assert.ok(listed.body.webhooks.some((w: { id: string }) => w.id === id));
  assert.ok(!JSON.stringify(listed.body).includes(secret), 'the list never shows the secret');
  const got = await api(admin, 'GET', `/v1/admin/webhooks/${id}`);
  assert.equal(got.status, 200);
  assert.equal(got.body.secret, undefined);
  assert.ok(!JSON.stringify(got.body).includes(secret));

  const payload = JSON.stringify({ event: 'build.failed', job: 'nightly-42' });
  const ts = Math.floor(Date.now() / 1000);
  const ok = await deliver(`/v1/webhook/${id}`, secret, payload, ts);
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  assert.equal(ok.body.accepted, true);
  const turnId = ok.body.turn_id as string;
  assert.ok(turnId, 'an agent_run delivery answers its turn id');

  const detail = await until(async () => {
    const r = await api(admin, 'GET', `/v1/receipts/${turnId}`);
    if (r.status !== 200) return null;
    const events = r.body.events as Array<{ payload_type: string; payload_json: string; principal_id?: string }>;
    return events.some((e) => e.payload_type === 'turn_sealed') ? r.body as { events: typeof events } : null;
  });
  const types = detail.events.map((e) => e.payload_type);
  for (const t of ['turn_started', 'prompt_generated', 'model_invoked', 'model_response', 'turn_sealed']) assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
  const v = await api(admin, 'POST', `/v1/receipts/${turnId}/verify`);
  assert.equal(v.status, 200, JSON.stringify(v.body));
  assert.equal(v.body.ok, true);
  assert.ok(llm.requests.some((r) => JSON.stringify(r.body.messages).includes('nightly-42')), 'the payload is the agent\'s input');

  const replay = await deliver(`/v1/webhook/${id}`, secret, payload, ts);
  assert.equal(replay.status, 409);
  assert.equal(replay.body.code, 'webhook_replayed');

  const deliveries = await api(admin, 'GET', `/v1/admin/webhooks/${id}/deliveries`);
  assert.equal(deliveries.status, 200);
  const [last, first] = deliveries.body.deliveries as Array<{ outcome: string; code?: string; turn_id?: string }>;
  assert.equal(last!.outcome, 'rejected');
  assert.equal(last!.code, 'webhook_replayed');
  assert.equal(first!.outcome, 'accepted');
  assert.equal(first!.turn_id, turnId);

  const audited = await until(async () => {
    const r = await api(admin, 'GET', '/v1/admin/audit?action=webhook.delivery&limit=50');
    if (r.status !== 200) return null;
    const rows = r.body.items as Array<{ action: string; resource_id: string; detail: Record<string, unknown> }>;
    const mine = Array.isArray(rows) ? rows.filter((x) => x.action === 'webhook.delivery' && x.resource_id === id) : [];
    return mine.length >= 2 ? mine : null;
  });
  assert.ok(audited.some((a) => a.detail.outcome === 'accepted' && a.detail.turn_id === turnId));
  assert.ok(audited.some((a) => a.detail.outcome === 'rejected' && a.detail.code === 'webhook_replayed'));
  assert.ok(!JSON.stringify(audited).includes(secret) && !JSON.stringify(audited).includes('nightly-42'), 'no secret, no body in audit');
});

test('refusals: bad signature, old timestamp, unknown hook; rotate makes the old secret fail; body-addressed delivery', async () => {
  const created = await api(admin, 'POST', '/v1/admin/webhooks', { name: 'to bob', target: { kind: 'notification', user_id: bobId } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id, secret } = created.body as { id: string; secret: string };
  const body = JSON.stringify({ hook_id: id, text: 'deploy finished' });

  const bad = await deliver(`/v1/webhook/${id}`, secret, body, undefined, `sha256=${'0'.repeat(64)}`);
  assert.equal(bad.status, 401);
  assert.equal(bad.body.code, 'webhook_signature_invalid');
  const old = await deliver(`/v1/webhook/${id}`, secret, body, Math.floor(Date.now() / 1000) - 301);
  assert.equal(old.status, 401);
  assert.equal(old.body.code, 'webhook_timestamp_invalid');
  const unknown = await deliver('/v1/webhook/wh_nope', secret, body);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'webhook_not_found');

  const ok = await deliver('/v1/webhook', secret, body);
  assert.equal(ok.status, 202, JSON.stringify(ok.body));
  const nid = ok.body.notification_id as string;
  assert.ok(nid);
  const inbox = await api(bob, 'GET', '/v1/notifications');
  assert.equal(inbox.status, 200);
  const n = (inbox.body.items ?? inbox.body.notifications) as Array<{ id: string; kind: string; body: string | null }>;
  const mine = n.find((x) => x.id === nid);
  assert.ok(mine, 'the notification reached its user');
  assert.equal(mine!.kind, 'webhook.delivery');
  assert.ok(mine!.body?.includes('deploy finished'));

  const rotated = await api(admin, 'POST', `/v1/admin/webhooks/${id}/rotate`);
  assert.equal(rotated.status, 200);
  assert.notEqual(rotated.body.secret, secret);
  const stale = await deliver(`/v1/webhook/${id}`, secret, JSON.stringify({ text: 'again' }));
  assert.equal(stale.status, 401);
  assert.equal(stale.body.code, 'webhook_signature_invalid');
  const fresh = await deliver(`/v1/webhook/${id}`, rotated.body.secret, JSON.stringify({ text: 'again' }));
  assert.equal(fresh.status, 202, JSON.stringify(fresh.body));

  assert.equal((await api(admin, 'DELETE', `/v1/admin/webhooks/${id}`)).status, 204);
  assert.equal((await deliver(`/v1/webhook/${id}`, rotated.body.secret, '{}')).body.code, 'webhook_not_found');
  assert.equal((await api(admin, 'GET', `/v1/admin/webhooks/${id}`)).status, 404);
});
