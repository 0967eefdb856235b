/** The shared object store: layout, modes, idempotent writes, streams, deletes, concurrency. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { ObjectStore, isSha256Hex } from '../../../services/shared/objects/object-store.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'objects-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'objects');
}

/** Every file under `dir`, relative, sorted. */
function files(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => e.isDirectory()
    ? files(join(dir, e.name), `${prefix}${e.name}/`)
    : [`${prefix}${e.name}`]).sort();
}

test('put stores bytes at sha256/<2 hex>/<62 hex>, mode 0600, once per content', (t) => {
  const dir = tempDir(t);
  const store = new ObjectStore(dir);
  const data = Buffer.from('hello objects');
  const ref = store.put(data);
  assert.deepEqual(ref, { sha256: sha(data), size: data.length });
  assert.equal(store.pathOf(ref.sha256), join(dir, 'sha256', ref.sha256.slice(0, 2), ref.sha256.slice(2)));
  assert.deepEqual(files(dir), [`sha256/${ref.sha256.slice(0, 2)}/${ref.sha256.slice(2)}`]);
  assert.equal(statSync(store.pathOf(ref.sha256)).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'sha256', ref.sha256.slice(0, 2))).mode & 0o077, 0);
  assert.deepEqual(store.put(data), ref, 'same bytes, same ref');
  assert.equal(files(dir).length, 1, 'stored once, no temp left');
  assert.deepEqual(store.get(ref.sha256), data);
  assert.equal(store.has(ref.sha256), true);
  assert.equal(store.size(ref.sha256), data.length);
});

test('absent and invalid digests answer absent; pathOf rejects a non-digest', (t) => {
  const store = new ObjectStore(tempDir(t));
  const missing = sha('never stored');
  assert.equal(store.get(missing), null);
  assert.equal(store.has(missing), false);
  assert.equal(store.open(missing), null);
  assert.equal(store.size(missing), null);
  assert.equal(store.delete(missing), false);
  for (const bad of ['../../etc/passwd', missing.toUpperCase(), missing.slice(1), '']) {
    assert.equal(store.get(bad), null);
    assert.equal(store.has(bad), false);
    assert.equal(store.delete(bad), false);
    assert.throws(() => store.pathOf(bad), TypeError);
  }
  assert.equal(isSha256Hex(missing), true);
  assert.equal(isSha256Hex(42), false);
});

test('open streams the blob with its size; delete removes it and keeps the folder', async (t) => {
  const dir = tempDir(t);
  const store = new ObjectStore(dir);
  const data = Buffer.alloc(100_000, 7);
  const { sha256 } = store.put(data);
  const opened = store.open(sha256)!;
  assert.equal(opened.size, data.length);
  const chunks: Buffer[] = [];
  for await (const c of opened.stream) chunks.push(c as Buffer);
  assert.deepEqual(Buffer.concat(chunks), data);
  assert.equal(store.delete(sha256), true);
  assert.equal(store.has(sha256), false);
  assert.equal(store.get(sha256), null);
  assert.ok(existsSync(join(dir, 'sha256', sha256.slice(0, 2))), 'folders are never removed');
  assert.equal(store.delete(sha256), false);
});

test('putStream hashes while writing, matches put, and leaves no temp file', async (t) => {
  const dir = tempDir(t);
  const store = new ObjectStore(dir);
  const parts = [Buffer.from('part one, '), Buffer.from('part two, '), Buffer.alloc(70_000, 1)];
  const whole = Buffer.concat(parts);
  const ref = await store.putStream(Readable.from(parts));
  assert.deepEqual(ref, { sha256: sha(whole), size: whole.length });
  assert.deepEqual(store.get(ref.sha256), whole);
  assert.equal(statSync(store.pathOf(ref.sha256)).mode & 0o777, 0o600);
  assert.deepEqual(await store.putStream(Readable.from([whole])), ref, 'already present');
  assert.deepEqual(store.put(whole), ref);
  assert.deepEqual(files(dir), [`sha256/${ref.sha256.slice(0, 2)}/${ref.sha256.slice(2)}`]);
});

test('putStream: a failing source leaves nothing behind', async (t) => {
  const dir = tempDir(t);
  const store = new ObjectStore(dir);
  async function* failing(): AsyncGenerator<Uint8Array> {
    yield Buffer.from('some bytes');
    throw new Error('source broke');
  }
  await assert.rejects(store.putStream(failing()), /source broke/);
  assert.deepEqual(files(dir), []);
});

test('concurrent writers (calls and worker threads) of the same and different blobs agree', async (t) => {
  const dir = tempDir(t);
  const store = new ObjectStore(dir);
  const blobs = Array.from({ length: 8 }, (_, i) => Buffer.from(`blob ${i % 4}`));
  const refs = await Promise.all(blobs.map((b, i) => i % 2 ? store.putStream(Readable.from([b])) : Promise.resolve(store.put(b))));
  for (let i = 0; i < blobs.length; i++) assert.equal(refs[i]!.sha256, sha(blobs[i]!));
  // Worker threads share the pid: temp names must still differ per thread.
  const moduleUrl = new URL('../../../services/shared/objects/object-store.js', import.meta.url).href;
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.moduleUrl).then(({ ObjectStore }) => {
      const store = new ObjectStore(workerData.dir);
      const out = [];
      for (let i = 0; i < 50; i++) out.push(store.put(Buffer.from('shared blob ' + (i % 5))).sha256);
      parentPort.postMessage(out);
    });`;
  const results = await Promise.all(Array.from({ length: 4 }, () => new Promise<string[]>((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { moduleUrl, dir } });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  for (const r of results) assert.deepEqual(r.slice(0, 5), [0, 1, 2, 3, 4].map((i) => sha(`shared blob ${i}`)));
  const stored = files(dir);
  assert.equal(stored.filter((f) => f.includes('.tmp-')).length, 0, 'no temp file left');
  assert.equal(stored.length, 4 + 5);
  for (let i = 0; i < 5; i++) assert.equal(readFileSync(store.pathOf(sha(`shared blob ${i}`))).toString(), `shared blob ${i}`);
});
