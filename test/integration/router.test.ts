/**
 * Inference router with observability over real sockets (spec "Inference router", "Observability",
 * "Errors" inference codes): registration (normalised, probed, redirects and dead URLs refused, keys
 * never returned), roles with fallback and cooldown, chat completions through both adapters,
 * streaming, tool calls, disconnect, generation records priced from OBS_LOCAL_PRICE_JSON, budgets,
 * traces. The provider is the scripted OpenAI-compatible server.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { start as startRouter } from '../../services/inference-router/src/index.js';
import { start as startObs } from '../../services/observability/src/index.js';
import type { RunningService } from '../../services/shared/runtime.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { eventually, obsConfig, routerConfig, stamp, testKeys } from '../helpers/router-config.js';
import type { GenerationRecord } from '../../services/observability/src/contracts.js';
import type { RouterConfig } from '../../services/inference-router/src/contracts.js';

const keys = testKeys();
let llm: ScriptedLlm;
let flaky: ScriptedLlm;
let obs: RunningService;
let router: RunningService;
let rcfg: RouterConfig;
let R: string;
let O: string;
const admin = (): string => stamp(keys, { id: 'admin-1', roles: ['admin', 'user'] });
const user = (): string => stamp(keys);
const service = (): string => stamp(keys, { id: 'service:test', roles: ['service-account'], auth_method: 'service' });

async function call(base: string, path: string, init: { method?: string; body?: unknown; who?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'x-svc-principal': init.who ?? user(), ...(init.headers ?? {}) };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(base + path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

async function register(name: string, baseUrl: string, adapter = 'chat_completions', apiKey?: string): Promise<Response> {
  return call(R, '/v1/internal/providers', { method: 'POST', who: admin(), body: { name, base_url: baseUrl, adapter, ...(apiKey ? { api_key: apiKey } : {}) } });
}

async function generation(id: string): Promise<GenerationRecord> {
  return eventually(async () => {
    const r = await call(O, `/v1/generations/${id}`, { who: admin() });
    return r.status === 200 ? await r.json() as GenerationRecord : undefined;
  }, 1000);
}

before(async () => {
  llm = await startScriptedLlm();
  flaky = await startScriptedLlm({ models: ['flaky-model'], script: () => ({ status: 500 }) });
  obs = await startObs(obsConfig(keys, { localPrices: { 'scripted-model': { in: 1000, out: 2000 } } }));
  O = `http://127.0.0.1:${obs.port}`;
  rcfg = routerConfig(keys, { observability: O }, { modelsDir: join(process.cwd(), '..', 'shared', 'assets') });
  router = await startRouter(rcfg);
  R = `http://127.0.0.1:${router.port}`;
});
after(async () => { await router.close(); await obs.close(); await llm.close(); await flaky.close(); });

let providerId = '';

test('a messy base URL is normalised and probed; the key is stored encrypted and never returned', async () => {
  const messy = `   ${llm.baseUrl.replace('http://', 'HTTP://')}/chat/completions/   `;
  const r = await register('scripted', messy, 'chat_completions', 'sk-test-secret-123');
  assert.equal(r.status, 201, await r.clone().text());
  const text = await r.text();
  assert.ok(!text.includes('sk-test-secret'), 'key not in the answer');
  const p = JSON.parse(text) as { id: string; base_url: string; models: string[]; has_api_key: boolean; secret_store: string };
  assert.equal(p.base_url, llm.baseUrl);
  assert.deepEqual(p.models, ['scripted-model']);
  assert.equal(p.has_api_key, true);
  assert.equal(p.secret_store, 'encrypted_file');
  providerId = p.id;
  const file = readFileSync(join(rcfg.dataDir, 'secrets', 'inference-provider-keys.json'), 'utf8');
  assert.ok(!file.includes('sk-test-secret'), 'key file is encrypted');
  const list = await (await call(R, '/v1/internal/providers', { who: admin() })).text();
  assert.ok(!list.includes('sk-test-secret'));
  assert.equal((await register('scripted', llm.baseUrl)).status, 409, 'duplicate name');
  assert.equal((await call(R, '/v1/internal/providers', { who: user() })).status, 403, 'admin only');
});

test('redirecting, dead, key-protected and malformed base URLs are refused with clear messages', async () => {
  const redirector: Server = createServer((req, res) => {
    if (req.url?.startsWith('/v1/models')) { res.writeHead(302, { location: 'https://elsewhere.example/v1/models' }); res.end(); return; }
    res.writeHead(401, { 'content-type': 'application/json' }); res.end('{"error":{"message":"missing key"}}');
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  const port = (redirector.address() as { port: number }).port;
  try {
    let r = await register('redir', `http://127.0.0.1:${port}/v1`);
    assert.equal(r.status, 422);
    let b = await r.json() as { code: string; error: string };
    assert.equal(b.code, 'provider_redirect');
    assert.match(b.error, /elsewhere\.example\/v1\/models/);

    r = await register('locked', `http://127.0.0.1:${port}/locked`);
    b = await r.json() as { code: string; error: string };
    assert.equal(r.status, 422);
    assert.equal(b.code, 'provider_key_missing');
  } finally { redirector.close(); }

  const dead: Server = createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const deadPort = (dead.address() as { port: number }).port;
  await new Promise<void>((r) => dead.close(() => r()));
  const r = await register('dead', `http://127.0.0.1:${deadPort}/v1`);
  assert.equal(r.status, 422);
  const b = await r.json() as { code: string; error: string };
  assert.equal(b.code, 'provider_unreachable');
  assert.match(b.error, /connection refused/);

  const bad = await register('bad', 'ftp://example.com');
  assert.equal(bad.status, 400);
  assert.equal((await bad.json() as { code: string }).code, 'invalid_request');
  const list = await (await call(R, '/v1/internal/providers', { who: admin() })).json() as { items: Array<{ name: string }> };
  assert.deepEqual(list.items.filter((p) => p.name !== 'local').map((p) => p.name), ['scripted'], 'nothing refused was saved');
});

test('model_unknown and role_not_configured come back as codes; bad bodies are 400', async () => {
  let r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 503);
  assert.equal((await r.json() as { code: string }).code, 'role_not_configured');
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 404);
  assert.equal((await r.json() as { code: string }).code, 'model_unknown');
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default' } });
  assert.equal(r.status, 400);
  assert.equal((await r.json() as { code: string }).code, 'invalid_request');
  r = await call(R, '/v1/internal/roles/default', { method: 'PUT', who: admin(), body: { provider_id: providerId, model: 'gpt-nope' } });
  assert.equal(r.status, 400);
  assert.equal((await r.json() as { code: string }).code, 'model_unknown');
  r = await call(R, '/v1/internal/roles/nonsense', { method: 'PUT', who: admin(), body: { provider_id: providerId, model: 'scripted-model' } });
  assert.equal(r.status, 400);
});

test('model "default" answers through the mapped model; a priced generation record appears within a second', async () => {
  const put = await call(R, '/v1/internal/roles/default', { method: 'PUT', who: admin(), body: { provider_id: providerId, model: 'scripted-model' } });
  assert.equal(put.status, 200);
  const r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', messages: [{ role: 'user', content: 'hello there' }] } });
  assert.equal(r.status, 200);
  const body = await r.json() as { choices: Array<{ message: { content: string } }>; usage: { prompt_tokens: number; completion_tokens: number } };
  assert.equal(body.choices[0]!.message.content, 'echo: hello there');
  assert.equal(llm.requests.at(-1)!.body.model, 'scripted-model');
  assert.equal(llm.requests.at(-1)!.headers.authorization, 'Bearer sk-test-secret-123');
  assert.match(String(llm.requests.at(-1)!.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const id = r.headers.get('x-svc-generation-id')!;
  const t0 = Date.now();
  const g = await generation(id);
  assert.ok(Date.now() - t0 < 1000);
  assert.equal(g.role, 'default');
  assert.equal(g.model, 'scripted-model');
  assert.equal(g.provider_name, 'scripted');
  assert.equal(g.backend, 'chat_completions');
  assert.equal(g.prompt_tokens, body.usage.prompt_tokens);
  assert.equal(g.completion_tokens, body.usage.completion_tokens);
  assert.ok(g.latency_ms > 0);
  assert.equal(g.price_source, 'local');
  assert.equal(g.cost_usd, (g.prompt_tokens * 1000 + g.completion_tokens * 2000) / 1e6);
  assert.equal(g.user_id, 'user-1');
  const models = await (await call(R, '/v1/models')).json() as { data: Array<{ id: string; svc_role?: boolean }> };
  assert.ok(models.data.some((m) => m.id === 'scripted-model'));
  assert.ok(models.data.some((m) => m.id === 'default' && m.svc_role));
});

async function readSse(r: Response): Promise<{ text: string; events: Array<Record<string, unknown>>; done: boolean }> {
  const raw = await r.text();
  const events: Array<Record<string, unknown>> = [];
  let done = false;
  for (const block of raw.split('\n\n')) {
    const line = block.trim();
    if (!line.startsWith('data: ')) continue;
    if (line === 'data: [DONE]') { done = true; continue; }
    events.push(JSON.parse(line.slice(6)) as Record<string, unknown>);
  }
  const text = events.map((e) => ((e.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content ?? '')).join('');
  return { text, events, done };
}

test('streaming passes OpenAI chunks through; usage is captured without a usage chunk for the client', async () => {
  llm.setScript(() => ({ content: 'one two three four five six', chunkSize: 3 }));
  const r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', stream: true, messages: [{ role: 'user', content: 'count' }] } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type')!, /text\/event-stream/);
  const s = await readSse(r);
  assert.equal(s.text, 'one two three four five six');
  assert.ok(s.done);
  assert.ok(s.events.every((e) => !('usage' in e) || e.usage === undefined || e.usage === null), 'no usage chunk unless asked');
  const g = await generation(r.headers.get('x-svc-generation-id')!);
  assert.equal(g.stream, true);
  assert.equal(g.completion_tokens, 6);
  assert.ok(g.ttft_ms !== null && g.ttft_ms <= g.latency_ms);

  const r2 = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'count' }] } });
  const s2 = await readSse(r2);
  assert.ok(s2.events.some((e) => (e.usage as { completion_tokens?: number } | undefined)?.completion_tokens === 6));
  llm.setScript((req) => ({ content: `echo: ${String((req.body.messages as Array<{ content: string }>).at(-1)!.content)}` }));
});

test('tool calls pass through chat_completions and are translated both ways by the responses adapter', async () => {
  const tools = [{ type: 'function', function: { name: 'lookup', description: 'look up', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
  llm.setScript(() => ({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }] }));
  let r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', tools, messages: [{ role: 'user', content: 'find x' }] } });
  let b = await r.json() as { choices: Array<{ message: { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> }; finish_reason: string }> };
  assert.equal(b.choices[0]!.finish_reason, 'tool_calls');
  assert.equal(b.choices[0]!.message.tool_calls[0]!.function.name, 'lookup');

  const reg = await register('responses-provider', llm.baseUrl, 'responses');
  assert.equal(reg.status, 201);
  const rid = (await reg.json() as { id: string }).id;
  r = await call(R, '/v1/chat/completions', {
    method: 'POST',
    body: {
      model: 'responses-provider/scripted-model', tools, max_tokens: 50,
      messages: [
        { role: 'system', content: 'be brief' }, { role: 'user', content: 'find x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_0', content: 'nothing' },
      ],
    },
  });
  assert.equal(r.status, 200);
  b = await r.json() as typeof b;
  assert.equal(b.choices[0]!.message.tool_calls[0]!.id, 'call_1');
  assert.equal(b.choices[0]!.message.tool_calls[0]!.function.arguments, '{"q":"x"}');
  const sent = llm.requests.at(-1)!;
  assert.equal(sent.path, '/responses');
  assert.equal(sent.body.instructions, 'be brief');
  assert.equal(sent.body.max_output_tokens, 50);
  assert.deepEqual((sent.body.tools as Array<{ name: string }>)[0]!.name, 'lookup');
  assert.ok((sent.body.input as Array<{ type?: string }>).some((i) => i.type === 'function_call_output'));

  llm.setScript(() => ({ content: 'streamed via responses', toolCalls: [{ id: 'call_2', name: 'lookup', arguments: '{"q":"y"}' }] }));
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'responses-provider/scripted-model', stream: true, tools, messages: [{ role: 'user', content: 'x' }] } });
  const s = await readSse(r);
  assert.equal(s.text, 'streamed via responses');
  assert.ok(s.done);
  const calls = s.events.flatMap((e) => ((e.choices as Array<{ delta?: { tool_calls?: Array<{ id?: string; function?: { arguments?: string } }> } }>)?.[0]?.delta?.tool_calls ?? []));
  assert.equal(calls[0]!.id, 'call_2');
  assert.equal(calls.map((c) => c.function?.arguments ?? '').join(''), '{"q":"y"}');
  const g = await generation(r.headers.get('x-svc-generation-id')!);
  assert.equal(g.backend, 'responses');
  assert.ok(g.prompt_tokens >= 1);
  llm.setScript((req) => ({ content: `echo: ${String((req.body.messages as Array<{ content: string }>).at(-1)!.content)}` }));
  assert.equal((await call(R, `/v1/internal/providers/${rid}`, { method: 'DELETE', who: admin() })).status, 204);
});

test('a failing first target falls over to the next and cools down; all failing gives backend_unavailable', async () => {
  const reg = await register('flaky', flaky.baseUrl);
  assert.equal(reg.status, 201);
  const fid = (await reg.json() as { id: string }).id;
  const put = await call(R, '/v1/internal/roles/title', { method: 'PUT', who: admin(), body: { targets: [{ provider_id: fid, model: 'flaky-model' }, { provider_id: providerId, model: 'scripted-model' }] } });
  assert.equal(put.status, 200);
  const before = flaky.requests.length;
  let r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'title', messages: [{ role: 'user', content: 'a title' }] } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-svc-route'), 'scripted/scripted-model');
  const g = await generation(r.headers.get('x-svc-generation-id')!);
  assert.equal(g.attempts, 2);
  const routes = await (await call(R, '/v1/routes')).json() as { items: Array<{ role: string; targets: Array<{ provider_id: string; cooling_down_until: string | null }> }> };
  const title = routes.items.find((x) => x.role === 'title')!;
  assert.ok(title.targets[0]!.cooling_down_until !== null, 'flaky cools down');
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'title', messages: [{ role: 'user', content: 'again' }] } });
  assert.equal(r.status, 200);
  assert.equal(flaky.requests.length, before + 1, 'the cooling backend was skipped');

  await call(R, '/v1/internal/roles/classifier', { method: 'PUT', who: admin(), body: { provider_id: fid, model: 'flaky-model' } });
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'classifier', messages: [{ role: 'user', content: 'x' }] } });
  assert.equal(r.status, 503);
  assert.equal((await r.json() as { code: string }).code, 'backend_unavailable');
  assert.equal((await call(R, `/v1/internal/providers/${fid}`, { method: 'DELETE', who: admin() })).status, 204);
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'classifier', messages: [{ role: 'user', content: 'x' }] } });
  assert.equal((await r.json() as { code: string }).code, 'role_not_configured', 'deleting the provider removed its targets');
});

test('a client that disconnects mid-stream aborts the upstream call; the record says aborted', async () => {
  llm.setScript(() => ({ content: 'x'.repeat(400), chunkSize: 2, chunkDelayMs: 10 }));
  const ac = new AbortController();
  const r = await fetch(`${R}/v1/chat/completions`, {
    method: 'POST', signal: ac.signal, headers: { 'content-type': 'application/json', 'x-svc-principal': user() },
    body: JSON.stringify({ model: 'default', stream: true, messages: [{ role: 'user', content: 'long' }] }),
  });
  const id = r.headers.get('x-svc-generation-id')!;
  const reader = r.body!.getReader();
  await reader.read();
  ac.abort();
  const g = await generation(id);
  assert.equal(g.status, 'aborted');
  llm.setScript((req) => ({ content: `echo: ${String((req.body.messages as Array<{ content: string }>).at(-1)!.content)}` }));
});

test('a hard budget refuses with budget_exceeded, a soft one only warns', async () => {
  let r = await call(O, '/v1/admin/observability/budgets/acme', { method: 'PUT', who: admin(), body: { period: 'month', soft_limit_usd: 0, hard_limit_usd: null } });
  assert.equal(r.status, 200);
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 200);
  assert.match(r.headers.get('x-svc-budget-warning') ?? '', /soft budget/);
  r = await call(O, '/v1/admin/observability/budgets/acme', { method: 'PUT', who: admin(), body: { period: 'day', soft_limit_usd: null, hard_limit_usd: 0.000001 } });
  const b = await r.json() as { state: string; spend_usd: number };
  assert.equal(b.state, 'hard_exceeded');
  r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'default', messages: [{ role: 'user', content: 'hi' }] } });
  assert.equal(r.status, 429);
  assert.equal((await r.json() as { code: string }).code, 'budget_exceeded');
  const list = await (await call(O, '/v1/admin/observability/budgets', { who: admin() })).json() as { items: Array<{ tenant_id: string }> };
  assert.ok(list.items.some((x) => x.tenant_id === 'acme'));
  await call(O, '/v1/admin/observability/budgets/acme', { method: 'PUT', who: admin(), body: { period: 'day', soft_limit_usd: null, hard_limit_usd: null } });
});

test('traceparent is accepted and propagated; router and observability spans land in one trace', async () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const r = await call(R, '/v1/chat/completions', { method: 'POST', headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` }, body: { model: 'default', messages: [{ role: 'user', content: 'trace me' }] } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('x-svc-trace-id'), traceId);
  assert.match(String(llm.requests.at(-1)!.headers.traceparent), new RegExp(`^00-${traceId}-`));
  const trace = await eventually(async () => {
    const t = await call(O, `/v1/admin/observability/traces/${traceId}`, { who: admin() });
    if (t.status !== 200) return undefined;
    const j = await t.json() as { spans: Array<{ service: string; kind: string; parent_span_id: string | null; span_id: string; name: string }> };
    return j.spans.some((s) => s.service === 'observability') && j.spans.filter((s) => s.service === 'inference-router').length >= 2 ? j : undefined;
  }, 3000);
  const server = trace.spans.find((s) => s.service === 'inference-router' && s.kind === 'server')!;
  assert.equal(server.parent_span_id, '00f067aa0ba902b7');
  assert.ok(trace.spans.some((s) => s.kind === 'client' && s.parent_span_id === server.span_id));
  const list = await (await call(O, '/v1/admin/observability/traces', { who: admin() })).json() as { items: Array<{ trace_id: string; services: string[] }> };
  assert.ok(list.items.some((t) => t.trace_id === traceId && t.services.includes('observability')));
  assert.equal((await call(O, '/v1/admin/observability/traces', { who: user() })).status, 403);
});

test('observability lists, filters, aggregates and guards generation records', async () => {
  const page = await (await call(O, '/v1/generations?limit=2', { who: admin() })).json() as { items: GenerationRecord[]; next_cursor?: string };
  assert.equal(page.items.length, 2);
  assert.ok(page.next_cursor);
  const next = await (await call(O, `/v1/generations?limit=2&cursor=${page.next_cursor}`, { who: admin() })).json() as { items: GenerationRecord[] };
  assert.ok(next.items[0]!.event_id < page.items[1]!.event_id);
  const byRole = await (await call(O, '/v1/generations?role=title', { who: admin() })).json() as { items: GenerationRecord[] };
  assert.ok(byRole.items.length >= 2 && byRole.items.every((g) => g.role === 'title'));
  const stats = await (await call(O, '/v1/generations/stats', { who: admin() })).json() as { totals: { count: number; cost_usd: number }; by_model: Array<{ key: string }>; by_role: unknown[]; by_day: unknown[]; by_provider: unknown[] };
  assert.ok(stats.totals.count >= 5);
  assert.ok(stats.totals.cost_usd > 0);
  assert.ok(stats.by_model.some((b) => b.key === 'scripted-model'));
  const other = await (await call(O, '/v1/generations', { who: stamp(keys, { id: 'someone-else' }) })).json() as { items: unknown[] };
  assert.equal(other.items.length, 0, 'users see only their own records');
  const post = await call(O, '/v1/generations', { method: 'POST', who: user(), body: {} });
  assert.equal(post.status, 400);
  const forged = await call(O, '/v1/generations', { method: 'POST', who: user(), body: { ...page.items[0], event_id: '01JAAAAAAAAAAAAAAAAAAAAAAA', tenant_id: undefined, cost_usd: 1, price_source: undefined, ingested_at: undefined } });
  assert.ok(forged.status === 400 || forged.status === 403);
  const dup = { ...page.items[0]! } as Record<string, unknown>;
  for (const k of ['tenant_id', 'price_source', 'ingested_at']) delete dup[k];
  const again = await call(O, '/v1/generations', { method: 'POST', who: service(), body: dup });
  assert.equal(again.status, 200, 'an event_id already stored is a no-op');
  const usage = await (await call(O, '/v1/admin/observability/usage', { who: admin() })).json() as { by_user: Array<{ key: string }> };
  assert.ok(usage.by_user.some((u) => u.key === 'user-1'));
  const prices = await (await call(O, '/v1/prices')).json() as { items: Array<{ model: string; source: string; in: number }> };
  assert.deepEqual(prices.items[0], { model: 'scripted-model', in: 1000, out: 2000, unit: 'usd_per_1m_tokens', source: 'local', updated_at: null });
  const refresh = await call(O, '/v1/prices/refresh', { method: 'POST', who: admin() });
  assert.equal(refresh.status, 409);
  assert.equal((await refresh.json() as { code: string }).code, 'pricing_url_missing');
});

test('the local GGUF engine is listed in /v1/models and generates text', async () => {
  const models = await (await call(R, '/v1/models')).json() as { data: Array<{ id: string; owned_by: string }> };
  assert.ok(models.data.some((m) => m.id === 'stories260K' && m.owned_by === 'local'));
  const r = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'stories260K', max_tokens: 24, messages: [{ role: 'user', content: 'Once upon a time' }] } });
  assert.equal(r.status, 200, await r.clone().text());
  const b = await r.json() as { choices: Array<{ message: { content: string } }>; usage: { completion_tokens: number } };
  assert.ok(b.choices[0]!.message.content.trim().length > 10, b.choices[0]!.message.content);
  assert.ok(b.usage.completion_tokens > 0);
  const g = await generation(r.headers.get('x-svc-generation-id')!);
  assert.equal(g.backend, 'local_llama_cpp');
  assert.equal(g.provider_id, 'local');
  assert.equal(g.deterministic, true);
  assert.match(g.weight_hash!, /^270cba1b[0-9a-f]{56}$/);
  const s = await call(R, '/v1/chat/completions', { method: 'POST', body: { model: 'local/stories260K', stream: true, max_tokens: 16, messages: [{ role: 'user', content: 'The cat' }] } });
  const sse = await readSse(s);
  assert.ok(sse.done);
  assert.ok(sse.text.length > 0);
});
