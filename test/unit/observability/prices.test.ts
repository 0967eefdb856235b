/** Prices, costs, budgets and trace context (spec "Observability"; DESIGN.md: USD per 1M tokens). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetState, costUsd, lookupPrice, parsePriceList, periodStart, validateLocalPrices } from '../../../services/observability/src/domain/prices.js';
import { formatTraceparent, parseTraceparent } from '../../../services/observability/src/client.js';

test('price lists in LiteLLM, OpenRouter and our own form convert to USD per 1M tokens', () => {
  assert.deepEqual(parsePriceList({ 'gpt-x': { input_cost_per_token: 0.0000025, output_cost_per_token: 0.00001 }, sample_spec: { foo: 1 } }), { 'gpt-x': { in: 2.5, out: 10 } });
  assert.deepEqual(parsePriceList({ data: [{ id: 'a/b', pricing: { prompt: '0.000001', completion: '0.000002' } }, { id: 'c' }] }), { 'a/b': { in: 1, out: 2 } });
  assert.deepEqual(parsePriceList({ m: { in: 0.15, out: 0.6 } }), { m: { in: 0.15, out: 0.6 } });
  assert.throws(() => parsePriceList([1, 2]));
});

test('local prices validate; cost uses per-1M prices; local beats the list', () => {
  assert.throws(() => validateLocalPrices({ m: { in: -1, out: 1 } }), /entry "m"/);
  assert.throws(() => validateLocalPrices([]));
  assert.equal(costUsd({ in: 0.15, out: 0.6 }, 1000, 500), 0.00045);
  const local = { 'llama': { in: 0, out: 0 } };
  assert.deepEqual(lookupPrice('llama', 'local', local, () => ({ in: 9, out: 9 })), { price: { in: 0, out: 0 }, source: 'local' });
  assert.deepEqual(lookupPrice('vendor/gpt-x', 'openai', {}, (m) => (m === 'gpt-x' ? { in: 1, out: 2 } : undefined)), { price: { in: 1, out: 2 }, source: 'list' });
  assert.equal(lookupPrice('unknown', 'p', {}, () => undefined), null);
});

test('budget periods and states', () => {
  const now = new Date('2025-03-17T15:04:05.000Z');
  assert.equal(periodStart('day', now), '2025-03-17T00:00:00.000Z');
  assert.equal(periodStart('month', now), '2025-03-01T00:00:00.000Z');
  assert.equal(budgetState(5, 4, 10), 'soft_exceeded');
  assert.equal(budgetState(10, 4, 10), 'hard_exceeded');
  assert.equal(budgetState(1, null, null), 'ok');
});

test('W3C traceparent parsing accepts valid headers and rejects invalid ones', () => {
  const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  assert.deepEqual(parseTraceparent(tp), { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', sampled: true });
  assert.equal(formatTraceparent('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'), tp);
  for (const bad of [undefined, '', 'garbage', `ff-${tp.slice(3)}`, '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', `${tp}-extra`]) {
    assert.equal(parseTraceparent(bad), null, String(bad));
  }
});
