/**
 * Issue 21 item 1, inference router: the same port calls against the SQLite stores and the
 * PostgreSQL stores answer the same (registry: providers oldest first, case-insensitive names,
 * duplicate names refused, updates, ordered role targets, delete with renumbering; egress
 * allowlist: order, case-insensitive destinations, duplicates refused, delete), and the service
 * started with `database` set registers a provider, maps a role, serves a completion and keeps its
 * allowlist in the `inference_router` schema, with no `.sqlite` file (the provider key stays in
 * the encrypted secret file).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { start } from '../../services/inference-router/src/index.js';
import type { ProviderRow } from '../../services/inference-router/src/domain/ports.js';
import { openPgRouterStore, openRouterStore, type RouterStore } from '../../services/inference-router/src/store/router-store.js';
import { routerConfig, stamp, testKeys } from '../helpers/router-config.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const MIGRATIONS = join(process.cwd(), 'migrations');
const missing = postgresMissing();

const prov = (id: string, name: string, created: string, over: Partial<ProviderRow> = {}): ProviderRow => ({
  id, name, base_url: `http://${name.toLowerCase()}.example/v1`, adapter: 'chat_completions', models: ['m1', 'm2'], has_key: false,
  created_at: created, updated_at: created, probed_at: null, ...over,
});

/** The contract sequence; returns every answer. */
async function contract(s: RouterStore): Promise<unknown[]> {
  const seen: unknown[] = [];
  const r = s.registry;
  await r.insert(prov('P2', 'Beta', '2026-01-01T00:00:00.000Z', { has_key: true }));
  await r.insert(prov('P1', 'alpha', '2026-01-01T00:00:00.000Z'));
  await r.insert(prov('P3', 'gamma', '2025-12-31T00:00:00.000Z', { adapter: 'responses', models: [] }));
  let dup = 'none';
  try { await r.insert(prov('P4', 'ALPHA', '2026-01-02T00:00:00.000Z')); } catch (err) { const c = String((err as { code?: string }).code); dup = c.startsWith('SQLITE_CONSTRAINT') || c === '23505' ? 'unique' : c; }
  seen.push(dup, await r.providers(), await r.provider('P1'), await r.provider('nope'), (await r.providerByName('BETA'))?.id ?? null, await r.providerByName('delta'));
  await r.update({ ...prov('P1', 'Alpha2', '2026-01-01T00:00:00.000Z'), models: ['x'], has_key: true, updated_at: '2026-02-01T00:00:00.000Z', probed_at: '2026-02-01T00:00:00.000Z' });
  seen.push(await r.provider('P1'));
  await r.setRole('default', [{ provider_id: 'P1', model: 'x' }, { provider_id: 'P2', model: 'm1' }, { provider_id: 'P1', model: 'y' }]);
  await r.setRole('title', [{ provider_id: 'P2', model: 'm2' }]);
  await r.setRole('classifier', [{ provider_id: 'local', model: 'tiny' }]);
  await r.setRole('classifier', []);
  const strip = async () => (await r.roles()).map((x) => ({ role: x.role, targets: x.targets, at: typeof x.updated_at }));
  seen.push(await strip());
  seen.push(await r.remove('P1'), await strip(), (await r.providers()).map((p) => p.id));
  seen.push(await r.remove('nope'));

  const e = s.egress;
  seen.push(await e.list());
  await e.insert({ id: 'E2', destination: 'b.example.com:443', created_at: '2026-01-01T00:00:00.000Z', created_by: 'a' });
  await e.insert({ id: 'E1', destination: 'a.example.com:443', created_at: '2026-01-01T00:00:00.000Z', created_by: null });
  let edup = false;
  try { await e.insert({ id: 'E3', destination: 'A.EXAMPLE.COM:443', created_at: '2026-01-02T00:00:00.000Z', created_by: null }); } catch { edup = true; }
  seen.push(edup, await e.list(), await e.byDestination('A.example.com:443'), await e.byDestination('c.example.com:443'));
  seen.push(await e.remove('E1'), await e.remove('E1'), await e.list());
  return seen;
}

describe('inference router stores on PostgreSQL', { skip: missing ?? false }, () => {
  let pg: TestPostgres;
  let llm: ScriptedLlm;
  const dirs: string[] = [];
  before(async () => { pg = await startPostgres(); llm = await startScriptedLlm(); });
  after(async () => { await llm?.close(); await pg?.stop(); for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  test('the same port calls answer the same on SQLite and PostgreSQL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'router-pg-')); dirs.push(dir);
    const lite = openRouterStore(join(dir, 'db'), MIGRATIONS);
    const pgs = await openPgRouterStore({ url: pg.url, schema: 'router_contract' }, MIGRATIONS);
    try {
      const want = await contract(lite);
      const got = await contract(pgs);
      for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], `answer ${i}`);
      assert.equal(want[0], 'unique', 'a duplicate name is refused on both engines');
      assert.equal(await lite.ready(), true);
      assert.equal(await pgs.ready(), true);
    } finally {
      lite.close();
      await pgs.close();
    }
  });

  test('the service on PostgreSQL: provider, role, completion, allowlist; no .sqlite file', async () => {
    const keys = testKeys();
    const cfg = { ...routerConfig(keys, {}), database: { url: pg.url, schema: 'inference_router' } };
    dirs.push(cfg.dataDir);
    const svc = await start(cfg);
    let closed = false;
    try {
      const base = `http://127.0.0.1:${svc.port}`;
      const admin = stamp(keys, { id: 'admin-1', roles: ['admin', 'user'] });
      const call = async (path: string, who: string, method = 'GET', body?: unknown) => {
        const r = await fetch(base + path, { method, headers: { 'x-svc-principal': who, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        return { status: r.status, body: r.status === 204 ? null : await r.json() as any }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
      };
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      const p = await call('/v1/internal/providers', admin, 'POST', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions', api_key: 'sk-test-secret-pg' });
      assert.equal(p.status, 201, JSON.stringify(p.body));
      assert.equal((await call('/v1/internal/providers', admin, 'POST', { name: 'SCRIPTED', base_url: llm.baseUrl, adapter: 'chat_completions' })).status, 409);
      const role = await call('/v1/internal/roles/default', admin, 'PUT', { provider_id: p.body.id, model: 'scripted-model' });
      assert.equal(role.status, 200, JSON.stringify(role.body));
      assert.equal((await call('/v1/internal/providers', admin)).body.items.length, 1);
      const chat = await call('/v1/chat/completions', stamp(keys), 'POST', { model: 'default', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(chat.status, 200, JSON.stringify(chat.body));
      const added = await call('/v1/internal/egress/allowlist', admin, 'POST', { destination: 'updates.example.com:443' });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.equal((await call('/v1/internal/egress/allowlist', admin, 'POST', { destination: 'UPDATES.example.com:443' })).status, 409);
      assert.deepEqual((await pg.sql<{ destination: string }>('SELECT destination FROM inference_router.egress_allowlist')).map((r) => r.destination), ['updates.example.com:443']);
      assert.equal((await call(`/v1/internal/egress/allowlist/${added.body.id}`, admin, 'DELETE')).status, 204);
      const [row] = await pg.sql<{ has_key: number; models: string }>('SELECT has_key, models FROM inference_router.providers');
      assert.equal(row?.has_key, 1);
      assert.ok(!JSON.stringify(await pg.sql('SELECT * FROM inference_router.providers')).includes('sk-test-secret'), 'the key is not in the database');
      await svc.close(); closed = true;
      const files = existsSync(cfg.dbDir) ? readdirSync(cfg.dbDir, { recursive: true }).map(String) : [];
      assert.deepEqual(files.filter((f) => f.includes('.sqlite')), [], `db dir holds ${files.join(', ')}`);
    } finally {
      if (!closed) await svc.close();
    }
  });
});
