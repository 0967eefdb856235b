/** Moving knowledge's original uploads from the old layout (`objects/<aa>/<sha256>`) to the shared object store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectStore } from '../../../services/shared/objects/object-store.js';
import { migrateLegacyObjects } from '../../../services/knowledge/src/store/legacy-objects.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

function setup(t: { after(fn: () => void): void }): { dir: string; objects: ObjectStore; old: (data: string, name?: string) => string } {
  const root = mkdtempSync(join(tmpdir(), 'legacy-objects-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'objects');
  const old = (data: string, name = sha(data)): string => {
    mkdirSync(join(dir, name.slice(0, 2)), { recursive: true });
    const path = join(dir, name.slice(0, 2), name);
    writeFileSync(path, data);
    return path;
  };
  return { dir, objects: new ObjectStore(dir), old };
}

test('old-layout blobs move to the shared layout, old folders go, a second run does nothing', (t) => {
  const { dir, objects, old } = setup(t);
  const paths = ['first upload', 'second upload', 'third upload'].map((d) => old(d));
  const r = migrateLegacyObjects(objects);
  assert.deepEqual(r, { moved: 3, mismatched: [], staleTemps: 0 });
  for (const [i, d] of ['first upload', 'second upload', 'third upload'].entries()) {
    assert.equal(objects.get(sha(d))?.toString(), d);
    assert.equal(existsSync(paths[i]!), false);
    assert.equal(existsSync(join(dir, sha(d).slice(0, 2), sha(d))), false);
  }
  assert.deepEqual(migrateLegacyObjects(objects), { moved: 0, mismatched: [], staleTemps: 0 });
});

test('a crash after the copy (blob in both layouts) finishes the move; stale old temp files are removed', (t) => {
  const { objects, old } = setup(t);
  objects.put(Buffer.from('both layouts'));
  const oldPath = old('both layouts');
  const temp = old('half written', `${sha('half written')}.4242.1700000000000.tmp`);
  const r = migrateLegacyObjects(objects);
  assert.deepEqual(r, { moved: 1, mismatched: [], staleTemps: 1 });
  assert.equal(existsSync(oldPath), false);
  assert.equal(existsSync(temp), false);
  assert.equal(objects.get(sha('both layouts'))?.toString(), 'both layouts');
  assert.equal(objects.has(sha('half written')), false);
});

test('a file whose bytes do not hash to its name stays where it is and is reported', (t) => {
  const { objects, old } = setup(t);
  const wrongName = sha('what the name says');
  const path = old('other bytes', wrongName);
  const r = migrateLegacyObjects(objects);
  assert.deepEqual(r, { moved: 0, mismatched: [path], staleTemps: 0 });
  assert.equal(readFileSync(path, 'utf8'), 'other bytes');
  assert.equal(objects.has(wrongName), false);
  assert.equal(objects.has(sha('other bytes')), false);
});

test('what the old layout does not name is left alone; a missing objects folder is no work', (t) => {
  const { dir, objects, old } = setup(t);
  assert.deepEqual(migrateLegacyObjects(objects), { moved: 0, mismatched: [], staleTemps: 0 });
  const kept = objects.put(Buffer.from('already shared'));
  const stray = old('x', 'ab-not-a-digest');
  mkdirSync(join(dir, 'zz'), { recursive: true });
  writeFileSync(join(dir, 'zz', sha('zz file')), 'zz file');
  const wrongPrefix = sha('misplaced').startsWith('cd') ? 'ce' : 'cd';
  const misplaced = join(dir, wrongPrefix, sha('misplaced'));
  mkdirSync(join(dir, wrongPrefix), { recursive: true });
  writeFileSync(misplaced, 'misplaced');
  assert.deepEqual(migrateLegacyObjects(objects), { moved: 0, mismatched: [], staleTemps: 0 });
  assert.equal(existsSync(stray), true);
  assert.equal(existsSync(join(dir, 'zz', sha('zz file'))), true, 'not a hex prefix folder');
  assert.equal(existsSync(misplaced), true, 'a digest in the wrong prefix folder is not the old layout');
  assert.equal(objects.has(sha('misplaced')), false);
  assert.equal(objects.get(kept.sha256)?.toString(), 'already shared');
});
