/**
 * Observability's use cases over in-memory stores (issue 10: pagination, stats and budget rules out
 * of the routes): cursor pages, the record filters a user may apply, ingestion rules, budget states
 * and the soft/hard rule, pricing and refresh of the price list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GenerationInput, GenerationRecord, ModelPrice } from '../../../services/observability/src/contracts.js';
import { OBSERVABILITY_ERRORS } from '../../../services/observability/src/contracts.js';
import { BudgetService } from '../../../services/observability/src/domain/budgets.js';
import { filterFor, GenerationService } from '../../../services/observability/src/domain/generations.js';
import { pageOf } from '../../../services/observability/src/domain/pagination.js';
import { PriceBook } from '../../../services/observability/src/domain/price-book.js';
import type { BudgetRow, GenerationFilter, GenerationStore, ListPrice, PriceStore } from '../../../services/observability/src/domain/ports.js';
import { TraceService } from '../../../services/observability/src/domain/traces.js';
import { isDomainError, statusOf } from '../../../services/shared/kit/domain-error.js';

const admin = { id: 'a', roles: ['admin'], auth_method: 'password' as const };
const user = { id: 'u', roles: ['user'], auth_method: 'password' as const };
const service = { id: 'service:x', roles: ['service-account'], auth_method: 'service' as const };

async function codeOf(fn: () => unknown): Promise<[string, number]> {
  try { await fn(); } catch (e) { assert.ok(isDomainError(e)); return [e.code, statusOf(OBSERVABILITY_ERRORS, e.code, e.situation)]; }
  return ['none', 0];
}

class MemGenerations implements GenerationStore {
  rows: GenerationRecord[] = [];
  filters: GenerationFilter[] = [];
  spent = 0;
  insert(r: GenerationRecord): boolean { if (this.rows.some((x) => x.event_id === r.event_id)) return false; this.rows.push(r); return true; }
  get(_t: string, id: string): GenerationRecord | null { return this.rows.find((r) => r.event_id === id) ?? null; }
  list(f: GenerationFilter, before: string | undefined, limit: number): GenerationRecord[] {
    this.filters.push(f);
    return this.rows.filter((r) => before === undefined || r.event_id < before).sort((a, b) => (a.event_id < b.event_id ? 1 : -1)).slice(0, limit);
  }
  stats(): [] { return []; }
  spend(): number { return this.spent; }
}

class MemPrices implements PriceStore {
  list: ListPrice[] = [];
  at: string | null = null;
  replace(prices: Record<string, ModelPrice>, at: string): number {
    this.list = Object.entries(prices).map(([model, p]) => ({ model, ...p, updated_at: at })); this.at = at; return this.list.length;
  }
  all(): ListPrice[] { return this.list; }
  refreshedAt(): string | null { return this.at; }
}

const input = (id: string, over: Partial<GenerationInput> = {}): GenerationInput => ({
  event_id: id, created_at: '2024-05-01T10:00:00Z', user_id: 'u', turn_id: null, trace_id: null, span_id: null, role: null, requested_model: 'm', model: 'm',
  provider_id: 'p', provider_name: 'prov', backend: 'chat_completions', provider_version: null, deterministic: false, weight_hash: null, stream: false,
  status: 'ok', error_code: null, http_status: 200, latency_ms: 1, ttft_ms: null, prompt_tokens: 1000, completion_tokens: 2000, total_tokens: 3000, attempts: 1, ...over,
});

test('a page holds one row less than fetched and names the next cursor only when more follow', () => {
  assert.deepEqual(pageOf([1, 2, 3], 2, String), { items: [1, 2], next_cursor: '2' });
  assert.deepEqual(pageOf([1, 2], 2, String), { items: [1, 2] });
  assert.deepEqual(pageOf([], 5, String), { items: [] });
});

test('a user is pinned to their own records; admins and services may filter by user; times are normalised', () => {
  const q = { user_id: 'other', since: '2024-05-01T12:00:00+02:00' };
  assert.equal(filterFor('acme', user, q).userId, 'u');
  assert.equal(filterFor('acme', admin, q).userId, 'other');
  assert.equal(filterFor('acme', service, {}).userId, undefined);
  assert.equal(filterFor('acme', admin, q).since, '2024-05-01T10:00:00.000Z');
});

test('ingestion is for services, priced locally first, idempotent by event_id; reads hide other users\' records', async () => {
  const store = new MemGenerations();
  const prices = new PriceBook({ store: new MemPrices(), source: { fetch: async () => ({}) }, tenantId: 'acme', localPrices: { m: { in: 1, out: 2 } }, pricingModelsUrl: null, pricingTimeoutMs: 1 });
  const g = new GenerationService({ store, prices, tenantId: 'acme' });
  assert.deepEqual(await codeOf(() => g.ingest(user, input('01J0000000000000000000000A'))), ['service_account_required', 403]);
  const first = await g.ingest(service, input('01J0000000000000000000000A', { cost_usd: 9 }));
  assert.equal(first.fresh, true);
  assert.equal(first.record.cost_usd, 0.005);
  assert.equal(first.record.price_source, 'local');
  assert.equal(first.record.tenant_id, 'acme');
  assert.equal(first.record.created_at, '2024-05-01T10:00:00.000Z');
  assert.equal((await g.ingest(service, input('01J0000000000000000000000A'))).fresh, false);
  const caller = (await g.ingest(service, input('01J0000000000000000000000B', { model: 'x', cost_usd: 0.25, user_id: 'v' }))).record;
  assert.deepEqual([caller.cost_usd, caller.price_source], [0.25, 'caller']);
  assert.deepEqual(await codeOf(() => g.get(user, '01J0000000000000000000000B')), ['not_found', 404]);
  assert.equal((await g.get(admin, '01J0000000000000000000000B')).user_id, 'v');
  const page = await g.list(admin, { limit: 1 });
  assert.deepEqual(page.items.map((r) => r.event_id), ['01J0000000000000000000000B']);
  assert.equal(page.next_cursor, '01J0000000000000000000000B');
  assert.deepEqual((await g.list(admin, { limit: 1, cursor: page.next_cursor })).items.map((r) => r.event_id), ['01J0000000000000000000000A']);
});

test('budget states follow the spend of the current period; soft above hard is refused; the check is for services and admins', async () => {
  const rows = new Map<string, BudgetRow>();
  const generations = new MemGenerations();
  const b = new BudgetService({ budgets: { get: (t) => rows.get(t) ?? null, all: () => [...rows.values()], put: (r) => { rows.set(r.tenant_id, r); } }, generations, tenantId: 'acme' });
  const none = await b.status('acme', new Date('2024-05-17T12:00:00Z'));
  assert.deepEqual([none.period, none.period_start, none.state, none.soft_limit_usd], ['month', '2024-05-01T00:00:00.000Z', 'ok', null]);
  assert.deepEqual(await codeOf(() => b.set('acme', { period: 'day', soft_limit_usd: 5, hard_limit_usd: 1 }, 'a')), ['invalid_request', 400]);
  generations.spent = 1.5;
  assert.equal((await b.set('acme', { period: 'day', soft_limit_usd: 1, hard_limit_usd: 2 }, 'a')).state, 'soft_exceeded');
  generations.spent = 2;
  assert.equal((await b.check(service, 'acme')).state, 'hard_exceeded');
  assert.deepEqual(await codeOf(() => b.check(user, 'acme')), ['service_account_required', 403]);
  await b.set('zeta', { period: 'month' }, 'a');
  assert.deepEqual((await b.list()).items.map((s) => s.tenant_id), ['acme', 'zeta']);
});

test('the price list refreshes from its source, and its absence is pricing_url_missing', async () => {
  const store = new MemPrices();
  const book = new PriceBook({ store, source: { fetch: async () => ({ 'm-list': { in: 3, out: 4 }, m: { in: 9, out: 9 } }) }, tenantId: 'acme', localPrices: { m: { in: 1, out: 2 } }, pricingModelsUrl: 'http://prices', pricingTimeoutMs: 1 });
  const r = await book.refresh();
  assert.equal(r.updated, 2);
  assert.deepEqual((await book.prices()).items.map((p) => [p.model, p.source]), [['m', 'local'], ['m-list', 'list']]);
  assert.equal(book.price(input('01J0000000000000000000000C', { model: 'm-list' })).price_source, 'list');
  const none = new PriceBook({ store, source: { fetch: async () => ({}) }, tenantId: 'acme', localPrices: {}, pricingModelsUrl: null, pricingTimeoutMs: 1 });
  await assert.rejects(none.refresh(), (e: unknown) => isDomainError(e) && e.code === 'pricing_url_missing' && statusOf(OBSERVABILITY_ERRORS, e.code) === 409);
});

test('posted spans are for services and are normalised; an unknown trace is not_found', async () => {
  const stored: unknown[] = [];
  const t = new TraceService({ insert: (s) => { stored.push(...s); return s.length; }, trace: () => [], traces: () => [], prune: () => 0 });
  const span = { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), service: 's', name: 'n', kind: 'internal' as const, start_time: '2024-05-01T12:00:00+02:00', duration_ms: 1, status: 'ok' as const };
  assert.deepEqual(await codeOf(() => t.ingest(user, [span])), ['service_account_required', 403]);
  assert.equal(await t.ingest(service, [span]), 1);
  assert.deepEqual(stored[0], { ...span, parent_span_id: null, start_time: '2024-05-01T10:00:00.000Z', attributes: {} });
  assert.deepEqual(await codeOf(() => t.trace('c'.repeat(32))), ['not_found', 404]);
});
