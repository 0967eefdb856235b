/**
 * Audit blobs written by the old audit object store stay readable through the shared object store
 * after an upgrade; the start-up migration tightens folder modes and removes abandoned temp files
 * of the old writer, and a second run changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectStore } from '../../../services/shared/objects/object-store.js';
import { migrateAuditObjects } from '../../../services/audit/src/store/object-migration.js';

/** What the pre-issue-10 audit store did on `put` (layout, modes, temp naming), reproduced. */
function oldAuditPut(objectsDir: string, bytes: Buffer, leaveTemp = false): string {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const dir = join(objectsDir, 'sha256', sha.slice(0, 2));
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const path = join(dir, sha.slice(2));
  const tmp = `${path}.${randomUUID()}.tmp`;
  writeFileSync(leaveTemp ? tmp : path, bytes, { mode: 0o600 });
  return sha;
}

test('old audit blobs are readable in place; folders tightened, stale temps removed, idempotent', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'audit-objects-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const objects = join(root, 'objects');
  const a = oldAuditPut(objects, Buffer.from('prompt body'));
  const b = oldAuditPut(objects, Buffer.from([0, 255, 7]));
  oldAuditPut(objects, Buffer.from('crashed before rename'), true);
  const shared = new ObjectStore(objects);
  const sharedTemp = join(objects, 'sha256', a.slice(0, 2), '.tmp-1-0-abcdef');
  writeFileSync(sharedTemp, 'in flight');

  const first = migrateAuditObjects(objects);
  assert.equal(first.tempsRemoved, 1);
  assert.ok(first.foldersTightened >= 2);
  assert.equal(shared.get(a)!.toString('utf8'), 'prompt body');
  assert.deepEqual([...shared.get(b)!], [0, 255, 7]);
  assert.equal(shared.size(b), 3);
  for (const sha of [a, b]) {
    assert.equal(statSync(join(objects, 'sha256', sha.slice(0, 2))).mode & 0o777, 0o700);
    assert.equal(statSync(shared.pathOf(sha)).mode & 0o777, 0o600);
  }
  assert.ok(existsSync(sharedTemp), 'a temp file of the shared store is never touched');
  const leftovers = readdirSync(join(objects, 'sha256'), { recursive: true }).map(String).filter((n) => n.endsWith('.tmp'));
  assert.deepEqual(leftovers, []);

  assert.deepEqual(migrateAuditObjects(objects), { foldersTightened: 0, tempsRemoved: 0 });
  const again = shared.put(Buffer.from('prompt body'));
  assert.equal(again.sha256, a);
});

test('no objects folder yet: nothing to do', () => {
  assert.deepEqual(migrateAuditObjects(join(tmpdir(), `absent-${randomUUID()}`)), { foldersTightened: 0, tempsRemoved: 0 });
});
