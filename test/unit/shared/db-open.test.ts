/**
 * services/shared/db/open.ts: migration discovery (NNNN_name.sql, no duplicates), forward-only
 * migration tracked in `PRAGMA user_version`, and the pragmas every store opens with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listMigrations, migrate, openDb } from '../../../services/shared/db/open.js';

/** A migrations folder holding `files` for store `s`. */
function migrations(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mig-'));
  mkdirSync(join(dir, 's'));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, 's', name), sql);
  return dir;
}

test('listMigrations: version order, .sql only, strict names, no duplicate versions', () => {
  const dir = migrations({ '0002_more.sql': 'SELECT 2;', '0001_init.sql': 'SELECT 1;', 'README.md': 'x' });
  assert.deepEqual(listMigrations(dir, 's').map((m) => [m.version, m.name]), [[1, '0001_init.sql'], [2, '0002_more.sql']]);
  assert.deepEqual(listMigrations(dir, 'absent'), []);
  assert.throws(() => listMigrations(migrations({ '1_init.sql': '' }), 's'), /NNNN_name\.sql: s\/1_init\.sql/);
  assert.throws(() => listMigrations(migrations({ '0001_Init.sql': '' }), 's'), /NNNN_name\.sql/);
  assert.throws(() => listMigrations(migrations({ '0001_a.sql': '', '0001_b.sql': '' }), 's'), /duplicate migration version 1 in s/);
});

test('openDb + migrate: applies pending migrations once, forward only', () => {
  const dir = migrations({ '0001_init.sql': 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);' });
  const dbDir = mkdtempSync(join(tmpdir(), 'svc-db-'));
  const db = openDb({ dbDir, store: 's', migrationsDir: dir, vec: false });
  try {
    assert.equal(db.pragma('user_version', { simple: true }), 1);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.equal(db.pragma('busy_timeout', { simple: true }), 5000);
    writeFileSync(join(dir, 's', '0002_add.sql'), 'ALTER TABLE t ADD COLUMN w TEXT;');
    assert.deepEqual(migrate(db, listMigrations(dir, 's')), [2]);
    assert.deepEqual(migrate(db, listMigrations(dir, 's')), [], 'nothing twice');
    db.prepare('INSERT INTO t (v, w) VALUES (?, ?)').run('a', 'b');
    assert.throws(() => migrate(db, listMigrations(dir, 's').slice(0, 1)), /schema version 2 is newer than this build \(1\)/);
  } finally { db.close(); }
});

test('migrate: a failing migration rolls back and keeps the version', () => {
  const dir = migrations({ '0001_init.sql': 'CREATE TABLE t (id INTEGER);', '0002_bad.sql': 'CREATE TABLE u (id INTEGER); SELECT * FROM nowhere;' });
  assert.throws(() => openDb({ dbDir: ':memory:', store: 's', migrationsDir: dir, vec: false }), /no such table: nowhere/);
  const db = openDb({ dbDir: ':memory:', store: 's', migrationsDir: migrations({ '0001_init.sql': 'CREATE TABLE t (id INTEGER);' }), vec: false });
  try {
    assert.throws(() => migrate(db, listMigrations(dir, 's')), /nowhere/);
    assert.equal(db.pragma('user_version', { simple: true }), 1);
    assert.deepEqual(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'u'").get(), { n: 0 });
  } finally { db.close(); }
});

test('openDb loads sqlite-vec by default', () => {
  const db = openDb({ dbDir: ':memory:', store: 'none', migrationsDir: migrations({}) });
  try {
    assert.match(String((db.prepare('SELECT vec_version() AS v').get() as { v: string }).v), /^v\d/);
  } finally { db.close(); }
});
