/**
 * The PostgreSQL kit's pure parts (issue 21 item 1), without a server: which URL a service uses
 * (`SVC_DATABASE_URL`, `SVC_<SERVICE>_DATABASE_URL`, `_FILE`), schema names, password redaction,
 * PostgreSQL migrations found beside the SQLite ones, and the knowledge store's tsvector and
 * query literals (the analyzer's terms survive quoting; FTS5 OR queries are read back exactly).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../main/config/env.js';
import { databaseUrlEnvName, readDatabaseUrls } from '../../../main/config/database.js';
import { ftsOrQuery } from '../../../services/embedder/src/index.js';
import { termsOfFtsMatch, tsvectorLiteral } from '../../../services/knowledge/src/store/pg/chunks.js';
import { vectorFromSend, vectorText } from '../../../services/knowledge/src/store/pg/vectors.js';
import { listMigrations } from '../../../services/shared/db/open.js';
import { listPgMigrations } from '../../../services/shared/db/pg/migrate.js';
import { pgSettingsFor, redactUrl, schemaOf } from '../../../services/shared/db/pg/settings.js';

/** dist/test/unit/shared -> the repository root (four levels up), where migrations/ lives. */
const MIGRATIONS = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../migrations');

test('the default URL serves every service; a per-service URL wins; unset means SQLite', () => {
  const urls = readDatabaseUrls({ SVC_DATABASE_URL: 'postgres://svc:pw@db:5432/svc', SVC_KNOWLEDGE_DATABASE_URL: 'postgresql://k@vec:5432/k' });
  assert.deepEqual(pgSettingsFor(urls, 'audit'), { url: 'postgres://svc:pw@db:5432/svc', schema: 'audit' });
  assert.deepEqual(pgSettingsFor(urls, 'knowledge'), { url: 'postgresql://k@vec:5432/k', schema: 'knowledge' });
  assert.equal(pgSettingsFor(urls, 'agent-runtime')!.schema, 'agent_runtime');
  assert.equal(pgSettingsFor(readDatabaseUrls({}), 'audit'), null);
  assert.equal(databaseUrlEnvName('inference-router'), 'SVC_INFERENCE_ROUTER_DATABASE_URL');
});

test('a URL can come from a file; a non-postgres URL is refused without echoing it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-url-'));
  try {
    writeFileSync(join(dir, 'url'), 'postgres://svc:secret-pw@db/svc\n');
    assert.equal(readDatabaseUrls({ SVC_DATABASE_URL_FILE: join(dir, 'url') }).default, 'postgres://svc:secret-pw@db/svc');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.throws(() => readDatabaseUrls({ SVC_DATABASE_URL: 'mysql://u:hunter2@db/x' }), (e: Error) => e instanceof ConfigError && !e.message.includes('hunter2'));
  assert.throws(() => readDatabaseUrls({ SVC_AUDIT_DATABASE_URL: 'not a url' }), /SVC_AUDIT_DATABASE_URL/);
  assert.equal(redactUrl('postgres://svc:secret-pw@db:5432/svc'), 'postgres://svc:***@db:5432/svc');
  assert.throws(() => schemaOf('bad;name'), /cannot be a PostgreSQL schema/);
});

test('PostgreSQL migrations live beside the SQLite ones and are listed apart from them', () => {
  for (const service of ['audit', 'knowledge']) {
    const pg = listPgMigrations(MIGRATIONS, service);
    assert.ok(pg.length >= 1, service);
    assert.equal(pg[0]!.version, 1);
    // The SQLite runner does not pick up the pg/ folder, and the PostgreSQL runner reads only it.
    assert.ok(listMigrations(MIGRATIONS, service).every((m) => !pg.some((p) => p.sql === m.sql)), service);
  }
  assert.deepEqual(listPgMigrations(MIGRATIONS, 'no-such-service'), []);
});

test('tsvector literals keep the analyzer\'s terms, weights and positions; FTS5 OR queries read back', () => {
  assert.equal(tsvectorLiteral('vaccin trial', 'trial o\'brien back\\slash'), "'vaccin':1A 'trial':2A,3B 'o''brien':4B 'back\\\\slash':5B");
  assert.equal(tsvectorLiteral('', ''), '');
  const terms = ['vaccin', 'say "hi"', 'o\'brien'];
  assert.deepEqual(termsOfFtsMatch(ftsOrQuery(terms)!), terms);
  assert.deepEqual(termsOfFtsMatch('"a" OR "a"'), ['a']);
});

test('vectors print exactly and decode from vector_send bytes', () => {
  const v = new Float32Array([0.1, -0.25, 1 / 3]);
  assert.deepEqual(vectorText(v).slice(1, -1).split(',').map((x) => Math.fround(Number(x))), [...v]);
  const b = Buffer.alloc(4 + 4 * v.length);
  b.writeUInt16BE(v.length, 0);
  v.forEach((x, i) => b.writeFloatBE(x, 4 + 4 * i));
  assert.deepEqual([...vectorFromSend(b)], [...v]);
});
