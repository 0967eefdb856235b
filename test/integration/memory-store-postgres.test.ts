/**
 * The memory service on PostgreSQL (issue 21 item 1), on a real throwaway PostgreSQL 15 with
 * pgvector: (1) the same sequence of repository calls against the SQLite store and the PostgreSQL
 * store answers the same (memories with their cursor, filters, keyword BM25 order, touch, expiry,
 * scopes and deletes; vectors with the width change and the stale-content guard; history; a
 * transaction rolled back on throw); (2) the service started with `database` set answers its main
 * routes (store, duplicate, search, list, get with history, update, forget, prefetch) and creates
 * no `.sqlite` file. Skips with the reason when PostgreSQL is absent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../services/embedder/src/index.js';
import { start } from '../../services/memory/src/index.js';
import type { NewMemory, ScopeFilter } from '../../services/memory/src/domain/ports.js';
import { openMemoryStore, type MemoryStoreFacade } from '../../services/memory/src/store/memory-store.js';
import { openPgMemoryStore, type PgMemoryStore } from '../../services/memory/src/store/pg/memory-store.js';
import { REPO_ROOT } from '../helpers/audit.js';
import { call, headersFor, memoryConfig, principal, removeDir } from '../helpers/embedder/service-helpers.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(REPO_ROOT, 'migrations');
const skip = postgresMissing() ?? false;

/** `a` with every `score` rounded to 9 significant digits (BM25 computed by two engines agrees to ~1e-12). */
function rounded(a: unknown): unknown {
  if (Array.isArray(a)) return a.map(rounded);
  if (a && typeof a === 'object' && !(a instanceof Float32Array)) {
    return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, k === 'score' && typeof v === 'number' ? Number(v.toPrecision(9)) : rounded(v)]));
  }
  return a;
}

/** A unit vector of width `n` pointing mostly along axis `i`. */
function unit(n: number, i: number): Float32Array {
  const v = new Float32Array(n).fill(0.01);
  v[i % n] = 1;
  let s = 0;
  for (const x of v) s += x * x;
  return v.map((x) => x / Math.sqrt(s));
}

function mem(id: string, user: string, content: string, over: Partial<NewMemory> = {}): NewMemory {
  return {
    id, tenant_id: 'acme', user_id: user, scope_key: `acme:${user}`, agent_id: null, session_id: null, memory_type: 'user', content,
    content_key: content.toLowerCase(), pinned: false, expires_at: null, source: 'api', why_stored: 'test', ...over,
  };
}

/** The same calls on one store; every answer, in order. */
async function script(s: MemoryStoreFacade): Promise<unknown[]> {
  const out: unknown[] = [];
  const t0 = '2026-11-24T10:00:00.000Z';
  const texts = [
    ['m01', 'alice', 'Alice drinks green tea every morning'],
    ['m02', 'alice', 'Alice prefers tea over coffee, green tea mostly'],
    ['m03', 'alice', 'The Kestrel pipeline runs nightly at two'],
    ['m04', 'alice', 'Kestrel runbook lives in Confluence', { memory_type: 'reference', agent_id: 'ops' }],
    ['m05', 'alice', 'Old note about tea', { expires_at: '2026-11-24T09:00:00.000Z' }],
    ['m06', 'bob', 'Bob codes in Rust and drinks tea'],
    ['m07', 'alice', 'Answer in three bullet points', { memory_type: 'feedback', pinned: true, session_id: 's1' }],
    ['m08', 'alice', 'Zebra tea ceremony notes'],
  ] as const;
  for (const [id, user, content, over] of texts) out.push(await s.memories.insert(mem(id, user, content, over ?? {}), analyze(content).join(' '), t0));
  const f = (over: Partial<ScopeFilter> = {}): ScopeFilter => ({ scopeKey: 'acme:alice', now: '2026-11-24T10:00:00.000Z', ...over });
  out.push(await s.memories.byId('m03'), await s.memories.byId('nope'));
  out.push(await s.memories.byRids([3, 1, 99]));
  out.push(await s.memories.byKey('acme:alice', 'the kestrel pipeline runs nightly at two', 'user', null, null));
  out.push(await s.memories.byKey('acme:alice', 'kestrel runbook lives in confluence', 'reference', 'ops', null));
  out.push(await s.memories.byKey('acme:alice', 'kestrel runbook lives in confluence', 'reference', null, null));
  // Cursor pages, filters, expiry.
  const p1 = await s.memories.list(f(), 3, null);
  out.push(p1, await s.memories.list(f(), 3, p1[2]!.rid), await s.memories.list(f({ includeExpired: true }), 50, null));
  out.push(await s.memories.list(f({ memoryType: 'reference' }), 10, null), await s.memories.list(f({ agentId: 'ops' }), 10, null), await s.memories.list(f({ sessionId: 's1' }), 10, null));
  out.push(await s.memories.all(f()), await s.memories.all(f({ includeExpired: true, memoryType: 'user' })));
  // Keyword search: BM25 order over analysed terms, scoped.
  for (const q of ['green tea', 'tea', 'kestrel pipeline', 'rust', 'nothing matches this']) out.push(q, await s.memories.keywordSearch(f(), [...new Set(analyze(q))], 10));
  out.push(await s.memories.keywordSearch(f({ includeExpired: true }), ['tea'], 2));
  out.push(await s.memories.keywordSearch(f(), [], 10));
  await s.memories.touch([1, 2], '2026-11-24T10:05:00.000Z');
  await s.memories.touch([], '2026-11-24T10:06:00.000Z');
  out.push(await s.memories.byRids([1, 2]));
  // Update with and without re-indexing.
  await s.memories.update(3, { content: 'The Kestrel pipeline runs hourly', content_key: 'the kestrel pipeline runs hourly', memory_type: 'project', pinned: true, expires_at: null, why_stored: 'changed' }, analyze('The Kestrel pipeline runs hourly').join(' '), '2026-11-24T10:07:00.000Z');
  await s.memories.update(8, { content: 'Zebra tea ceremony notes', content_key: 'zebra tea ceremony notes', memory_type: 'user', pinned: true, expires_at: '2027-01-01T00:00:00.000Z', why_stored: null }, null, '2026-11-24T10:08:00.000Z');
  out.push(await s.memories.byId('m03'), await s.memories.byId('m08'));
  out.push(await s.memories.keywordSearch(f(), ['hourly'], 10), await s.memories.keywordSearch(f(), ['nightly'], 10));
  out.push(await s.memories.expired('2026-11-24T10:00:00.000Z'), await s.memories.scopes());
  // Vectors: width, stale content guard, reads, pending.
  out.push(await s.vectors.ensureDims(8), await s.vectors.ensureDims(8));
  out.push(await s.vectors.unembedded(3));
  await s.vectors.putVector(1, 'Alice drinks green tea every morning', unit(8, 1));
  await s.vectors.putVector(2, 'stale content', unit(8, 2));
  await s.vectors.putVector(3, 'The Kestrel pipeline runs hourly', unit(8, 3));
  const vecs = await s.vectors.vectors([1, 2, 3, 77]);
  out.push([...vecs.entries()].map(([rid, v]) => [rid, [...v]]));
  out.push(await s.vectors.unembedded(4));
  await s.memories.update(1, { content: 'Alice drinks black tea', content_key: 'alice drinks black tea', memory_type: 'user', pinned: false, expires_at: null, why_stored: null }, 'alice drink black tea', '2026-11-24T10:09:00.000Z');
  out.push(await s.vectors.unembedded(2));
  out.push(await s.vectors.ensureDims(16), [...(await s.vectors.vectors([1, 3])).keys()], (await s.vectors.unembedded(100)).length);
  // History.
  await s.history.add({ memory_id: 'm01', tenant_id: 'acme', user_id: 'alice', event: 'ADD', actor_id: 'alice', user_initiated: true, old_content: null, new_content: 'x', reason: 'r', at: t0 });
  await s.history.add({ memory_id: 'm01', tenant_id: 'acme', user_id: 'alice', event: 'UPDATE', actor_id: 'svc', user_initiated: false, old_content: 'x', new_content: 'y', reason: null, at: t0 });
  out.push(await s.history.of('m01'), await s.history.of('none'));
  // A transaction rolled back on throw leaves nothing; a committed one keeps both writes.
  await assert.rejects(s.txAsync(async () => {
    await s.memories.delete(6);
    await s.history.add({ memory_id: 'm06', tenant_id: 'acme', user_id: 'bob', event: 'DELETE', actor_id: 'bob', user_initiated: true, old_content: 'c', new_content: null, reason: null, at: t0 });
    throw new Error('boom');
  }), /boom/);
  out.push(await s.memories.byId('m06'), await s.history.of('m06'));
  await s.txAsync(async () => {
    await s.memories.delete(6);
    await s.history.add({ memory_id: 'm06', tenant_id: 'acme', user_id: 'bob', event: 'DELETE', actor_id: 'bob', user_initiated: true, old_content: 'c', new_content: null, reason: null, at: t0 });
  });
  out.push(await s.memories.byId('m06'), await s.history.of('m06'), await s.memories.scopes(), await s.memories.keywordSearch(f({ scopeKey: 'acme:bob' }), ['rust'], 5));
  return out;
}

describe('memory on PostgreSQL', { skip }, () => {
  let pg: TestPostgres;
  before(async () => { pg = await startPostgres(); });
  after(async () => { await pg?.stop(); });

  test('store contract: the same repository calls answer the same on SQLite and PostgreSQL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-pg-contract-'));
    const sqlite = openMemoryStore(dir, MIGRATIONS);
    let pgStore: PgMemoryStore | null = null;
    try {
      pgStore = await openPgMemoryStore({ url: pg.url, schema: 'memory_contract' }, MIGRATIONS);
      assert.equal(pgStore.engine, 'postgres');
      assert.equal(await pgStore.ready(), true);
      const want = await script(sqlite);
      const got = await script(pgStore);
      assert.equal(got.length, want.length);
      for (let i = 0; i < want.length; i++) assert.deepEqual(rounded(got[i]), rounded(want[i]), `answer ${i} differs`);
      // The sequence exercised what it claims (not two empty answers compared).
      assert.equal((got[14] as unknown[]).length, 3, 'the first list page holds rows');
      assert.ok((got[16] as unknown[]).length >= 5, 'the list with expired rows holds rows');
    } finally {
      sqlite.close();
      await pgStore?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('service: start(cfg) with a database keeps every store in PostgreSQL and answers the main routes', async () => {
    const cfg = memoryConfig({ database: { url: pg.url, schema: 'memory' } });
    const svc = await start(cfg);
    try {
      const base = `http://127.0.0.1:${svc.port}`;
      const alice = headersFor(principal('alice'));
      assert.equal((await call(base, 'GET', '/readyz', {})).status, 200);
      const a = await call(base, 'POST', '/v1/memory', alice, { content: 'Alice drinks green tea every morning', memory_type: 'user', pinned: true });
      assert.equal(a.status, 201);
      assert.equal(a.body.results[0].event, 'ADD');
      const same = await call(base, 'POST', '/v1/memory', alice, { content: 'alice drinks green tea every morning!', memory_type: 'user' });
      assert.equal(same.status, 200);
      assert.equal(same.body.results[0].event, 'NONE');
      await call(base, 'POST', '/v1/memory', alice, { content: 'The Kestrel pipeline runs nightly', memory_type: 'project' });
      await call(base, 'POST', '/v1/memory', alice, { content: 'Old tea note', memory_type: 'user', expires_at: '2020-01-01T00:00:00Z' });
      const found = await call(base, 'POST', '/v1/memory/search', alice, { query: 'kestrel pipeline' });
      assert.equal(found.status, 200);
      assert.equal(found.body.memories[0].content, 'The Kestrel pipeline runs nightly');
      const list = await call(base, 'GET', '/v1/memory?limit=1', alice);
      assert.equal(list.body.items.length, 1);
      assert.ok(list.body.next_cursor);
      const next = await call(base, 'GET', `/v1/memory?limit=5&cursor=${list.body.next_cursor}`, alice);
      assert.deepEqual(next.body.items.map((m: { content: string }) => m.content), ['Alice drinks green tea every morning'], 'expired memories are not listed');
      const id = a.body.memories[0].id as string;
      const up = await call(base, 'PUT', `/v1/memory/${id}`, alice, { content: 'Alice drinks black tea' });
      assert.equal(up.status, 200);
      assert.equal(up.body.pinned, true);
      const detail = await call(base, 'GET', `/v1/memory/${id}`, alice);
      assert.deepEqual(detail.body.history.map((h: { event: string; user_initiated: number }) => [h.event, h.user_initiated]), [['ADD', 1], ['UPDATE', 1]]);
      assert.equal((await call(base, 'GET', `/v1/memory/${id}`, headersFor(principal('bob')))).status, 404);
      const pre = await call(base, 'POST', '/v1/memory/prefetch', alice, { query: 'what does alice drink', token_budget: 64 });
      assert.equal(pre.body.memories[0].content, 'Alice drinks black tea', 'pinned first');
      const forgot = await call(base, 'POST', `/v1/memory/${id}/forget`, alice, {});
      assert.deepEqual(forgot.body, { id, deleted: true, forgotten: true, initiated_by: 'user' });
      assert.equal((await call(base, 'GET', `/v1/memory/${id}`, alice)).status, 404);
      const rows = await pg.sql<{ n: number }>('SELECT count(*)::int AS n FROM memory.memory_history WHERE memory_id = $1', [id]);
      assert.equal(rows[0]!.n, 3, 'the history is in PostgreSQL');
    } finally {
      await svc.close();
    }
    const files = readdirSync(cfg.dataDir, { recursive: true }).map(String);
    assert.ok(files.length > 0, 'the data directory was used');
    assert.deepEqual(files.filter((f) => f.includes('.sqlite')), [], 'no SQLite store file anywhere under the data directory');
    removeDir(cfg.dataDir);
  });
});

