/**
 * services/shared/db/async-store.ts (issue 21 item 1): the async transaction SQLite offers a domain
 * written for PostgreSQL — commit, rollback on throw, a nested call as a savepoint, and two
 * concurrent transactions of one database never interleaving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../services/shared/db/store.js';

function store() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-atx-'));
  mkdirSync(join(dir, 'm', 's'), { recursive: true });
  writeFileSync(join(dir, 'm', 's', '0001_init.sql'), 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL);');
  return openStore({ dbDir: dir, store: 's', migrationsDir: join(dir, 'm'), vec: false }, (db) => ({
    t: {
      insert: (v: string): number => Number(db.prepare('INSERT INTO t (v) VALUES (?)').run(v).lastInsertRowid),
      all: (): string[] => (db.prepare('SELECT v FROM t ORDER BY id').all() as { v: string }[]).map((r) => r.v),
    },
  }));
}

test('txAsync commits what fn awaited, and rolls all of it back when fn throws', async () => {
  const s = store();
  assert.equal(s.engine, 'sqlite');
  assert.equal(await s.ready(), true);
  const n = await s.txAsync(async () => { await s.t.insert('a'); await s.t.insert('b'); return 2; });
  assert.equal(n, 2);
  await assert.rejects(s.txAsync(async () => { await s.t.insert('c'); throw new Error('boom'); }), /boom/);
  assert.deepEqual(s.t.all(), ['a', 'b']);
  s.close();
  assert.equal(await s.ready(), false);
});

test('txAsync: a nested call is a savepoint (its throw undoes only its own rows)', async () => {
  const s = store();
  await s.txAsync(async () => {
    await s.t.insert('outer');
    await assert.rejects(s.txAsync(async () => { await s.t.insert('inner'); throw new Error('inner'); }));
    await s.txAsync(async () => { await s.t.insert('inner2'); });
  });
  assert.deepEqual(s.t.all(), ['outer', 'inner2']);
  s.close();
});

test('txAsync: concurrent transactions of one database run one after the other', async () => {
  const s = store();
  const order: string[] = [];
  const slow = s.txAsync(async () => {
    order.push('a-begin'); await s.t.insert('a1');
    await new Promise((r) => setTimeout(r, 20));
    await s.t.insert('a2'); order.push('a-end');
  });
  const fast = s.txAsync(async () => { order.push('b-begin'); await s.t.insert('b1'); order.push('b-end'); });
  const failing = s.txAsync(async () => { throw new Error('x'); });
  await Promise.all([slow, fast, failing.catch(() => undefined)]);
  assert.deepEqual(order, ['a-begin', 'a-end', 'b-begin', 'b-end']);
  assert.deepEqual(s.t.all(), ['a1', 'a2', 'b1']);
  // The queue survives a rejected transaction.
  await s.txAsync(async () => { await s.t.insert('after'); });
  assert.deepEqual(s.t.all(), ['a1', 'a2', 'b1', 'after']);
  s.close();
});
