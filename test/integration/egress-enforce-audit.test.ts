/**
 * Issue 19 item 6, from outside with a real Squid: under SVC_EGRESS_POLICY=enforce the router's
 * provider probe to a loopback server that is not allowlisted is denied and appears as an
 * `egress.deny` row with exactly the spec's detail keys; once allowlisted it passes as `egress.allow`;
 * the stats route groups them; `limit=0` and `limit=501` answer 400.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

const KEYS = ['service', 'destination', 'path', 'verdict', 'bytes', 'method', 'client_ip', 'proxy_code', 'http_status', 'local_port', 'hierarchy', 'proxy_ts', 'username'].sort();
const haveSquid = existsSync('/usr/sbin/squid');
let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;

before(async () => {
  if (!haveSquid) return;
  llm = await startScriptedLlm({});
  stack = await startStack({ SVC_EGRESS_POLICY: 'enforce' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
});
after(async () => { await stack?.stop(); await llm?.close(); });

/** Egress rows of `action`, polled until `n` exist (the shipper runs every 250 ms). */
async function rows(action: string, n: number): Promise<Array<{ action: string; detail: Record<string, unknown>; resource_type: string; resource_id: string; user_id: string }>> {
  for (let i = 0; i < 60; i++) {
    const r = await callJson(stack.url, admin, 'GET', `/v1/admin/audit?action=${action}&limit=100`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (r.body.items.length >= n) return r.body.items;
    await new Promise((res) => setTimeout(res, 250));
  }
  assert.fail(`fewer than ${n} ${action} rows`);
}

test('enforce: a destination off the allowlist is denied and audited; an allowlisted one passes', { skip: !haveSquid && 'squid missing' }, async () => {
  const port = new URL(llm.baseUrl).port;
  const denied = await callJson(stack.url, admin, 'POST', '/v1/admin/inference/providers', { name: 'blocked', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(denied.status, 422, JSON.stringify(denied.body));
  const deny = (await rows('egress.deny', 1))[0]!;
  assert.deepEqual(Object.keys(deny.detail).sort(), KEYS);
  assert.equal(deny.detail.verdict, 'deny');
  assert.equal(deny.detail.destination, `127.0.0.1:${port}`);
  assert.equal(deny.detail.service, 'inference-router');
  assert.equal(deny.detail.path, 'strict');
  assert.equal(deny.detail.username, null);
  assert.equal(deny.resource_type, 'egress_destination');
  assert.equal(deny.resource_id, `127.0.0.1:${port}`);

  const bad = await callJson(stack.url, admin, 'POST', '/v1/admin/egress/allowlist', { destination: 'not a host' });
  assert.equal(bad.status, 400);
  const added = await callJson(stack.url, admin, 'POST', '/v1/admin/egress/allowlist', { destination: `127.0.0.1:${port}` });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  const list = await callJson(stack.url, admin, 'GET', '/v1/admin/egress/allowlist');
  assert.equal(list.body.policy, 'enforce');
  assert.equal(list.body.proxy_state, 'running');
  assert.deepEqual(list.body.items.map((i: { destination: string }) => i.destination), [`127.0.0.1:${port}`]);
  await new Promise((res) => setTimeout(res, 1500)); // squid -k reconfigure takes effect asynchronously
  const ok = await callJson(stack.url, admin, 'POST', '/v1/admin/inference/providers', { name: 'allowed', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const allow = (await rows('egress.allow', 1))[0]!;
  assert.deepEqual(Object.keys(allow.detail).sort(), KEYS);
  assert.equal(allow.detail.verdict, 'allow');
  assert.equal(allow.user_id, 'service:egress');

  const stats = await callJson(stack.url, admin, 'GET', '/v1/admin/audit/egress/stats?group_by=verdict');
  assert.equal(stats.status, 200, JSON.stringify(stats.body));
  const byKey = Object.fromEntries(stats.body.buckets.map((b: { key: string; hits: number }) => [b.key, b.hits]));
  assert.ok(byKey.deny >= 1 && byKey.allow >= 1, JSON.stringify(stats.body));
  assert.equal(stats.body.summary.total, stats.body.summary.allow + stats.body.summary.deny);
  assert.ok(stats.body.summary.deny_rate > 0 && stats.body.summary.deny_rate < 1);
  assert.equal(stats.body.summary.distinct_destinations, 1);
  for (const limit of [0, 501]) assert.equal((await callJson(stack.url, admin, 'GET', `/v1/admin/audit/egress/stats?limit=${limit}`)).status, 400);
  const del = await callJson(stack.url, admin, 'DELETE', `/v1/admin/egress/allowlist/${added.body.id}`);
  assert.equal(del.status, 204);
});
