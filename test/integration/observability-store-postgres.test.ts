/**
 * Issue 21 item 1, observability: the same port calls against the SQLite store and the PostgreSQL
 * store answer the same (generations: idempotent insert, get, filtered newest-first pages with
 * cursors, aggregates by every group with NULL keys, spend; prices: replace in one transaction,
 * list, refreshed-at; budgets: upsert and list order; spans: duplicates, trace order, trace
 * summaries with cursor, prune), and the service started with `database` set serves its routes
 * from the `observability` schema and creates no `.sqlite` file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../services/observability/src/index.js';
import type { GenerationRecord, SpanRecord } from '../../services/observability/src/contracts.js';
import { openObsStore, openPgObsStore, type ObsStore } from '../../services/observability/src/store/obs-store.js';
import { obsConfig, stamp, testKeys } from '../helpers/router-config.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(process.cwd(), 'migrations');
const missing = postgresMissing();

function gen(n: number, over: Partial<GenerationRecord> = {}): GenerationRecord {
  const created = new Date(Date.UTC(2026, 0, 1 + (n % 3), 10, n)).toISOString();
  return {
    event_id: `01J${String(n).padStart(23, '0')}`, tenant_id: 'acme', created_at: created, user_id: n % 2 ? 'u1' : 'u2', turn_id: null, trace_id: null, span_id: null,
    role: n % 3 === 0 ? null : 'chat', requested_model: 'm', model: n % 2 ? 'Model-B' : 'model-a', provider_id: 'p1', provider_name: n % 4 ? 'prov' : 'Other',
    backend: 'chat_completions', provider_version: null, deterministic: n % 2 === 0, weight_hash: null, stream: n % 2 === 1, status: n % 5 === 0 ? 'error' : 'ok',
    error_code: null, http_status: 200, latency_ms: 10.5 + n, ttft_ms: n % 2 ? 3.25 : null, prompt_tokens: 100 + n, completion_tokens: 20, total_tokens: 120 + n,
    attempts: 1, cost_usd: n % 3 ? 0.001 * n : null, price_source: n % 3 ? 'list' : null, ingested_at: created, ...over,
  } as GenerationRecord;
}

function span(trace: string, id: string, startMs: number, over: Partial<SpanRecord> = {}): SpanRecord {
  return {
    trace_id: trace.repeat(32).slice(0, 32), span_id: id.repeat(16).slice(0, 16), parent_span_id: null, service: 'gateway', name: `op-${id}`, kind: 'server',
    start_time: new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + startMs).toISOString(), duration_ms: 12.5, status: 'ok', attributes: { a: 1, b: 'x' }, ...over,
  };
}

/** The contract sequence; returns every answer. */
async function contract(s: ObsStore): Promise<unknown[]> {
  const seen: unknown[] = [];
  for (let n = 1; n <= 12; n++) seen.push(await s.generations.insert(gen(n)));
  seen.push(await s.generations.insert(gen(3, { model: 'changed' })), await s.generations.get('acme', gen(3).event_id), await s.generations.get('other', gen(3).event_id));
  const f = { tenantId: 'acme' };
  const p1 = await s.generations.list(f, undefined, 5);
  seen.push(p1.map((r) => r.event_id), (await s.generations.list(f, p1[4]!.event_id, 5)).map((r) => r.event_id));
  seen.push((await s.generations.list({ tenantId: 'acme', userId: 'u1', status: 'ok', since: '2026-01-02T00:00:00.000Z', until: '2026-01-03T00:00:00.000Z' }, undefined, 50)).map((r) => r.event_id));
  seen.push(await s.generations.list({ tenantId: 'acme', model: 'model-a', role: 'chat', providerId: 'p1' }, undefined, 2));
  for (const by of [null, 'model', 'provider_name', 'role', 'day', 'user_id'] as const) seen.push(await s.generations.stats(f, by));
  // Sums of doubles may differ in the last bit with the summation order; the domain rounds spend to 1e-9 USD.
  const spend = async (t: string, since: string) => Math.round((await s.generations.spend(t, since)) * 1e9) / 1e9;
  seen.push(await s.generations.stats({ tenantId: 'nobody' }, null), await spend('acme', '2026-01-02T00:00:00.000Z'), await spend('nobody', '2000-01-01T00:00:00.000Z'));

  seen.push(await s.prices.all(), await s.prices.refreshedAt());
  seen.push(await s.prices.replace({ 'b-model': { in: 1.5, out: 2 }, 'A-model': { in: 0.25, out: 0.5 }, a: { in: 3, out: 4 } }, '2026-01-01T00:00:00.000Z', 'http://x'));
  seen.push(await s.prices.all(), await s.prices.refreshedAt());
  seen.push(await s.prices.replace({ only: { in: 1, out: 1 } }, '2026-01-02T00:00:00.000Z', 'http://y'), await s.prices.all(), await s.prices.refreshedAt());

  seen.push(await s.budgets.get('acme'), await s.budgets.all());
  await s.budgets.put({ tenant_id: 'zeta', period: 'month', soft_limit_usd: 5, hard_limit_usd: null, updated_at: '2026-01-01T00:00:00.000Z', updated_by: 'a' });
  await s.budgets.put({ tenant_id: 'Acme', period: 'day', soft_limit_usd: 1.25, hard_limit_usd: 2.5, updated_at: '2026-01-01T00:00:00.000Z', updated_by: null });
  await s.budgets.put({ tenant_id: 'zeta', period: 'day', soft_limit_usd: null, hard_limit_usd: 9, updated_at: '2026-01-02T00:00:00.000Z', updated_by: 'b' });
  seen.push(await s.budgets.get('zeta'), await s.budgets.all());

  const spans = [span('a', '1', 0), span('a', '2', 5, { parent_span_id: '1'.repeat(16), service: 'runtime', status: 'error', start_time: new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + 5).toISOString() }),
    span('b', '3', 1000, { parent_span_id: '9'.repeat(16), name: 'child-first' }), span('b', '4', 1500), span('c', '5', 2000, { attributes: {} })];
  seen.push(await s.spans.insert(spans), await s.spans.insert([spans[0]!, span('c', '6', 2500, { service: 'gateway' })]), await s.spans.insert([]));
  seen.push(await s.spans.trace('a'.repeat(32)), await s.spans.trace('f'.repeat(32)));
  const traces = await s.spans.traces(2);
  seen.push(traces.map((t) => ({ ...t, duration_ms: Math.round(t.duration_ms) })));
  seen.push((await s.spans.traces(10, traces[1]!.start_time)).map((t) => ({ ...t, duration_ms: Math.round(t.duration_ms) })));
  seen.push(await s.spans.prune(new Date(Date.UTC(2026, 0, 1, 12, 0, 1)).toISOString()), (await s.spans.traces(10)).map((t) => t.trace_id));
  return seen;
}

describe('observability stores on PostgreSQL', { skip: missing ?? false }, () => {
  let pg: TestPostgres;
  const dirs: string[] = [];
  before(async () => { pg = await startPostgres(); });
  after(async () => { await pg?.stop(); for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  test('the same port calls answer the same on SQLite and PostgreSQL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obs-pg-')); dirs.push(dir);
    const lite = openObsStore({ dbDir: join(dir, 'db'), migrationsDir: MIGRATIONS });
    const pgs = await openPgObsStore({ url: pg.url, schema: 'obs_contract' }, MIGRATIONS);
    try {
      const want = await contract(lite);
      const got = await contract(pgs);
      for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], `answer ${i}`);
      assert.equal(want.length, got.length);
      // Exact durations agree to well under a millisecond (julianday vs epoch arithmetic).
      const [a, b] = [await lite.spans.traces(10), await pgs.spans.traces(10)];
      for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i]!.duration_ms - b[i]!.duration_ms) < 0.05, `${a[i]!.duration_ms} vs ${b[i]!.duration_ms}`);
      await assert.rejects(pgs.txAsync(async () => { await pgs.budgets.put({ tenant_id: 'gone', period: 'day', soft_limit_usd: null, hard_limit_usd: null, updated_at: 'x', updated_by: null }); throw new Error('boom'); }), /boom/);
      assert.equal(await pgs.budgets.get('gone'), null, 'rolled back');
    } finally {
      lite.close();
      await pgs.close();
    }
  });

  test('the service on PostgreSQL: generations, stats, budgets, spans; no .sqlite file', async () => {
    const keys = testKeys();
    const cfg = { ...obsConfig(keys), database: { url: pg.url, schema: 'observability' } };
    dirs.push(cfg.dataDir);
    const svc = await start(cfg);
    let closed = false;
    try {
      const base = `http://127.0.0.1:${svc.port}`;
      const service = stamp(keys, { id: 'service:inference-router', roles: ['service-account'], auth_method: 'service' });
      const admin = stamp(keys, { id: 'admin-1', roles: ['admin', 'user'] });
      const call = async (path: string, who: string, method = 'GET', body?: unknown) => {
        const r = await fetch(base + path, { method, headers: { 'x-svc-principal': who, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        return { status: r.status, body: r.status === 204 ? null : await r.json() as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
      };
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      const { day: _d, tenant_id: _t, cost_usd: _c, price_source: _p, ingested_at: _i, ...input } = { ...gen(1), day: '' };
      const first = await call('/v1/generations', service, 'POST', input);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.equal((await call('/v1/generations', service, 'POST', input)).status, 200, 'a second post of one event_id is a no-op');
      const list = await call('/v1/generations', admin);
      assert.deepEqual(list.body.items.map((r: GenerationRecord) => r.event_id), [gen(1).event_id]);
      assert.equal(list.body.items[0].stream, true);
      const stats = await call('/v1/generations/stats', admin);
      assert.equal(stats.body.totals.count, 1);
      const b = await call('/v1/admin/observability/budgets/acme', admin, 'PUT', { period: 'month', soft_limit_usd: 1, hard_limit_usd: 2 });
      assert.equal(b.status, 200, JSON.stringify(b.body));
      assert.equal((await call('/v1/internal/budgets/acme', service)).body.hard_limit_usd, 2);
      const sp = await call('/v1/traces/spans', service, 'POST', { spans: [span('d', '7', 0)] });
      assert.deepEqual(sp.body, { accepted: 1 });
      const tr = await call(`/v1/admin/observability/traces/${'d'.repeat(32)}`, admin);
      assert.equal(tr.body.spans[0].name, 'op-7');
      assert.equal((await pg.sql('SELECT 1 FROM observability.generations')).length, 1);
      await svc.close(); closed = true;
      const files = existsSync(cfg.dbDir) ? readdirSync(cfg.dbDir, { recursive: true }).map(String) : [];
      assert.deepEqual(files.filter((f) => f.includes('.sqlite')), [], `db dir holds ${files.join(', ')}`);
    } finally {
      if (!closed) await svc.close();
    }
  });
});
