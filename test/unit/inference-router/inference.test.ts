/**
 * The router's inference use cases over fake ports (issue 10: the fallback loop, budget gate,
 * cooldowns and generation records out of the route): one loop for chat and embeddings, records
 * for every outcome, errors as `DomainError`s with the table's statuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActiveSpan } from '../../../services/observability/src/client.js';
import type { BudgetStatus, GenerationInput, SpanRecord } from '../../../services/observability/src/contracts.js';
import { INFERENCE_ROUTER_ERRORS } from '../../../services/inference-router/src/contracts.js';
import { budgetGate } from '../../../services/inference-router/src/domain/budget.js';
import { listModels, listRoutes } from '../../../services/inference-router/src/domain/catalog.js';
import { exhaustedError, tryInOrder } from '../../../services/inference-router/src/domain/fallback.js';
import { GenerationRecorder, startCall } from '../../../services/inference-router/src/domain/generation.js';
import { InferenceService } from '../../../services/inference-router/src/domain/inference.js';
import { Cooldowns, Snapshot } from '../../../services/inference-router/src/domain/snapshot.js';
import { UpstreamError, type Backend, type StreamPiece, type Upstream } from '../../../services/inference-router/src/domain/upstream.js';
import { answerHeaders } from '../../../services/inference-router/src/routes/headers.js';
import { isDomainError, statusOf, type DomainError } from '../../../services/shared/kit/domain-error.js';

const snap = new Snapshot([
  { id: 'p1', name: 'One', baseUrl: 'http://one/v1', adapter: 'chat_completions', models: ['m1'], apiKey: 'k1', createdAt: '2024-01-01T00:00:00.000Z' },
  { id: 'p2', name: 'Two', baseUrl: 'http://two/v1', adapter: 'responses', models: ['m2'], apiKey: null, createdAt: null },
  { id: 'local', name: 'local', baseUrl: 'local', adapter: 'local', models: ['tiny'], apiKey: null, createdAt: null, paths: new Map([['tiny', '/m/llm/tiny.gguf']]) },
], [{ role: 'default', targets: [{ provider_id: 'p1', model: 'm1' }, { provider_id: 'p2', model: 'm2' }] }]);

type Script = (b: Backend) => Promise<unknown>;

function harness(opts: { script: Script; budget?: BudgetStatus | null }) {
  const records: GenerationInput[] = [];
  const spans: SpanRecord[] = [];
  const warnings: string[] = [];
  const cooldowns = new Cooldowns(30_000);
  const tried: string[] = [];
  const run = async (b: Backend): Promise<never> => { tried.push(`${b.providerName}/${b.model}`); return opts.script(b) as Promise<never>; };
  const upstream: Upstream = { complete: run, stream: run, embed: run };
  let invalidated = 0;
  const budget = { status: async () => opts.budget ?? null, invalidate: () => { invalidated++; } };
  const tracer = { start: (name: string) => new ActiveSpan((s) => spans.push(s), 'inference-router', name, 'server', null) };
  const service = new InferenceService({
    snapshot: () => snap, cooldowns, upstream, budget, tracer, log: { warn: (_o, m) => { warnings.push(m); } },
    recorder: new GenerationRecorder({ sink: { report: (r) => { records.push(r); } }, budget, localModels: () => [], hashes: { hash: async () => 'h', peek: () => null } }),
    statusOf: (err: DomainError) => statusOf(INFERENCE_ROUTER_ERRORS, err.code, err.situation),
  });
  const request = new ActiveSpan((s) => spans.push(s), 'inference-router', 'POST /v1/chat/completions', 'server', null);
  const caller = { userId: 'u1', turnId: 't1', span: request, clientSignal: () => new AbortController().signal };
  return { service, records, spans, warnings, cooldowns, tried, caller, invalidated: () => invalidated };
}

const body = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }], ...extra });
const completion = { body: { id: 'c', choices: [] }, usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 }, providerVersion: 'v1' };

async function codeAndStatus(p: Promise<unknown>): Promise<[string, number]> {
  try { await p; } catch (e) {
    assert.ok(isDomainError(e));
    return [e.code, statusOf(INFERENCE_ROUTER_ERRORS, e.code, e.situation)];
  }
  return ['none', 0];
}

test('a failing first target falls over to the next, cools down and is recorded with both attempts', async () => {
  const h = harness({ script: async (b) => { if (b.providerId === 'p1') throw new UpstreamError('boom', 'server', 500); return completion; } });
  const out = await h.service.chat(body('default'), h.caller);
  assert.equal(out.kind, 'completion');
  assert.deepEqual(h.tried, ['One/m1', 'Two/m2']);
  assert.equal(out.kind === 'completion' && out.meta.route, 'Two/m2');
  assert.notEqual(h.cooldowns.coolingUntil({ providerId: 'p1', model: 'm1' }), null);
  assert.deepEqual(h.warnings, ['backend failed; trying the next']);
  const rec = h.records[0]!;
  assert.equal(rec.attempts, 2);
  assert.equal(rec.status, 'ok');
  assert.equal(rec.role, 'default');
  assert.equal(rec.provider_version, 'v1');
  assert.equal(rec.total_tokens, 5);
  assert.equal(rec.user_id, 'u1');
  assert.equal(rec.turn_id, 't1');
  assert.equal(h.invalidated(), 1, 'usage drops the cached budget answer');
  const failed = h.spans.find((s) => s.name === 'chat One/m1')!;
  assert.equal(failed.status, 'error');
  assert.equal(failed.attributes['error.kind'], 'server');
  assert.equal(h.spans.find((s) => s.name === 'chat Two/m2')!.attributes['gen_ai.usage.output_tokens'], 3);
});

test('errors are domain codes with the statuses of the table, and each is recorded with that status', async () => {
  let h = harness({ script: async () => { throw new UpstreamError('needs key', 'key_missing', 401); } });
  assert.deepEqual(await codeAndStatus(h.service.chat(body('default'), h.caller)), ['provider_key_missing', 503]);
  assert.equal(h.records[0]!.http_status, 503);
  assert.equal(h.records[0]!.error_code, 'provider_key_missing');

  h = harness({ script: async () => { throw new UpstreamError('down', 'unreachable'); } });
  assert.deepEqual(await codeAndStatus(h.service.embeddings({ model: 'default', input: 'x' }, h.caller)), ['backend_unavailable', 503]);
  assert.equal(h.warnings.length, 0, 'embedding failures are not logged one by one');

  h = harness({ script: async () => { throw new UpstreamError('too big', 'rejected', 413); } });
  assert.deepEqual(await codeAndStatus(h.service.chat(body('default'), h.caller)), ['invalid_request', 413]);
  assert.deepEqual(h.tried, ['One/m1'], 'a refused request is not retried');
  h = harness({ script: async () => { throw new UpstreamError('too big', 'rejected', 413); } });
  assert.deepEqual(await codeAndStatus(h.service.embeddings({ model: 'default', input: 'x' }, h.caller)), ['invalid_request', 400]);

  h = harness({ script: async () => completion });
  assert.deepEqual(await codeAndStatus(h.service.chat(body('nope'), h.caller)), ['model_unknown', 404]);
  assert.deepEqual(await codeAndStatus(h.service.chat(body('title'), h.caller)), ['role_not_configured', 503]);
  assert.deepEqual(await codeAndStatus(h.service.embeddings({ model: 'tiny', input: 'x' }, h.caller)), ['invalid_request', 400]);
  assert.deepEqual(h.records.map((r) => [r.error_code, r.http_status]), [['model_unknown', 404], ['role_not_configured', 503], ['invalid_request', 400]]);
  assert.equal(h.tried.length, 0);
});

test('the budget gate refuses at the hard limit and warns at the soft one', async () => {
  const status = (state: BudgetStatus['state']): BudgetStatus => ({
    tenant_id: 'acme', period: 'month', soft_limit_usd: 1, hard_limit_usd: 2, period_start: '2024-01-01T00:00:00.000Z', spend_usd: 1.5, state, updated_at: null, updated_by: null,
  });
  assert.equal(await budgetGate({ status: async () => null, invalidate: () => {} }), null);
  assert.equal(await budgetGate({ status: async () => status('soft_exceeded'), invalidate: () => {} }), 'soft budget reached: 1.5 of 1 USD this month');
  let h = harness({ script: async () => completion, budget: status('hard_exceeded') });
  assert.deepEqual(await codeAndStatus(h.service.chat(body('default'), h.caller)), ['budget_exceeded', 429]);
  assert.equal(h.records[0]!.http_status, 429);
  h = harness({ script: async () => completion, budget: status('soft_exceeded') });
  const out = await h.service.chat(body('default'), h.caller);
  assert.equal(out.kind === 'completion' && out.meta.budgetWarning, 'soft budget reached: 1.5 of 1 USD this month');
});

test('an aborted call answers aborted and is recorded 499 client_closed', async () => {
  const h = harness({ script: async () => { throw new UpstreamError('client closed the request', 'aborted'); } });
  const out = await h.service.chat(body('default'), h.caller);
  assert.equal(out.kind, 'aborted');
  assert.deepEqual([h.records[0]!.status, h.records[0]!.http_status, h.records[0]!.error_code], ['aborted', 499, 'client_closed']);
  assert.deepEqual(h.tried, ['One/m1']);
});

test('a stream measures time to first token and usage as it passes, and a broken one cools its backend down', async () => {
  async function* pieces(): AsyncIterable<StreamPiece> {
    yield { sse: 'data: {}\n\n', content: false, usage: null };
    yield { sse: 'data: {"x":1}\n\n', content: true, usage: null };
    yield { sse: '', content: false, usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };
  }
  const h = harness({ script: async () => ({ providerVersion: 'sv', pieces: pieces() }) });
  const out = await h.service.chat(body('default', { stream: true }), h.caller);
  assert.equal(out.kind, 'stream');
  if (out.kind !== 'stream') return;
  let n = 0;
  for await (const _p of out.stream.pieces) n++;
  assert.equal(n, 3);
  out.stream.end('ok');
  const rec = h.records[0]!;
  assert.equal(rec.stream, true);
  assert.equal(rec.total_tokens, 3);
  assert.ok(typeof rec.ttft_ms === 'number' && rec.ttft_ms >= 0);
  assert.equal(h.spans.find((s) => s.kind === 'server' && s.name.startsWith('POST'))!.attributes.outcome, 'ok');
  const event = out.stream.broke(new Error('reset'));
  assert.deepEqual(event, { message: 'the stream from One broke: reset', code: 'backend_unavailable' });
  assert.notEqual(h.cooldowns.coolingUntil({ providerId: 'p1', model: 'm1' }), null);
});

test('the loop rethrows a failure that is not an upstream one, and names the exhausted error', async () => {
  const st = startCall('m', false, false);
  const parent = new ActiveSpan(null, 's', 'p', 'server', null);
  await assert.rejects(tryInOrder({ cooldowns: new Cooldowns(0), log: { warn: () => {} } }, {
    op: 'chat', candidates: snap.resolve('default').backends, state: st, parent: () => parent, reportFailures: true,
    run: async () => { throw new TypeError('bug'); },
  }), TypeError);
  assert.equal(st.attempts, 1);
  const e = exhaustedError([new UpstreamError('a', 'server'), new UpstreamError('b', 'timeout')], 'model "x"');
  assert.equal(e.code, 'backend_unavailable');
  assert.equal(e.message, 'no backend could serve model "x": a; b');
  assert.equal(exhaustedError([], 'model "x"').code, 'backend_unavailable');
});

test('models and routes list what the snapshot serves; answer headers name record, route and warning', () => {
  const models = listModels(snap, { hash: async () => 'h', peek: (p) => (p === '/m/llm/tiny.gguf' ? 'abc' : null) });
  assert.deepEqual(models.data.map((m) => m.id), ['m1', 'm2', 'tiny', 'default']);
  assert.equal(models.data[0]!.created, 1704067200);
  assert.equal(models.data[2]!.weight_hash, 'abc');
  assert.equal(models.data[3]!.svc_role, true);
  assert.ok(!('weight_hash' in models.data[0]!));
  const c = new Cooldowns(30_000, () => 0);
  c.fail({ providerId: 'p2', model: 'm2' });
  const routes = listRoutes(snap, c);
  assert.deepEqual(routes.items[0]!.targets.map((t) => [t.provider_name, t.adapter, t.available, t.cooling_down_until]), [
    ['One', 'chat_completions', true, null], ['Two', 'responses', true, '1970-01-01T00:00:30.000Z'],
  ]);
  assert.deepEqual(answerHeaders({ generationId: 'g', route: null, budgetWarning: null }), { 'x-svc-generation-id': 'g' });
  assert.deepEqual(Object.keys(answerHeaders({ generationId: 'g', route: 'a/b', budgetWarning: 'w' })), ['x-svc-generation-id', 'x-svc-route', 'x-svc-budget-warning']);
});
