/**
 * Issue 4 "Done when", checked from outside through the public API of the whole stack (supervisor,
 * every service in its worker thread, gateway on a free port): an admin registers a provider with a
 * messy base URL and sees it normalised and probed (and audited); redirecting and dead URLs are
 * refused; `/v1/chat/completions` with model "default" answers (streamed and not); `model_unknown`
 * and `role_not_configured` come back as codes; a generation record with tokens, latency and the cost
 * from OBS_LOCAL_PRICE_JSON appears within a second; with SVC_MODELS_DIR at ../shared/assets the local
 * engine is listed in /v1/models and generates text.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { startStack, login, ADMIN, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

let stack: TestStack;
let llm: ScriptedLlm;
let token: string;

before(async () => {
  llm = await startScriptedLlm();
  stack = await startStack({
    SVC_MODELS_DIR: join(process.cwd(), '..', 'shared', 'assets'),
    OBS_LOCAL_PRICE_JSON: JSON.stringify({ 'scripted-model': { in: 500, out: 1500 }, stories260K: { in: 0, out: 0 } }),
    SVC_ROUTER_BUDGET_CACHE_MS: '0',
  });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
});
after(async () => { await stack.stop(); await llm.close(); });

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(stack.url + path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

test('through the gateway: register, refuse bad URLs, route "default", record, local engine', async () => {
  // Before any role: role_not_configured; unknown model: model_unknown.
  let r = await api('/v1/chat/completions', { method: 'POST', body: { model: 'default', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal((await r.json() as { code: string }).code, 'role_not_configured');
  r = await api('/v1/chat/completions', { method: 'POST', body: { model: 'gpt-nothing', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 404);
  assert.equal((await r.json() as { code: string }).code, 'model_unknown');

  // Messy base URL: normalised and probed.
  r = await api('/v1/admin/inference/providers', { method: 'POST', body: { name: 'Scripted', base_url: `  ${llm.baseUrl}/chat/completions//  `, adapter: 'chat_completions', api_key: 'sk-stack-secret' } });
  assert.equal(r.status, 201);
  const p = await r.json() as { id: string; base_url: string; models: string[] };
  assert.equal(p.base_url, llm.baseUrl);
  assert.deepEqual(p.models, ['scripted-model']);

  // Redirecting and dead URLs refused with clear messages.
  const redirector: Server = createServer((_req, res) => { res.writeHead(301, { location: 'https://moved.example/v1' }); res.end(); });
  await new Promise<void>((res) => redirector.listen(0, '127.0.0.1', res));
  const rport = (redirector.address() as { port: number }).port;
  r = await api('/v1/admin/inference/providers', { method: 'POST', body: { name: 'moved', base_url: `http://127.0.0.1:${rport}/v1`, adapter: 'chat_completions' } });
  redirector.close();
  let e = await r.json() as { code: string; error: string };
  assert.equal(r.status, 422);
  assert.equal(e.code, 'provider_redirect');
  assert.match(e.error, /https:\/\/moved\.example\/v1/);
  r = await api('/v1/admin/inference/providers', { method: 'POST', body: { name: 'dead', base_url: 'http://127.0.0.1:9/v1', adapter: 'chat_completions' } });
  e = await r.json() as { code: string; error: string };
  assert.equal(r.status, 422);
  assert.equal(e.code, 'provider_unreachable');
  assert.match(e.error, /127\.0\.0\.1:9/);

  // Map the role; chat with model "default", plain and streamed.
  r = await api('/v1/admin/inference/roles/default', { method: 'PUT', body: { provider_id: p.id, model: 'scripted-model' } });
  assert.equal(r.status, 200);
  r = await api('/v1/chat/completions', { method: 'POST', body: { model: 'default', messages: [{ role: 'user', content: 'ping pong' }] } });
  assert.equal(r.status, 200);
  assert.ok(r.headers.get('x-svc-turn-id'), 'every call is a turn');
  const done = await r.json() as { choices: Array<{ message: { content: string } }> };
  assert.equal(done.choices[0]!.message.content, 'echo: ping pong');
  const genId = r.headers.get('x-svc-generation-id')!;
  const t0 = Date.now();
  type Gen = { prompt_tokens: number; completion_tokens: number; latency_ms: number; cost_usd: number; price_source: string; turn_id: string };
  let found: Gen | undefined;
  while (Date.now() - t0 < 1000) {
    const gr = await api(`/v1/generations/${genId}`);
    if (gr.status === 200) { found = await gr.json() as Gen; break; }
    await new Promise((res) => setTimeout(res, 25));
  }
  assert.ok(found, 'generation record within a second');
  const g: Gen = found;
  assert.equal(g.prompt_tokens, 2);
  assert.equal(g.completion_tokens, 3);
  assert.ok(g.latency_ms > 0);
  assert.equal(g.price_source, 'local');
  assert.equal(g.cost_usd, (2 * 500 + 3 * 1500) / 1e6);
  assert.equal(g.turn_id, r.headers.get('x-svc-turn-id'));

  r = await api('/v1/chat/completions', { method: 'POST', body: { model: 'default', stream: true, messages: [{ role: 'user', content: 'streamed words' }] } });
  assert.equal(r.status, 200);
  const raw = await r.text();
  const text = raw.split('\n\n').filter((b) => b.startsWith('data: {')).map((b) => (JSON.parse(b.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '').join('');
  assert.equal(text, 'echo: streamed words');
  assert.ok(raw.trimEnd().endsWith('data: [DONE]'));

  // Models, routes and the audit trail of the admin changes.
  const models = await (await api('/v1/models')).json() as { data: Array<{ id: string; owned_by: string }> };
  assert.ok(models.data.some((m) => m.id === 'scripted-model'));
  assert.ok(models.data.some((m) => m.id === 'stories260K' && m.owned_by === 'local'));
  const routes = await (await api('/v1/routes')).json() as { items: Array<{ role: string }> };
  assert.deepEqual(routes.items.map((x) => x.role), ['default']);
  const audit = await (await api('/v1/admin/audit?action=inference.provider.created')).json() as { items: Array<{ resource_id: string; detail: Record<string, unknown> }> };
  assert.equal(audit.items.length, 1);
  assert.equal(audit.items[0]!.resource_id, p.id);
  assert.ok(!JSON.stringify(audit.items[0]).includes('sk-stack-secret'));
  const roleAudit = await (await api('/v1/admin/audit?action=inference.role.updated')).json() as { items: unknown[] };
  assert.equal(roleAudit.items.length, 1);

  // The local engine generates text.
  r = await api('/v1/chat/completions', { method: 'POST', body: { model: 'stories260K', max_tokens: 20, messages: [{ role: 'user', content: 'Once upon a time' }] } });
  assert.equal(r.status, 200);
  const local = await r.json() as { choices: Array<{ message: { content: string } }> };
  assert.ok(local.choices[0]!.message.content.trim().length > 5);

  // Stats through the gateway: the router posts its record asynchronously; it lands within a second or so.
  let stats: { by_provider: Array<{ key: string; count: number }> } = { by_provider: [] };
  for (let i = 0; i < 60 && !stats.by_provider.some((b) => b.key === 'local'); i++) {
    if (i > 0) await new Promise((res) => setTimeout(res, 50));
    stats = await (await api('/v1/generations/stats')).json() as typeof stats;
  }
  assert.ok(stats.by_provider.some((b) => b.key === 'local'));
});
