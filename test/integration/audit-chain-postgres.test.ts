/**
 * The audit chain on PostgreSQL (issue 21 items 1 and 5), on a real throwaway PostgreSQL 15:
 * migrations apply once (also when two processes' pools race), rows are identical in content to
 * the SQLite writer's for the same inputs and clock, four writer processes appending at once keep
 * each tenant's chain gap-free and verifying (the five checks of chain-verify.ts), the tables stay
 * append-only, and an edited row fails the check. Skips with a reason when PostgreSQL or pgvector
 * is not installed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncChainWriter } from '../../services/audit/src/domain/async-chain-writer.js';
import type { AppendInput } from '../../services/audit/src/domain/chain-row.js';
import { ChainWriter } from '../../services/audit/src/domain/chain-writer.js';
import { verifyChain } from '../../services/audit/src/domain/chain-verify.js';
import { keyRingFromConfig, type KeyProvider } from '../../services/audit/src/domain/keys.js';
import type { AuditRowRecord } from '../../services/audit/src/domain/ports.js';
import { AuditStore } from '../../services/audit/src/store/audit-store.js';
import { openPgAuditStore, type PgAuditStore } from '../../services/audit/src/store/pg/audit-store.js';
import { openPgPool } from '../../services/shared/db/pg/pool.js';
import { openPgStore } from '../../services/shared/db/pg/store.js';
import { listPgMigrations, migratePg } from '../../services/shared/db/pg/migrate.js';
import { REPO_ROOT } from '../helpers/audit.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { PG_WRITER_SCRIPT, runPgWriters } from '../helpers/pg-writers.js';

const MIGRATIONS = join(REPO_ROOT, 'migrations');
const KEY = 'pg-test-key-5b0c1d2e3f405162738495a6b7c8d9e0';
const ring = keyRingFromConfig({ signingKey: KEY, keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null });
const keys: KeyProvider = () => ring;
const missing = postgresMissing();

describe('audit chain on PostgreSQL', { skip: missing ?? false }, () => {
  let pg: TestPostgres;
  let store: PgAuditStore;

  before(async () => {
    pg = await startPostgres();
    store = await openPgAuditStore({ url: pg.url, schema: 'audit' }, MIGRATIONS);
  });
  after(async () => {
    await store?.db.close();
    await pg?.stop();
  });

  test('migrations apply once, recorded in schema_migrations; racing migrators apply them exactly once', async () => {
    const rows = await pg.sql<{ version: number; name: string }>('SELECT version, name FROM audit.schema_migrations ORDER BY version');
    assert.deepEqual(rows.map((r) => r.name), listPgMigrations(MIGRATIONS, 'audit').map((m) => m.name));
    assert.equal(rows[0]!.name, '0001_chain.sql');
    const tables = await pg.sql<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'audit' ORDER BY 1");
    assert.deepEqual(tables.map((r) => r.t), ['artifacts', 'audit_log', 'chain_head', 'egress_log_cursor', 'envelope_signatures', 'envelopes',
      'receipt_checkpoints', 'schema_migrations', 'turn_events', 'turns']);
    // A fresh schema, two pools racing: one applies, the other finds nothing to do.
    const a = openPgPool({ url: pg.url, schema: 'race_a' });
    const b = openPgPool({ url: pg.url, schema: 'race_a' });
    try {
      const ms = listPgMigrations(MIGRATIONS, 'audit');
      const [x, y] = await Promise.all([migratePg(a, 'race_a', ms), migratePg(b, 'race_a', ms)]);
      assert.deepEqual([...x!, ...y!].sort(), ms.map((m) => m.version));
      assert.deepEqual(await migratePg(a, 'race_a', ms), []);
      await assert.rejects(migratePg(a, 'race_a', []), /newer than this build/);
    } finally {
      await a.end();
      await b.end();
    }
  });

  test('the kit: tx commits or rolls back as a whole, a nested tx is a savepoint, readiness follows close', async () => {
    const kit = await openPgStore({ settings: { url: pg.url, schema: 'kit_test' }, service: 'no-such-service', migrationsDir: MIGRATIONS }, () => ({}));
    try {
      await kit.db.exec('CREATE TABLE t (v int)');
      await kit.db.tx(async () => {
        await kit.db.exec('INSERT INTO t VALUES (1)');
        await assert.rejects(kit.db.tx(async () => { await kit.db.exec('INSERT INTO t VALUES (2)'); throw new Error('inner'); }), /inner/);
        await kit.db.exec('INSERT INTO t VALUES (3)');
      });
      await assert.rejects(kit.db.tx(async () => { await kit.db.exec('INSERT INTO t VALUES (4)'); await kit.db.exec('SELECT 1/0'); }), /division by zero/);
      assert.deepEqual((await kit.db.query<{ v: number }>('SELECT v FROM t ORDER BY v')).map((r) => r.v), [1, 3]);
      // Two transactions at once run on two connections (no interleaving through the context).
      await Promise.all([1, 2].map((k) => kit.db.tx(async () => { await kit.db.exec('INSERT INTO t VALUES ($1)', [10 + k]); await kit.db.query('SELECT pg_sleep(0.05)'); })));
      assert.equal((await kit.db.query<{ n: number }>('SELECT count(*)::int AS n FROM t'))[0]!.n, 4);
      assert.equal(await kit.db.ready(), true);
    } finally {
      await kit.db.close();
    }
    assert.equal(await kit.db.ready(), false);
    assert.equal(kit.db.isOpen, false);
  });

  test('rows are identical in content to the SQLite writer\'s for the same inputs and clock', async () => {
    const tenant = 'same-bytes';
    const inputs: AppendInput[] = Array.from({ length: 30 }, (_, i) => ({
      tenant_id: tenant, user_id: i % 3 ? `u${i}` : null, action: i % 2 ? 'doc.read' : 'chat.turn', resource_type: 'doc', resource_id: `d${i}`,
      detail_type: i % 4 ? 'access_v1' : null, detail: { i, text: 'naïve “quotes” \u2028 ✓', nested: { z: 1, a: [1.5, null, true] } },
      agent_id: i % 5 ? null : 'agent-1', agent_chain: i % 5 ? null : [{ agent_id: 'agent-1', depth: 0 }], delegated_by: i % 6 ? null : 'boss',
    }));
    let t = Date.parse('2026-11-24T10:00:00.000Z');
    const clockA = () => new Date(t++);
    const dir = mkdtempSync(join(tmpdir(), 'audit-pg-same-'));
    const sqlite = AuditStore.open(dir, MIGRATIONS);
    try {
      const w = new ChainWriter(sqlite, keys, clockA);
      for (const input of inputs) await w.append(input);
      t = Date.parse('2026-11-24T10:00:00.000Z');
      // A fresh schema so ids start at 1 as in the fresh SQLite file.
      const fresh = await openPgAuditStore({ url: pg.url, schema: 'same_bytes' }, MIGRATIONS);
      try {
        const pw = new AsyncChainWriter(fresh.log, keys, clockA);
        for (const input of inputs) await pw.append(input);
        const fromSqlite = sqlite.db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as AuditRowRecord[];
        const fromPg = await fresh.log.suffixFrom(tenant, 1);
        assert.equal(fromPg.length, 30);
        assert.deepEqual(fromPg, fromSqlite);
        const headsSqlite = sqlite.db.prepare('SELECT * FROM chain_head ORDER BY seq').all();
        const headsPg = await fresh.db.query('SELECT * FROM chain_head ORDER BY seq');
        assert.deepEqual(headsPg, headsSqlite);
        const report = await verifyChain(fresh.log, keys, tenant);
        assert.deepEqual(report, { ok: true, checked: 30, failures: [] });
      } finally {
        await fresh.db.close();
      }
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('four writer processes appending at once keep each tenant\'s chain gap-free and verifying', async () => {
    const tenants = ['t-shared', 't-other'];
    const reports = await runPgWriters([0, 1, 2, 3].map((worker) => ({
      url: pg.url, migrationsDir: MIGRATIONS, tenants: worker === 3 ? tenants : ['t-shared'], count: 300, burst: 25, key: KEY, worker,
    })));
    assert.equal(reports.length, 4);
    for (const t of tenants) {
      const expected = t === 't-shared' ? 3 * 300 + 150 : 150;
      const stats = await store.log.logStats(t);
      assert.deepEqual(stats, { n: expected, m: expected, lo: 1 }, `${t}: seq 1..${expected} with no gap or repeat`);
      const report = await verifyChain(store.log, keys, t);
      assert.equal(report.ok, true, JSON.stringify(report.failures.slice(0, 3)));
      assert.equal(report.checked, expected);
      // Writers really interleaved: rows of several workers alternate along the chain.
      const workers = await pg.sql<{ w: string }>("SELECT detail::jsonb->>'worker' AS w FROM audit.audit_log WHERE tenant_id = $1 ORDER BY seq", [t]);
      if (t === 't-shared') {
        let switches = 0;
        for (let i = 1; i < workers.length; i++) if (workers[i]!.w !== workers[i - 1]!.w) switches++;
        assert.ok(switches >= 3, `expected interleaved writers, saw ${switches} switches`);
      }
    }
    const [ids] = await pg.sql<{ n: number; d: number }>('SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM audit.audit_log');
    assert.equal(ids!.n, ids!.d);
    // The limited check (newest rows, anchored on the row before them) holds too.
    assert.equal((await verifyChain(store.log, keys, 't-shared', 100)).ok, true);
  });

  test('a writer process killed mid-burst releases the chain lock; the others carry on and the chain stays whole', async () => {
    const tenant = 't-crash';
    const victim = spawn(process.execPath, [PG_WRITER_SCRIPT], {
      env: { ...process.env, SVC_PG_WRITER: JSON.stringify({ url: pg.url, migrationsDir: MIGRATIONS, tenants: [tenant], count: 1_000_000, burst: 50, key: KEY, worker: 9 }) },
      stdio: 'ignore',
    });
    // Kill it once it has committed rows (it is then mostly inside or waiting for a locked transaction).
    for (let i = 0; i < 200 && (await store.log.logStats(tenant)).n < 200; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok((await store.log.logStats(tenant)).n >= 200, 'the victim wrote rows');
    const survivors = runPgWriters([0, 1, 2].map((worker) => ({ url: pg.url, migrationsDir: MIGRATIONS, tenants: [tenant], count: 200, burst: 20, key: KEY, worker })));
    victim.kill('SIGKILL');
    await new Promise((r) => victim.once('exit', r));
    const reports = await survivors;
    assert.equal(reports.length, 3);
    const stats = await store.log.logStats(tenant);
    assert.equal(stats.lo, 1);
    assert.equal(stats.m, stats.n, 'seq runs 1..N with no gap');
    const report = await verifyChain(store.log, keys, tenant);
    assert.equal(report.ok, true, JSON.stringify(report.failures.slice(0, 3)));
    assert.equal(report.checked, stats.n);
    const [byWorker] = await pg.sql<{ n: number }>(`SELECT count(*)::int AS n FROM audit.audit_log WHERE tenant_id = $1 AND detail::jsonb->>'worker' <> '9'`, [tenant]);
    assert.equal(byWorker!.n, 600, 'every survivor row committed');
  });

  test('the tables are append-only, and an edited row fails the hmac check', async () => {
    const tenant = 't-tamper';
    const w = new AsyncChainWriter(store.log, keys);
    for (let i = 0; i < 5; i++) await w.append({ tenant_id: tenant, action: 'doc.read', detail: { i } });
    await pg.sql(`UPDATE audit.audit_log SET detail = '{"i":99}' WHERE tenant_id = $1 AND seq = 3`, [tenant]);
    await pg.sql('DELETE FROM audit.chain_head WHERE tenant_id = $1', [tenant]);
    assert.equal((await verifyChain(store.log, keys, tenant)).ok, true, 'UPDATE and DELETE are skipped by the triggers');
    await pg.sql('ALTER TABLE audit.audit_log DISABLE TRIGGER USER');
    try {
      await pg.sql(`UPDATE audit.audit_log SET detail = '{"i":99}' WHERE tenant_id = $1 AND seq = 3`, [tenant]);
    } finally {
      await pg.sql('ALTER TABLE audit.audit_log ENABLE TRIGGER USER');
    }
    const report = await verifyChain(store.log, keys, tenant);
    assert.equal(report.ok, false);
    assert.deepEqual(report.failures.map((f) => [f.check, f.seq]), [['hmac', 3]]);
  });

  test('an input that cannot be signed is refused alone; its batch-mates commit', async () => {
    const tenant = 't-bad';
    const w = new AsyncChainWriter(store.log, keys);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const [a, bad, c] = await Promise.allSettled([
      w.append({ tenant_id: tenant, action: 'ok.1' }),
      w.append({ tenant_id: tenant, action: 'bad', detail: cyclic as never }),
      w.append({ tenant_id: tenant, action: 'ok.2' }),
    ]);
    assert.equal(a.status, 'fulfilled');
    assert.equal(bad.status, 'rejected');
    assert.equal(c.status, 'fulfilled');
    assert.deepEqual(await store.log.logStats(tenant), { n: 2, m: 2, lo: 1 });
    assert.equal((await verifyChain(store.log, keys, tenant)).ok, true);
  });
});
