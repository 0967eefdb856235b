/**
 * Issue 21 item 4 wired into the services: with `objectStore` set (SVC_OBJECT_STORE_URL), the audit
 * service keeps artifact bodies and the knowledge service keeps original uploads in a real
 * S3-compatible bucket (s3rver on an ephemeral port), nothing under the local objects folder; the
 * bodies are served back byte for byte, a reindex and a parse read them from the bucket, and a
 * blob removed from the bucket is reported as gone (not a crash).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { start as startAudit } from '../../services/audit/src/index.js';
import { start as startKnowledge } from '../../services/knowledge/src/index.js';
import { S3ObjectStore } from '../../services/shared/objects/s3-object-store.js';
import type { S3ObjectStoreSettings } from '../../services/shared/objects/settings.js';
import { parseObjectStoreUrl } from '../../main/config/scale-out.js';
import { startS3rver, type TestS3 } from '../helpers/s3rver.js';
import { SERVICE, USER, auditConfig, call, event, newId } from '../helpers/audit.js';
import { call as callJson } from '../helpers/embedder/service-helpers.js';
import { headersFor, knowledgeConfig, principal, removeDir } from '../helpers/embedder/service-helpers.js';
import { makePdf, multipart } from '../helpers/embedder/documents.js';

let s3: TestS3;
let dir: string;
let settings: S3ObjectStoreSettings;

before(async () => {
  s3 = await startS3rver();
  dir = s3.dir;
  const s = parseObjectStoreUrl({
    SVC_OBJECT_STORE_URL: `s3://${s3.bucket}/team?endpoint=${encodeURIComponent(s3.endpoint)}`,
    SVC_S3_ACCESS_KEY_ID: 'S3RVER', SVC_S3_SECRET_ACCESS_KEY: 'S3RVER',
  });
  assert.ok(s);
  settings = s;
});
after(async () => { await s3?.stop(); });

/** Whether s3rver holds blob `sha` under the bucket's key layout. */
function inBucket(sha: string): boolean {
  return existsSync(join(dir, 'svc-objects', 'team', 'sha256', sha.slice(0, 2), `${sha.slice(2)}._S3rver_object`));
}

/** Files under a local objects folder (none expected when the bucket is configured). */
function localBlobs(objectsDir: string): string[] {
  if (!existsSync(objectsDir)) return [];
  return readdirSync(objectsDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}

test('audit artifacts live in the bucket: stored once, replayed and served from it, none in the local folder', async (t) => {
  const cfg = auditConfig({ objectStore: settings });
  const svc = await startAudit(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;
  const turn = newId();
  const ev = event(turn, 'prompt_generated', { sha256: 'x' });
  assert.equal((await call(base, 'POST', '/v1/turns/events', SERVICE(), { events: [event(turn, 'turn_started'), ev] })).status, 200);
  const body = `a prompt kept in the bucket ${turn}`;
  const sha = createHash('sha256').update(body).digest('hex');
  const up = await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: body });
  assert.equal(up.status, 201, JSON.stringify(up.body));
  assert.equal(up.body.sha256, sha);
  assert.equal((await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: body })).status, 200);
  assert.equal((await call(base, 'POST', '/v1/audit/artifacts', SERVICE(), { turn_id: turn, event_id: ev.event_id, kind: 'prompt', content: 'other' })).status, 409);
  assert.ok(inBucket(sha), 'the body is an object in the bucket');
  assert.deepEqual(localBlobs(cfg.objectsDir), [], 'nothing under the local objects folder');
  const res = await fetch(`${base}${up.body.url as string}`, { headers: USER() });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), body);

  // A body removed from the bucket behind the service's back is "not found", not a crash.
  const bucket = new S3ObjectStore(settings);
  try { assert.equal(await bucket.delete(sha), true); } finally { await bucket.close(); }
  const gone = await fetch(`${base}${up.body.url as string}`, { headers: USER() });
  assert.equal(gone.status, 404);
  assert.equal(((await gone.json()) as { code: string }).code, 'artifact_not_found');
});

test('knowledge originals live in the bucket: parsed, served, reindexed from it; a missing original fails the reindex cleanly', async (t) => {
  const cfg = knowledgeConfig({ objectStore: settings });
  const svc = await startKnowledge(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  const base = `http://127.0.0.1:${svc.port}`;
  const alice = headersFor(principal('alice'));
  const pdf = makePdf(['Bucketed report', 'Quarantined heliotrope samples were stored in the bucket.']);
  const sha = createHash('sha256').update(pdf).digest('hex');
  const m = multipart({}, { filename: 'report.pdf', contentType: 'application/pdf', data: pdf });
  const r = await fetch(`${base}/v1/knowledge/ingest`, { method: 'POST', headers: { ...alice, 'content-type': m.contentType }, body: m.body });
  const up = await r.json() as { document_id: string; status: string; chunks_indexed: number };
  assert.equal(r.status, 201, JSON.stringify(up));
  assert.ok(up.chunks_indexed > 0);
  assert.ok(inBucket(sha), 'the original is an object in the bucket');
  assert.deepEqual(localBlobs(cfg.objectsDir), [], 'nothing under the local objects folder');

  const hit = await callJson(base, 'POST', '/v1/knowledge/search', alice, { query: 'heliotrope samples' });
  assert.equal(hit.status, 200, JSON.stringify(hit.body));
  assert.equal(hit.body.results[0]?.document_id, up.document_id);
  const orig = await fetch(`${base}/v1/knowledge/documents/${up.document_id}/content?format=original`, { headers: alice });
  assert.equal(orig.status, 200);
  assert.deepEqual(Buffer.from(await orig.arrayBuffer()), pdf);
  const re = await callJson(base, 'POST', `/v1/knowledge/documents/${up.document_id}/reindex`, alice, {});
  assert.equal(re.status, 200, JSON.stringify(re.body));
  assert.equal(re.body.status, 'indexed');

  const bucket = new S3ObjectStore(settings);
  try { assert.equal(await bucket.delete(sha), true); } finally { await bucket.close(); }
  const again = await callJson(base, 'POST', `/v1/knowledge/documents/${up.document_id}/reindex`, alice, {});
  assert.ok(again.status < 500, JSON.stringify(again.body));
  assert.equal((await fetch(`${base}/v1/knowledge/documents/${up.document_id}/content?format=original`, { headers: alice })).status, 404);
});
