/**
 * Regression test of issue 11 item 8, "No URL of the workstation's own": an admin registered an
 * inference provider whose base URL was the gateway itself (also spelt `127.1`, `2130706433`,
 * `0x7f000001`, `[::ffff:127.0.0.1]`, `0.0.0.0`) with a user's token as the API key, and the router
 * called the gateway as that user.
 *
 * From outside, through the whole stack: registering the gateway, a service's HTTP or gRPC port, or a
 * link-local address, in any spelling, answers 400 `url_not_allowed` and stores nothing; moving a
 * provider onto the gateway is refused the same way; PRICING_MODELS_URL on the gateway refreshes
 * with 400 `url_not_allowed`. A scripted model server on another loopback port is still accepted and
 * answers. With the router alone: a provider stored before the check, whose port is now one of the
 * workstation's, is refused at fetch time (no request reaches it); the same for the price list.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../main/supervisor/index.js';
import { start as startRouter } from '../../services/inference-router/src/index.js';
import { start as startObs } from '../../services/observability/src/index.js';
import { startStack, login, ADMIN, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { obsConfig, routerConfig, stamp, testKeys } from '../helpers/router-config.js';

let stack: TestStack;
let llm: ScriptedLlm;
let gwPort: number;
let adminToken: string;
let userToken: string;

before(async () => {
  llm = await startScriptedLlm();
  gwPort = await freePort('127.0.0.1');
  stack = await startStack({ SVC_GATEWAY_PORT: String(gwPort), PRICING_MODELS_URL: `http://0x7f000001:${gwPort}/v1/prices` });
  adminToken = await login(stack.url, ADMIN.email, ADMIN.password);
  const created = await api('/v1/admin/users', { method: 'POST', body: { email: 'victim@example.test', display_name: 'Victim', password: 'victim-password-123', roles: ['user'] } });
  assert.equal(created.status, 201, await created.clone().text());
  userToken = await login(stack.url, 'victim@example.test', 'victim-password-123');
});
after(async () => { await stack?.stop(); await llm?.close(); });

async function api(path: string, init: { method?: string; body?: unknown; token?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? adminToken}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(stack.url + path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

async function assertRefused(r: Response, what: string): Promise<string> {
  const text = await r.text();
  assert.equal(r.status, 400, `${what}: ${text}`);
  const body = JSON.parse(text) as { code: string; error: string };
  assert.equal(body.code, 'url_not_allowed', what);
  assert.ok(!body.error.includes(userToken), 'the key is never echoed');
  return body.error;
}

function portOf(name: string): number {
  const s = stack.sup.status().find((x) => x.name === name);
  assert.ok(s, name);
  return s.port;
}

test('the gateway, a service port or a link-local address is refused as a provider base URL, in every spelling', async () => {
  assert.equal(new URL(stack.url).port, String(gwPort));
  const audit = portOf('audit');
  const router = portOf('inference-router');
  const bases = [
    `${stack.url}/v1`, `http://localhost:${gwPort}/v1`, `http://127.1:${gwPort}`, `http://2130706433:${gwPort}`, `http://0x7f000001:${gwPort}/v1`,
    `http://[::ffff:127.0.0.1]:${gwPort}`, `http://[::1]:${gwPort}`, `http://0.0.0.0:${gwPort}`,
    `http://127.0.0.1:${audit}`, `http://127.0.0.1:${audit + 1000}`, `http://localhost:${router}/v1`,
    `http://0.0.0.0:${new URL(llm.url).port}/v1`, 'http://169.254.169.254/latest', 'http://[fe80::1]:11434/v1', 'http://[::ffff:169.254.169.254]/',
  ];
  let i = 0;
  for (const base_url of bases) {
    const msg = await assertRefused(await api('/v1/admin/inference/providers', {
      method: 'POST', body: { name: `own-${i++}`, base_url, adapter: 'chat_completions', api_key: userToken },
    }), base_url);
    assert.match(msg, /workstation|link-local|unspecified/, base_url);
  }
  const list = await (await api('/v1/admin/inference/providers')).json() as { items: Array<{ name: string }> };
  assert.deepEqual(list.items.filter((p) => p.name.startsWith('own-')), [], 'nothing was stored');
});

test('a model server on another loopback port is still registered and answers; it cannot be moved onto the gateway', async () => {
  let r = await api('/v1/admin/inference/providers', { method: 'POST', body: { name: 'local-llm', base_url: llm.baseUrl, adapter: 'chat_completions' } });
  assert.equal(r.status, 201, await r.clone().text());
  const p = await r.json() as { id: string; base_url: string; models: string[] };
  assert.deepEqual(p.models, ['scripted-model']);
  r = await api('/v1/admin/inference/roles/default', { method: 'PUT', body: { provider_id: p.id, model: 'scripted-model' } });
  assert.equal(r.status, 200, await r.clone().text());
  r = await api('/v1/chat/completions', { method: 'POST', token: userToken, body: { model: 'default', messages: [{ role: 'user', content: 'hello' }] } });
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal((await r.json() as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content, 'echo: hello');

  await assertRefused(await api(`/v1/admin/inference/providers/${p.id}`, { method: 'PATCH', body: { base_url: `http://127.1:${gwPort}/v1`, api_key: userToken } }), 'PATCH onto the gateway');
  const after = await (await api(`/v1/admin/inference/providers/${p.id}`)).json() as { base_url: string; has_api_key: boolean };
  assert.equal(after.base_url, llm.baseUrl, 'the provider was not moved');
  assert.equal(after.has_api_key, false, 'the user token was not stored');
});

test('a price list URL on the gateway is refused when prices are refreshed', async () => {
  await assertRefused(await api('/v1/prices/refresh', { method: 'POST' }), 'PRICING_MODELS_URL on the gateway');
});

test('a provider stored before the check, on a port the workstation now serves, is refused at fetch time', async (t) => {
  const keys = testKeys();
  const model = await startScriptedLlm();
  t.after(() => model.close());
  const admin = stamp(keys, { id: 'admin-1', roles: ['admin', 'user'] });
  const call = (base: string, path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<Response> => fetch(base + path, {
    method, headers: { 'x-svc-principal': admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const cfg = routerConfig(keys, {});
  const first = await startRouter(cfg);
  let R = `http://127.0.0.1:${first.port}`;
  const reg = await call(R, '/v1/internal/providers', { name: 'old', base_url: model.baseUrl, adapter: 'chat_completions' });
  assert.equal(reg.status, 201, await reg.clone().text());
  const id = (await reg.json() as { id: string }).id;
  assert.equal((await call(R, '/v1/internal/roles/default', { provider_id: id, model: 'scripted-model' }, 'PUT')).status, 200);
  await first.close();

  // The same data, on a workstation whose gateway now listens on the model server's port.
  const second = await startRouter({ ...cfg, serviceUrls: { ...cfg.serviceUrls, gateway: model.url } });
  t.after(() => second.close());
  R = `http://127.0.0.1:${second.port}`;
  const seen = model.requests.length;
  const chat = await call(R, '/v1/chat/completions', { model: 'default', messages: [{ role: 'user', content: 'hi' }] });
  const body = await chat.json() as { code: string; error: string };
  assert.equal(chat.status, 503);
  assert.equal(body.code, 'backend_unavailable');
  assert.match(body.error, /not allowed/);
  assert.equal(model.requests.length, seen, 'no request reached the refused address');
  const refresh = await call(R, `/v1/internal/providers/${id}/models?refresh=true`);
  assert.equal(refresh.status, 400);
  assert.equal((await refresh.json() as { code: string }).code, 'url_not_allowed');
  // The router's own port, bound as port 0, counts once it listens.
  const self = await call(R, '/v1/internal/providers', { name: 'self', base_url: `http://localhost:${second.port}/v1/internal`, adapter: 'chat_completions' });
  assert.equal(self.status, 400);
  assert.equal((await self.json() as { code: string }).code, 'url_not_allowed');
});

test('the price list is fetched from another loopback port, and refused once that port is the workstation\'s', async (t) => {
  let hits = 0;
  const prices: Server = createServer((_req, res) => { hits++; res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ 'm-1': { in: 1, out: 2 } })); });
  await new Promise<void>((r) => prices.listen(0, '127.0.0.1', r));
  t.after(() => prices.close());
  const origin = `http://127.0.0.1:${(prices.address() as AddressInfo).port}`;
  const keys = testKeys();
  const admin = stamp(keys, { id: 'admin-1', roles: ['admin', 'user'] });
  const refresh = (base: string): Promise<Response> => fetch(`${base}/v1/prices/refresh`, { method: 'POST', headers: { 'x-svc-principal': admin } });

  const open = await startObs(obsConfig(keys, { pricingModelsUrl: `${origin}/prices.json` }));
  t.after(() => open.close());
  const ok = await refresh(`http://127.0.0.1:${open.port}`);
  assert.equal(ok.status, 200, await ok.clone().text());
  assert.equal((await ok.json() as { updated: number }).updated, 1);
  assert.equal(hits, 1);

  const base = obsConfig(keys, { pricingModelsUrl: `${origin}/prices.json` });
  const own = await startObs({ ...base, serviceUrls: { ...base.serviceUrls, audit: origin } });
  t.after(() => own.close());
  const refused = await refresh(`http://127.0.0.1:${own.port}`);
  assert.equal(refused.status, 400);
  assert.equal((await refused.json() as { code: string }).code, 'url_not_allowed');
  assert.equal(hits, 1, 'nothing was fetched from an own port');
});
