/**
 * Issue 19 items 1, 7 on the real stack: topology lists every service with its health and the call
 * edges; stack has the versions; a service restarts and comes back ready; a log level change applies
 * (and survives the restart); the log tail masks secrets; the directory connection view answers.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { SERVICE_NAMES } from '../../services/shared/services.js';

let stack: TestStack;
let token: string;

before(async () => {
  stack = await startStack();
  token = await login(stack.url, ADMIN.email, ADMIN.password);
});
after(async () => { await stack.stop(); });

test('topology lists every service with port, transport, health and who calls whom', async () => {
  const r = await callJson(stack.url, token, 'GET', '/v1/admin/topology');
  assert.equal(r.status, 200);
  const names: string[] = r.body.nodes.map((n: { name: string }) => n.name).sort();
  assert.equal(names.join(","), [...SERVICE_NAMES].sort().join(","));
  for (const n of r.body.nodes) {
    assert.ok(n.port > 0, `${n.name} port`);
    assert.equal(typeof n.healthy, 'boolean');
    assert.equal(n.state, 'ready', `${n.name} ready`);
    assert.ok(n.transport.length > 0);
  }
  assert.ok(r.body.edges.some((e: { from: string; to: string }) => e.from === 'agent-runtime' && e.to === 'inference-router'));
  assert.ok(r.body.edges.every((e: { from: string; to: string }) => names.includes(e.from) && names.includes(e.to)));
});

test('stack reports app, Node, SQLite, sqlite-vec, onnxruntime, llama.cpp, Docker and the sandbox image', async () => {
  const r = await callJson(stack.url, token, 'GET', '/v1/admin/stack');
  assert.equal(r.status, 200);
  assert.equal(r.body.node, process.versions.node);
  assert.match(r.body.app.version, /^\d+\.\d+\.\d+/);
  assert.match(r.body.sqlite, /^3\.\d+/);
  assert.match(r.body.sqlite_vec, /^v?0\.\d+/);
  assert.match(r.body.onnxruntime, /^\d+\.\d+/);
  assert.match(r.body.node_llama_cpp, /^\d+\.\d+/);
  assert.equal(typeof r.body.llama_cpp, 'string');
  assert.equal(typeof r.body.docker.reachable, 'boolean');
  if (r.body.docker.reachable) assert.match(r.body.docker.version, /\d+\.\d+/);
  assert.equal(r.body.sandbox_image.name, 'svc-sandbox:latest');
  if (r.body.sandbox_image.present) assert.match(r.body.sandbox_image.id, /^sha256:[0-9a-f]{64}$/);
  assert.ok(Array.isArray(r.body.models));
});

test('a service restarts and comes back healthy; the gateway refuses to restart itself; unknown names 404', async () => {
  const before = stack.sup.status().find((s) => s.name === 'memory')!;
  const r = await callJson(stack.url, token, 'POST', '/v1/admin/services/memory/restart');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.state, 'ready');
  assert.equal(r.body.restarts, before.restarts + 1);
  const st = await callJson(stack.url, token, 'GET', '/v1/admin/status');
  const mem = st.body.services.find((s: { name: string }) => s.name === 'memory');
  assert.equal(mem.state, 'ready');
  assert.equal(mem.readiness, null);
  assert.equal((await callJson(stack.url, token, 'POST', '/v1/admin/services/gateway/restart')).body.code, 'restart_refused');
  const nf = await callJson(stack.url, token, 'POST', '/v1/admin/services/nope/restart');
  assert.equal(nf.status, 404);
  assert.equal(nf.body.code, 'service_not_found');
});

test('a log level change applies: debug lines appear after it, and the level is reported', async () => {
  const bad = await callJson(stack.url, token, 'PUT', '/v1/admin/services/observability/log-level', { level: 'loud' });
  assert.equal(bad.status, 400);
  const before = await callJson(stack.url, token, 'GET', '/v1/admin/services/observability/logs?lines=500');
  assert.equal(before.body.level, 'warn');
  assert.ok(!before.body.lines.some((l: string) => l.includes('"level":20')), 'no debug lines at warn');
  const r = await callJson(stack.url, token, 'PUT', '/v1/admin/services/observability/log-level', { level: 'debug' });
  assert.equal(r.status, 200);
  assert.equal(r.body.level, 'debug');
  // A restarted worker keeps the level: its start-up debug lines ("background work started") show it.
  assert.equal((await callJson(stack.url, token, 'POST', '/v1/admin/services/observability/restart')).status, 200);
  await new Promise((res) => setTimeout(res, 300));
  const after = await callJson(stack.url, token, 'GET', '/v1/admin/services/observability/logs?lines=500');
  assert.equal(after.body.level, 'debug');
  assert.ok(after.body.lines.some((l: string) => l.includes('"level":20')), 'debug lines after the change');
});

test('the log tail masks secret-like values', async () => {
  const secret = 'hunter2-correct-horse-battery';
  const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJlc2lnbmF0dXJl';
  const apiKey = 'sk-live-0123456789abcdefABCDEF';
  appendFileSync(join(stack.dataDir, 'logs', 'knowledge.log'),
    `${JSON.stringify({ level: 40, msg: `upstream refused Authorization: Bearer ${jwt}`, password: secret, provider_api_key: apiKey, note: `key ${apiKey}` })}\n`);
  const r = await callJson(stack.url, token, 'GET', '/v1/admin/services/knowledge/logs?lines=20');
  assert.equal(r.status, 200);
  const text = r.body.lines.join('\n');
  assert.ok(text.includes('upstream refused'), 'the line is there');
  assert.ok(text.includes('[redacted]'));
  for (const s of [secret, jwt, apiKey]) assert.ok(!text.includes(s), `leaked ${s}`);
  assert.equal((await callJson(stack.url, token, 'GET', '/v1/admin/services/knowledge/logs?lines=0')).status, 400);
});

test('the directory connection is shown and testable (issue 19 item 7)', async () => {
  const v = await callJson(stack.url, token, 'GET', '/v1/admin/auth/dirauth');
  assert.equal(v.status, 200);
  assert.equal(typeof v.body.configured, 'boolean');
  const t = await callJson(stack.url, token, 'POST', '/v1/admin/auth/dirauth/test');
  if (v.body.configured) { assert.equal(t.status, 200); assert.equal(typeof t.body.ok, 'boolean'); }
  else { assert.equal(t.status, 404); assert.equal(t.body.code, 'directory_not_configured'); }
});
