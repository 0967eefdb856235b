/**
 * The S3-compatible object store (issue 21 item 4) against a real S3-compatible server: s3rver (npm,
 * dev dependency) on an ephemeral port, through the AWS SDK v3 with path-style addressing and
 * checksums only where required. Content addressing as the local folder (same key layout), streams,
 * absent and invalid digests, delete; and `SVC_OBJECT_STORE_URL` parsing in main/config.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { S3ObjectStore } from '../../services/shared/objects/s3-object-store.js';
import { openObjectStore } from '../../services/shared/objects/open-object-store.js';
import { ObjectStore } from '../../services/shared/objects/object-store.js';
import { parseObjectStoreUrl } from '../../main/config/scale-out.js';
import { ConfigError } from '../../main/config/env.js';
import { startS3rver, type TestS3 } from '../helpers/s3rver.js';

let s3: TestS3;
let dir: string;
let endpoint: string;

before(async () => {
  s3 = await startS3rver();
  dir = s3.dir;
  endpoint = s3.endpoint;
});
after(async () => { await s3?.stop(); });

function store(prefix = 'tenant-a'): S3ObjectStore {
  const s = parseObjectStoreUrl({
    SVC_OBJECT_STORE_URL: `s3://svc-objects/${prefix}?endpoint=${encodeURIComponent(endpoint)}`,
    SVC_S3_ACCESS_KEY_ID: 'S3RVER', SVC_S3_SECRET_ACCESS_KEY: 'S3RVER',
  });
  assert.ok(s);
  return new S3ObjectStore(s);
}

test('put, get, has, size, delete against s3rver: content-addressed, stored once, under the local layout', async () => {
  const s = store();
  try {
    const bytes = Buffer.from('hello, bucket');
    const sha = createHash('sha256').update(bytes).digest('hex');
    const ref = await s.put(bytes);
    assert.deepEqual(ref, { sha256: sha, size: bytes.length });
    assert.deepEqual(await s.put(bytes), ref, 'a second put of the same bytes is the same blob');
    assert.equal(s.keyOf(sha), `tenant-a/sha256/${sha.slice(0, 2)}/${sha.slice(2)}`);
    // s3rver keeps objects as files under <dir>/<bucket>/<key>._S3rver_object: the key layout is real.
    assert.ok(existsSync(join(dir, 'svc-objects', 'tenant-a', 'sha256', sha.slice(0, 2), `${sha.slice(2)}._S3rver_object`)));
    assert.equal(await s.has(sha), true);
    assert.equal(await s.size(sha), bytes.length);
    assert.deepEqual(await s.get(sha), bytes);
    const opened = await s.open(sha);
    assert.ok(opened);
    const chunks: Buffer[] = [];
    for await (const c of opened.stream) chunks.push(c as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), 'hello, bucket');
    assert.equal(opened.size, bytes.length);
    assert.equal(await s.delete(sha), true);
    assert.equal(await s.delete(sha), false);
    assert.equal(await s.get(sha), null);
    assert.equal(await s.open(sha), null);
  } finally { await s.close(); }
});

test('putStream hashes while staging: a 3 MiB stream lands whole under its digest; invalid digests are absent without a call', async () => {
  const s = store('streams');
  try {
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    big.write('head', 0);
    const sha = createHash('sha256').update(big).digest('hex');
    const ref = await s.putStream(Readable.from([big.subarray(0, 1_000_000), big.subarray(1_000_000)]));
    assert.deepEqual(ref, { sha256: sha, size: big.length });
    const back = await s.get(sha);
    assert.ok(back && back.equals(big));
    for (const bad of ['../../etc/passwd', 'ABC', sha.toUpperCase()]) {
      assert.equal(await s.get(bad), null);
      assert.equal(await s.has(bad), false);
      assert.equal(await s.delete(bad), false);
    }
    assert.throws(() => s.keyOf('nope'), TypeError);
  } finally { await s.close(); }
});

test('prefixes keep tenants apart; a write to a missing bucket is refused by the server (no secret in the error)', async () => {
  const a = store('one');
  const b = store('two');
  // s3rver checks the access key id but not the signature's secret, so a wrong secret cannot be tested here.
  const missing = new S3ObjectStore({ ...parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: `s3://no-such-bucket?endpoint=${encodeURIComponent(endpoint)}` })!, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER-secret-value' } });
  try {
    const { sha256 } = await a.put(Buffer.from('only in one'));
    assert.equal(await b.has(sha256), false);
    assert.equal(await a.has(sha256), true);
    await assert.rejects(missing.put(Buffer.from('x')), (err: Error) => err.name === 'NoSuchBucket' && !/S3RVER-secret-value/.test(String(err.message)));
  } finally { await a.close(); await b.close(); await missing.close(); }
});

test('openObjectStore: the local folder without settings (same files as ObjectStore), S3 with them', async () => {
  const objects = mkdtempSync(join(tmpdir(), 'svc-objects-'));
  try {
    const local = openObjectStore(null, objects);
    const { sha256 } = await local.put(Buffer.from('local'));
    assert.equal(readFileSync(new ObjectStore(objects).pathOf(sha256), 'utf8'), 'local');
    assert.equal((await local.get(sha256))?.toString(), 'local');
    const remote = openObjectStore(parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: `s3://svc-objects?endpoint=${encodeURIComponent(endpoint)}`, SVC_S3_ACCESS_KEY_ID: 'S3RVER', SVC_S3_SECRET_ACCESS_KEY: 'S3RVER' }), objects);
    assert.ok(remote instanceof S3ObjectStore);
    assert.equal(await remote.has(sha256), false);
    await remote.close();
  } finally { rmSync(objects, { recursive: true, force: true }); }
});

test('SVC_OBJECT_STORE_URL parsing: bucket, prefix, region, path style; malformed values name the variable', () => {
  assert.equal(parseObjectStoreUrl({}), null);
  assert.deepEqual(parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: 's3://b/p/q?region=eu-west-1' }), {
    kind: 's3', bucket: 'b', prefix: 'p/q', endpoint: null, region: 'eu-west-1', forcePathStyle: false, credentials: null,
  });
  assert.equal(parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: 's3://b?endpoint=http://m:9000' })?.forcePathStyle, true);
  assert.equal(parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: 's3://b?endpoint=http://m:9000&path_style=false' })?.forcePathStyle, false);
  assert.throws(() => parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: 'http://b' }), (e: Error) => e instanceof ConfigError && /SVC_OBJECT_STORE_URL/.test(e.message));
  assert.throws(() => parseObjectStoreUrl({ SVC_OBJECT_STORE_URL: 's3://b', SVC_S3_ACCESS_KEY_ID: 'k' }), /SVC_S3_SECRET_ACCESS_KEY/);
});
