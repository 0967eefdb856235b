/**
 * The knowledge service on port 0 with a temp data dir and no embedding model (sparse only):
 * the visibility matrix on every read path, batch governance rules, file ingestion (PDF, DOCX),
 * failed ingestion, document lifecycle, wiki, audiences, rag_chunks_retrieved events landing in
 * the real audit service, and original uploads of the old object layout moved at start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { start } from '../../services/knowledge/src/index.js';
import { start as startAudit } from '../../services/audit/src/index.js';
import { auditConfig } from '../helpers/audit.js';
import { call, headersFor, knowledgeConfig, principal, removeDir, TENANT } from '../helpers/embedder/service-helpers.js';
import { makeDocx, makePdf, multipart } from '../helpers/embedder/documents.js';
import { ObjectStore } from '../../services/shared/objects/object-store.js';
import { ulid } from 'ulid';

type T = import('node:test').TestContext;

async function boot(t: T, overrides = {}, urls = {}) {
  const cfg = knowledgeConfig(overrides, urls);
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  return { cfg, base: `http://127.0.0.1:${svc.port}` };
}

const H = {
  alice: () => headersFor(principal('alice')),
  bob: () => headersFor(principal('bob')),
  carol: () => headersFor(principal('carol')),
  dave: () => headersFor(principal('dave')),
  root: () => headersFor(principal('root', ['admin', 'user'])),
};
type Who = keyof typeof H;
const EVERYONE: Who[] = ['alice', 'bob', 'carol', 'dave', 'root'];

async function upload(base: string, headers: Record<string, string>, fields: Record<string, string>, file?: Parameters<typeof multipart>[1]) {
  const m = multipart(fields, file);
  const r = await fetch(`${base}${file ? '/v1/knowledge/ingest' : '/v1/knowledge/ingest/text'}`, { method: 'POST', headers: { ...headers, 'content-type': m.contentType }, body: m.body });
  return { status: r.status, body: await r.json() as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

test('visibility matrix: private, restricted (grants + audience), shared to an audience, tenant-wide, on search, list, detail, content', async (t) => {
  const { base } = await boot(t);
  // carol is in the "legal" audience
  assert.equal((await call(base, 'PUT', '/v1/knowledge/admin/audiences/legal', H.root(), { description: 'Legal team' })).status, 200);
  assert.equal((await call(base, 'PUT', '/v1/knowledge/admin/audiences/legal/members', H.alice(), { user_ids: ['carol'] })).status, 403, 'members need an admin');
  const mem = await call(base, 'PUT', '/v1/knowledge/admin/audiences/legal/members', H.root(), { tenant_id: TENANT, audience_tag: 'legal', user_ids: ['carol'] });
  assert.equal(mem.status, 200);
  assert.deepEqual(mem.body.user_ids, ['carol']);

  const priv = await upload(base, H.alice(), { title: 'Zephyrine memo', content: 'The zephyrine budget is private to Alice.', tenant_id: TENANT });
  assert.equal(priv.status, 201);
  assert.equal(priv.body.visibility_mode, 'private');
  const restricted = await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), {
    tenant_id: TENANT, visibility_mode: 'restricted', user_grants: ['bob'], audience_tags: ['legal'],
    records: [{ title: 'Quillbrook contract', content: 'The quillbrook contract terms are restricted.', metadata: { tags: ['contract'] } }],
  });
  assert.equal(restricted.status, 201, JSON.stringify(restricted.body));
  const audience = await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), {
    visibility_mode: 'shared', audience_tags: ['legal'], records: [{ title: 'Marlowe brief', content: 'The marlowe brief is for the legal audience.' }],
  });
  assert.equal(audience.status, 201);
  const wide = await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), {
    visibility_mode: 'shared', confirm_tenant_wide: true, records: [{ title: 'Canteen menu', content: 'The canteen menu features tenantwide soup.' }],
  });
  assert.equal(wide.status, 201);

  const docs = {
    private: { id: priv.body.document_id as string, term: 'zephyrine', readers: ['alice', 'root'] },
    restricted: { id: restricted.body.documents[0].document_id as string, term: 'quillbrook', readers: ['alice', 'bob', 'carol', 'root'] },
    audience: { id: audience.body.documents[0].document_id as string, term: 'marlowe', readers: ['alice', 'carol', 'root'] },
    wide: { id: wide.body.documents[0].document_id as string, term: 'tenantwide', readers: EVERYONE },
  };
  for (const [name, d] of Object.entries(docs)) {
    for (const who of EVERYONE) {
      const can = (d.readers as string[]).includes(who);
      const s = await call(base, 'POST', '/v1/knowledge/search', H[who](), { tenant_id: TENANT, query: `${d.term} document`, limit: 10 });
      assert.equal(s.status, 200);
      assert.equal(s.body.results.some((r: { source: string }) => r.source === d.id), can, `${name} search as ${who}`);
      const l = await call(base, 'GET', `/v1/knowledge/documents?tenant_id=${TENANT}`, H[who]());
      assert.equal(l.body.items.some((x: { document_id: string }) => x.document_id === d.id), can, `${name} list as ${who}`);
      const det = await call(base, 'GET', `/v1/knowledge/documents/${d.id}?tenant_id=${TENANT}`, H[who]());
      assert.equal(det.status, can ? 200 : 404, `${name} detail as ${who}`);
      const c = await call(base, 'GET', `/v1/knowledge/documents/${d.id}/content`, H[who]());
      assert.equal(c.status, can ? 200 : 404, `${name} content as ${who}`);
      if (can) assert.match(c.body.content, new RegExp(d.term));
    }
  }
  const det = await call(base, 'GET', `/v1/knowledge/documents/${docs.restricted.id}`, H.bob());
  assert.equal(det.body.visibility_mode, 'restricted');
  assert.deepEqual(det.body.user_grants, ['bob']);
  assert.deepEqual(det.body.audience_tags, ['legal']);
  assert.equal(det.body.owner_user_id, 'alice');
  assert.equal(det.body.creator_user_id, 'alice');
  assert.deepEqual(det.body.tags, ['contract']);
  assert.equal(det.body.knowledge_item_id, docs.restricted.id);
  assert.equal(det.body.archived_at, null);
  assert.equal(det.body.last_error, null);

  // Principal groups count as audience membership.
  const grouped = headersFor(principal('erin', ['user'], ['legal']));
  const s = await call(base, 'POST', '/v1/knowledge/search', grouped, { query: 'marlowe' });
  assert.equal(s.body.results[0]?.source, docs.audience.id);

  // Only owners and admins change items; readers get 403, others 404.
  assert.equal((await call(base, 'DELETE', `/v1/knowledge/documents/${docs.restricted.id}`, H.bob())).status, 403);
  assert.equal((await call(base, 'DELETE', `/v1/knowledge/documents/${docs.restricted.id}`, H.dave())).status, 404);
  assert.equal((await call(base, 'POST', `/v1/knowledge/documents/${docs.private.id}/archive`, H.dave())).status, 404);
});

test('batch governance: tenant-wide needs confirmation, owners only by admins, records validated', async (t) => {
  const { base } = await boot(t);
  const rec = [{ title: 'A', content: 'alpha text' }];
  const noConfirm = await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), { visibility_mode: 'shared', records: rec });
  assert.equal(noConfirm.status, 400);
  assert.equal(noConfirm.body.code, 'confirm_tenant_wide_required');
  const owner = await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), { owner_user_id: 'bob', records: rec });
  assert.equal(owner.status, 403);
  assert.equal(owner.body.code, 'owner_forbidden');
  const byAdmin = await call(base, 'POST', '/v1/knowledge/ingest/batch', H.root(), { owner_user_id: 'bob', records: [...rec, { title: '', content: 'x' }] });
  assert.equal(byAdmin.status, 201);
  assert.equal(byAdmin.body.owner_user_id, 'bob');
  assert.equal(byAdmin.body.documents_indexed, 1);
  assert.deepEqual(byAdmin.body.failed.map((f: { index: number }) => f.index), [1]);
  assert.equal(byAdmin.body.dense, 'disabled');
  const job = await call(base, 'GET', `/v1/knowledge/jobs/${byAdmin.body.job_id}`, H.root());
  assert.equal(job.status, 200);
  assert.equal(job.body.status, 'done');
  assert.equal(job.body.progress, 1);
  // bob owns it (private): bob sees it, alice does not.
  const id = byAdmin.body.documents[0].document_id;
  assert.equal((await call(base, 'GET', `/v1/knowledge/documents/${id}`, H.bob())).status, 200);
  assert.equal((await call(base, 'GET', `/v1/knowledge/documents/${id}`, H.alice())).status, 404);
  assert.equal((await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), { records: [] })).status, 400);
  assert.equal((await call(base, 'POST', '/v1/knowledge/ingest/batch', H.alice(), { visibility_mode: 'private', user_grants: ['bob'], records: rec })).status, 400);
  assert.equal((await call(base, 'POST', '/v1/knowledge/ingest/batch', {}, { records: rec })).status, 401);
});

test('files: PDF and DOCX are parsed, chunked, searchable and cited; bad files keep last_error; lifecycle', async (t) => {
  const { base } = await boot(t);
  const pdf = await upload(base, H.alice(), {}, { filename: 'report.pdf', contentType: 'application/pdf', data: makePdf(['Quarterly photosynthesis report.', 'Chlorophyll yields rose by nine percent.'], 'Photosynthesis Report') });
  assert.equal(pdf.status, 201, JSON.stringify(pdf.body));
  assert.equal(pdf.body.title, 'Photosynthesis Report', 'PDF metadata title when the form gives none');
  assert.equal(pdf.body.status, 'indexed');
  assert.ok(pdf.body.chunks_indexed >= 1);
  const docx = await upload(base, H.alice(), { title: 'Onboarding guide' }, {
    filename: 'guide.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    data: makeDocx('Laptop setup', ['Request a laptop from the helpdesk.', 'Enable disk encryption before first use.']),
  });
  assert.equal(docx.status, 201, JSON.stringify(docx.body));
  const s1 = await call(base, 'POST', '/v1/knowledge/search', H.alice(), { query: 'chlorophyll yields' });
  assert.equal(s1.body.results[0].document_title, 'Photosynthesis Report');
  assert.match(s1.body.results[0].retrieval_rationale, /\(BM25\) rank 1.*chlorophyl/);
  assert.ok(s1.body.results[0].score >= 0.5 && s1.body.results[0].score <= 1);
  assert.equal(s1.body.retrieval.dense, false);
  const s2 = await call(base, 'POST', '/v1/knowledge/search', H.alice(), { query: 'disk encryption laptop' });
  assert.equal(s2.body.results[0].document_title, 'Onboarding guide');
  assert.equal(s2.body.results[0].heading, 'Laptop setup', 'DOCX headings reach chunk headings');
  assert.equal((await call(base, 'POST', '/v1/knowledge/search', H.bob(), { query: 'disk encryption laptop' })).body.results.length, 0, 'uploads are private');
  const content = await call(base, 'GET', `/v1/knowledge/documents/${docx.body.document_id}/content`, H.alice());
  assert.match(content.body.content, /# Laptop setup/);
  const orig = await fetch(`${base}/v1/knowledge/documents/${pdf.body.document_id}/content?format=original`, { headers: H.alice() });
  assert.equal(orig.status, 200);
  assert.equal(orig.headers.get('content-type'), 'application/pdf');

  const bad = await upload(base, H.alice(), {}, { filename: 'broken.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4\nthis is not a pdf') });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.code, 'ingestion_failed');
  const failed = await call(base, 'GET', `/v1/knowledge/documents/${bad.body.document_id}`, H.alice());
  assert.equal(failed.body.status, 'failed');
  assert.match(failed.body.last_error, /PDF/);
  const bin = await upload(base, H.alice(), {}, { filename: 'blob.bin', contentType: 'application/octet-stream', data: Buffer.from([0, 1, 2, 3, 255, 0]) });
  assert.equal(bin.status, 415);
  const csv = await upload(base, H.alice(), { title: 'Inventory' }, { filename: 'stock.csv', contentType: 'text/csv', data: Buffer.from('item,count\n"widget, blue",42\ngizmo,7\n') });
  assert.equal(csv.status, 201);
  assert.match((await call(base, 'GET', `/v1/knowledge/documents/${csv.body.document_id}/content`, H.alice())).body.content, /item: widget, blue\ncount: 42/);

  // archive hides from search and the default list; restore brings it back; reindex; delete
  const id = pdf.body.document_id;
  const arch = await call(base, 'POST', `/v1/knowledge/documents/${id}/archive`, H.alice());
  assert.ok(arch.body.archived_at);
  assert.equal((await call(base, 'POST', '/v1/knowledge/search', H.alice(), { query: 'chlorophyll' })).body.results.length, 0);
  assert.ok(!(await call(base, 'GET', '/v1/knowledge/documents', H.alice())).body.items.some((d: { document_id: string }) => d.document_id === id));
  assert.ok((await call(base, 'GET', '/v1/knowledge/documents?archived=only', H.alice())).body.items.some((d: { document_id: string }) => d.document_id === id));
  assert.equal((await call(base, 'POST', `/v1/knowledge/documents/${id}/restore`, H.alice())).body.archived_at, null);
  const re = await call(base, 'POST', `/v1/knowledge/documents/${id}/reindex`, H.alice());
  assert.equal(re.status, 200);
  assert.equal(re.body.status, 'indexed');
  assert.equal((await call(base, 'POST', '/v1/knowledge/search', H.alice(), { query: 'chlorophyll' })).body.results.length, 1);
  assert.equal((await call(base, 'DELETE', `/v1/knowledge/documents/${id}`, H.alice())).status, 200);
  assert.equal((await call(base, 'GET', `/v1/knowledge/documents/${id}`, H.alice())).status, 404);
  assert.equal((await call(base, 'POST', '/v1/knowledge/search', H.alice(), { query: 'chlorophyll' })).body.results.length, 0);
  // pagination
  const p1 = await call(base, 'GET', '/v1/knowledge/documents?limit=1&archived=include', H.alice());
  assert.equal(p1.body.items.length, 1);
  const p2 = await call(base, 'GET', `/v1/knowledge/documents?limit=1&archived=include&cursor=${p1.body.next_cursor}`, H.alice());
  assert.notEqual(p2.body.items[0].document_id, p1.body.items[0].document_id);
});

test('wiki: private by default, restricted to grants, topic conflicts leak nothing; readyz says dense is off', async (t) => {
  const { base } = await boot(t);
  const w = await call(base, 'POST', '/v1/knowledge/wiki', H.alice(), { tenant_id: TENANT, topic: 'alice-notes', title: 'Notes', summary: 's', tags: ['x'], content: '# Notes\nsecret plan' });
  assert.equal(w.status, 201);
  assert.equal(w.body.visibility_mode, 'private');
  assert.equal((await call(base, 'POST', '/v1/knowledge/wiki', H.alice(), { topic: 'alice-notes', title: 'Notes v2', content: 'updated' })).status, 200);
  for (const who of EVERYONE) {
    const r = await call(base, 'GET', '/v1/knowledge/wiki/alice-notes', H[who]());
    assert.equal(r.status, ['alice', 'root'].includes(who) ? 200 : 404, `private wiki as ${who}`);
    const l = await call(base, 'GET', '/v1/knowledge/wiki', H[who]());
    assert.equal(l.body.items.some((p: { topic: string }) => p.topic === 'alice-notes'), ['alice', 'root'].includes(who));
  }
  assert.equal((await call(base, 'GET', '/v1/knowledge/wiki/alice-notes', H.alice())).body.title, 'Notes v2');
  const conflict = await call(base, 'POST', '/v1/knowledge/wiki', H.dave(), { topic: 'alice-notes', title: 'Mine', content: 'overwrite' });
  assert.equal(conflict.status, 409);
  assert.equal(conflict.body.code, 'wiki_topic_conflict');
  assert.equal((await call(base, 'POST', '/v1/knowledge/wiki', H.alice(), { topic: 'team', title: 'Team', content: 'c', visibility_mode: 'restricted', user_grants: ['bob'] })).status, 201);
  assert.equal((await call(base, 'GET', '/v1/knowledge/wiki/team', H.bob())).status, 200);
  assert.equal((await call(base, 'GET', '/v1/knowledge/wiki/team', H.dave())).status, 404);
  assert.equal((await call(base, 'POST', '/v1/knowledge/wiki', H.alice(), { topic: 'all', title: 'All', content: 'c', visibility_mode: 'shared' })).status, 400);
  assert.equal((await call(base, 'DELETE', '/v1/knowledge/wiki/team', H.bob())).status, 403);
  assert.equal((await call(base, 'DELETE', '/v1/knowledge/wiki/alice-notes', H.dave())).status, 404);
  assert.equal((await call(base, 'DELETE', '/v1/knowledge/wiki/team', H.root())).status, 200);
  assert.equal((await call(base, 'GET', '/v1/knowledge/wiki/team', H.alice())).status, 404);
  const ready = await (await fetch(`${base}/readyz`)).json() as { status: string; dense_retrieval: string; dense_reason: string };
  assert.equal(ready.status, 'ready');
  assert.equal(ready.dense_retrieval, 'off');
  assert.match(ready.dense_reason, /no embedding model/);
  const st = await call(base, 'GET', '/v1/knowledge/status', H.alice());
  assert.equal(st.body.dense_enabled, false);
  assert.equal(st.body.sparse_enabled, true);
  const aud = await call(base, 'GET', '/v1/knowledge/admin/audiences', H.alice());
  assert.equal(aud.status, 200);
});

test('rag_chunks_retrieved: a search within a turn lands its event in the audit service before answering', async (t) => {
  const acfg = auditConfig({ tenantId: TENANT });
  const audit = await startAudit(acfg);
  t.after(async () => { await audit.close(); removeDir(acfg.dataDir); });
  const auditUrl = `http://127.0.0.1:${audit.port}`;
  const { base } = await boot(t, {}, { audit: auditUrl });
  await call(base, 'POST', '/v1/knowledge/ingest/text', H.alice(), { title: 'Orbit', content: 'Satellites keep a geostationary orbit.' });
  const turn = ulid();
  const s = await call(base, 'POST', '/v1/knowledge/search', headersFor(principal('alice'), turn), { query: 'geostationary orbit' });
  assert.equal(s.body.results.length, 1);
  const replay = await call(auditUrl, 'GET', `/v1/audit/turns/${turn}/replay?tenant_id=${TENANT}`, headersFor(principal('root', ['admin'])));
  assert.equal(replay.status, 200, JSON.stringify(replay.body));
  const ev = (replay.body.events as Array<{ payload_type: string; emitter_service: string; payload: unknown; payload_json?: string }>).find((e) => e.payload_type === 'rag_chunks_retrieved');
  assert.ok(ev, 'event recorded');
  assert.equal(ev.emitter_service, 'knowledge');
  const payload = (ev.payload ?? JSON.parse(ev.payload_json!)) as { count: number; chunks: Array<{ document_id: string }>; query_sha256: string };
  assert.equal(payload.count, 1);
  assert.equal(payload.chunks[0]!.document_id, s.body.results[0].document_id);
  assert.match(payload.query_sha256, /^[0-9a-f]{64}$/);
});

test('original uploads kept in the old object layout (objects/<aa>/<sha256>) are moved at start and still served', async (t) => {
  const cfg = knowledgeConfig();
  t.after(() => removeDir(cfg.dataDir));
  let svc = await start(cfg);
  t.after(() => svc.close());
  let base = `http://127.0.0.1:${svc.port}`;
  const bytes = makePdf(['Legacy layout memo.', 'The heliograph schedule is kept.'], 'Heliograph memo');
  const pdf = await upload(base, H.alice(), {}, { filename: 'memo.pdf', contentType: 'application/pdf', data: bytes });
  assert.equal(pdf.status, 201);
  await svc.close();

  // Data dir as knowledge left it before the shared object store, with an interrupted old write.
  const sha = createHash('sha256').update(bytes).digest('hex');
  const objects = new ObjectStore(cfg.objectsDir);
  const oldDir = join(cfg.objectsDir, sha.slice(0, 2));
  mkdirSync(oldDir, { recursive: true });
  renameSync(objects.pathOf(sha), join(oldDir, sha));
  writeFileSync(join(oldDir, `${sha}.4242.1700000000000.tmp`), 'partial');
  assert.equal(objects.has(sha), false);

  for (let round = 0; round < 2; round++) {
    svc = await start(cfg);
    base = `http://127.0.0.1:${svc.port}`;
    const orig = await fetch(`${base}/v1/knowledge/documents/${pdf.body.document_id}/content?format=original`, { headers: H.alice() });
    assert.equal(orig.status, 200, `round ${round}`);
    assert.deepEqual(Buffer.from(await orig.arrayBuffer()), bytes);
    assert.equal(objects.has(sha), true);
    assert.equal(existsSync(oldDir), false, 'the old folder is gone once empty');
    assert.deepEqual(readdirSync(cfg.objectsDir), ['sha256']);
    const re = await call(base, 'POST', `/v1/knowledge/documents/${pdf.body.document_id}/reindex`, H.alice());
    assert.equal(re.status, 200);
    assert.equal(re.body.status, 'indexed');
    await svc.close();
  }
});
