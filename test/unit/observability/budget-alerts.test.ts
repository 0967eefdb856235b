/**
 * Budget threshold notifications (issue 13 item 1): after new generation records, a budget whose
 * spend reached its soft or hard limit notifies the admin who set it once per period and state;
 * checks are coalesced per tenant; a tenant without limits or a budget set by nobody sends nothing;
 * the generation service calls its hook only for new records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NotificationCreate } from '../../../services/agent-runtime/src/contracts.js';
import type { BudgetStatus, GenerationRecord } from '../../../services/observability/src/contracts.js';
import { BudgetAlerts, budgetNotice } from '../../../services/observability/src/domain/budget-alerts.js';
import { GenerationService } from '../../../services/observability/src/domain/generations.js';
import type { GenerationStore } from '../../../services/observability/src/domain/ports.js';
import type { PriceBook } from '../../../services/observability/src/domain/price-book.js';

function status(over: Partial<BudgetStatus>): BudgetStatus {
  return {
    tenant_id: 't', period: 'month', soft_limit_usd: 10, hard_limit_usd: 20, period_start: '2026-01-01T00:00:00.000Z', spend_usd: 0,
    state: 'ok', updated_at: 'x', updated_by: 'admin-1', ...over,
  };
}

test('once per period and state, to the admin who set the budget; coalesced per tenant', async () => {
  let st = status({});
  let checks = 0;
  const sent: NotificationCreate[] = [];
  const queue: Array<() => void> = [];
  const alerts = new BudgetAlerts({ status: () => { checks++; return st; }, hasLimits: () => true, sink: (n) => sent.push(n), defer: (fn) => queue.push(fn) });
  const flush = async (): Promise<void> => { while (queue.length) queue.shift()!(); await new Promise(setImmediate); };
  alerts.recorded('t'); await flush();
  assert.equal(sent.length, 0, 'ok');
  st = status({ spend_usd: 11, state: 'soft_exceeded' });
  alerts.recorded('t'); alerts.recorded('t'); alerts.recorded('t');
  await flush();
  assert.equal(checks, 2, 'three records, one check');
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.user_id, 'admin-1');
  assert.equal(sent[0]!.kind, 'budget_threshold');
  assert.equal(sent[0]!.idempotency_key, 'budget:t:2026-01-01T00:00:00.000Z:soft_exceeded');
  alerts.recorded('t'); await flush();
  assert.equal(sent.length, 1, 'same period and state');
  st = status({ spend_usd: 25, state: 'hard_exceeded' });
  alerts.recorded('t'); await flush();
  assert.equal(sent.length, 2);
  assert.match(sent[1]!.title, /refused/);
  assert.equal((sent[1]!.payload as { limit_usd: number }).limit_usd, 20);
  st = status({ spend_usd: 25, state: 'hard_exceeded', period_start: '2026-02-01T00:00:00.000Z' });
  alerts.recorded('t'); await flush();
  assert.equal(sent.length, 3, 'a new period');
});

test('no limits, nobody who set it, or a failing check: nothing sent, nothing thrown', async () => {
  const sent: NotificationCreate[] = [];
  const run = async (deps: { status: () => BudgetStatus; hasLimits: () => boolean }): Promise<void> => {
    const queue: Array<() => void> = [];
    const alerts = new BudgetAlerts({ ...deps, sink: (n) => sent.push(n), defer: (fn) => queue.push(fn) });
    alerts.recorded('t');
    while (queue.length) queue.shift()!();
    await new Promise(setImmediate);
  };
  await run({ status: () => status({ state: 'hard_exceeded' }), hasLimits: () => false });
  await run({ status: () => status({ state: 'hard_exceeded', updated_by: null }), hasLimits: () => true });
  await run({ status: () => { throw new Error('db closed'); }, hasLimits: () => true });
  assert.equal(sent.length, 0);
  assert.equal(budgetNotice(status({ state: 'soft_exceeded', updated_by: 'service:x' })), null);
});

test('GenerationService calls onRecorded for new records only', async () => {
  const rows: GenerationRecord[] = [];
  const store = { insert: (r: GenerationRecord) => { if (rows.some((x) => x.event_id === r.event_id)) return false; rows.push(r); return true; }, get: () => rows[0] ?? null } as unknown as GenerationStore;
  const prices = { price: (i: unknown) => ({ ...(i as object), cost_usd: 0 }) } as unknown as PriceBook;
  const seen: string[] = [];
  const g = new GenerationService({ store, prices, tenantId: 't', onRecorded: (r) => seen.push(r.event_id) });
  const svc = { id: 'service:inference-router', roles: ['service-account'], auth_method: 'service' as const };
  const input = { event_id: 'e1', tenant_id: 't', created_at: new Date().toISOString() } as never;
  await g.ingest(svc, input);
  await g.ingest(svc, input);
  assert.deepEqual(seen, ['e1']);
});
