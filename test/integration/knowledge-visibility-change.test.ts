/**
 * `PATCH /v1/knowledge/documents/:id` on the knowledge service (port 0, temp data dir): a private
 * PDF upload becomes restricted with a grant, shared to an audience, tenant-wide (with the
 * confirmation) and private again, each change visible at once on search, list, detail and
 * content; only the owner or an admin may change it (403 `not_owner` / 404); the batch route's
 * rules (confirmation, owner changes, private without grants) and body validation; a new title is
 * searchable at once and re-embedded in the background with the test model.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { start } from '../../services/knowledge/src/index.js';
import { call, headersFor, knowledgeConfig, principal, removeDir, TENANT, TOKENIZER } from '../helpers/embedder/service-helpers.js';
import { makePdf, multipart } from '../helpers/embedder/documents.js';
import { writeTestModel } from '../helpers/embedder/make-test-model.js';

type T = import('node:test').TestContext;

async function boot(t: T, overrides = {}) {
  const cfg = knowledgeConfig(overrides);
  const svc = await start(cfg);
  t.after(async () => { await svc.close(); removeDir(cfg.dataDir); });
  return `http://127.0.0.1:${svc.port}`;
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

async function uploadPdf(base: string, title: string, lines: string[]): Promise<string> {
  const m = multipart({ title, tenant_id: TENANT }, { filename: 'memo.pdf', contentType: 'application/pdf', data: makePdf(lines) });
  const r = await fetch(`${base}/v1/knowledge/ingest`, { method: 'POST', headers: { ...H.alice(), 'content-type': m.contentType }, body: m.body });
  const body = await r.json() as { document_id: string; visibility_mode: string };
  assert.equal(r.status, 201, JSON.stringify(body));
  assert.equal(body.visibility_mode, 'private', 'file uploads are private (spec)');
  return body.document_id;
}

/** Every read path agrees, for every user, on who reads `id`. */
async function assertReaders(base: string, id: string, term: string, readers: Who[], label: string): Promise<void> {
  for (const who of EVERYONE) {
    const can = readers.includes(who);
    const s = await call(base, 'POST', '/v1/knowledge/search', H[who](), { tenant_id: TENANT, query: term, limit: 10 });
    assert.equal(s.status, 200);
    assert.equal(s.body.results.some((r: { source: string }) => r.source === id), can, `${label}: search as ${who}`);
    const l = await call(base, 'GET', `/v1/knowledge/documents?tenant_id=${TENANT}`, H[who]());
    assert.equal(l.body.items.some((x: { document_id: string }) => x.document_id === id), can, `${label}: list as ${who}`);
    const det = await call(base, 'GET', `/v1/knowledge/documents/${id}?tenant_id=${TENANT}`, H[who]());
    assert.equal(det.status, can ? 200 : 404, `${label}: detail as ${who}`);
    const c = await call(base, 'GET', `/v1/knowledge/documents/${id}/content`, H[who]());
    assert.equal(c.status, can ? 200 : 404, `${label}: content as ${who}`);
    if (can) assert.match(c.body.content, new RegExp(term, 'i'));
    const o = await fetch(`${base}/v1/knowledge/documents/${id}/content?format=original`, { headers: H[who]() });
    await o.arrayBuffer();
    assert.equal(o.status, can ? 200 : 404, `${label}: original as ${who}`);
  }
}

test('visibility change after upload: private -> restricted -> audience -> tenant-wide -> private, on every read path', async (t) => {
  const base = await boot(t);
  assert.equal((await call(base, 'PUT', '/v1/knowledge/admin/audiences/legal/members', H.root(), { user_ids: ['carol'] })).status, 200);
  const id = await uploadPdf(base, 'Harbourmaster memo', ['Harbourmaster memo', 'The harbourmaster schedule changes in spring.']);
  const path = `/v1/knowledge/documents/${id}`;
  await assertReaders(base, id, 'harbourmaster', ['alice', 'root'], 'private');

  // Not visible: 404 like absent; absent: 404.
  assert.equal((await call(base, 'PATCH', path, H.bob(), { visibility_mode: 'shared', confirm_tenant_wide: true })).status, 404);
  assert.equal((await call(base, 'PATCH', '/v1/knowledge/documents/01ABSENTABSENTABSENTABSENT', H.alice(), { title: 'x' })).status, 404);

  // private -> restricted with a grant: bob reads it at once, others still do not.
  const r1 = await call(base, 'PATCH', path, H.alice(), { tenant_id: TENANT, visibility_mode: 'restricted', user_grants: ['bob'] });
  assert.equal(r1.status, 200, JSON.stringify(r1.body));
  assert.equal(r1.body.document_id, id);
  assert.equal(r1.body.visibility_mode, 'restricted');
  assert.deepEqual(r1.body.user_grants, ['bob']);
  assert.deepEqual(r1.body.audience_tags, []);
  assert.equal(r1.body.owner_user_id, 'alice');
  assert.ok(Array.isArray(r1.body.chunks) && r1.body.chunks.length > 0, 'answers with the document detail');
  await assertReaders(base, id, 'harbourmaster', ['alice', 'bob', 'root'], 'restricted to bob');

  // A reader who does not own it: 403 not_owner; nothing changed.
  const byBob = await call(base, 'PATCH', path, H.bob(), { user_grants: ['bob', 'dave'] });
  assert.equal(byBob.status, 403);
  assert.equal(byBob.body.code, 'not_owner');
  assert.equal((await call(base, 'PATCH', path, H.dave(), { title: 'Mine now' })).status, 404);

  // Without visibility_mode, absent lists keep their values: add the legal audience, keep bob.
  const r2 = await call(base, 'PATCH', path, H.alice(), { audience_tags: ['legal'] });
  assert.equal(r2.status, 200);
  assert.deepEqual([r2.body.visibility_mode, r2.body.audience_tags, r2.body.user_grants], ['restricted', ['legal'], ['bob']]);
  await assertReaders(base, id, 'harbourmaster', ['alice', 'bob', 'carol', 'root'], 'restricted to bob and legal');

  // With visibility_mode the set is replaced: shared to legal only, bob's grant goes.
  const r3 = await call(base, 'PATCH', path, H.alice(), { visibility_mode: 'shared', audience_tags: ['legal'] });
  assert.equal(r3.status, 200);
  assert.deepEqual([r3.body.visibility_mode, r3.body.audience_tags, r3.body.user_grants], ['shared', ['legal'], []]);
  await assertReaders(base, id, 'harbourmaster', ['alice', 'carol', 'root'], 'shared to legal');

  // Tenant-wide needs the confirmation; without it nothing changes.
  const noConfirm = await call(base, 'PATCH', path, H.alice(), { visibility_mode: 'shared' });
  assert.equal(noConfirm.status, 400);
  assert.equal(noConfirm.body.code, 'confirm_tenant_wide_required');
  assert.deepEqual((await call(base, 'GET', path, H.alice())).body.audience_tags, ['legal']);
  const wide = await call(base, 'PATCH', path, H.alice(), { visibility_mode: 'shared', confirm_tenant_wide: true });
  assert.equal(wide.status, 200);
  assert.deepEqual([wide.body.visibility_mode, wide.body.audience_tags], ['shared', []]);
  await assertReaders(base, id, 'harbourmaster', EVERYONE, 'tenant-wide');
  // Already tenant-wide: a title change needs no new confirmation.
  const renamed = await call(base, 'PATCH', path, H.alice(), { title: 'Lighthouse keeper memo' });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.body.title, 'Lighthouse keeper memo');
  // The new title is searchable at once (FTS title terms rewritten), the old one only through the body.
  const s = await call(base, 'POST', '/v1/knowledge/search', H.dave(), { query: 'lighthouse keeper' });
  assert.equal(s.body.results[0]?.source, id);
  assert.equal(s.body.results[0]?.document_title, 'Lighthouse keeper memo');
  // A non-admin reader still cannot change it.
  assert.equal((await call(base, 'PATCH', path, H.dave(), { visibility_mode: 'private' })).status, 403);

  // Back to private: only the owner and admins again.
  const back = await call(base, 'PATCH', path, H.alice(), { visibility_mode: 'private' });
  assert.equal(back.status, 200);
  assert.equal(back.body.visibility_mode, 'private');
  await assertReaders(base, id, 'harbourmaster', ['alice', 'root'], 'private again');
});

test('owner changes follow the batch rules; admins may change any document', async (t) => {
  const base = await boot(t);
  const id = await uploadPdf(base, 'Tideline report', ['Tideline report', 'Tideline erosion along the north beach.']);
  const path = `/v1/knowledge/documents/${id}`;
  const self = await call(base, 'PATCH', path, H.alice(), { owner_user_id: 'alice' });
  assert.equal(self.status, 200, 'naming yourself is allowed');
  const toBob = await call(base, 'PATCH', path, H.alice(), { owner_user_id: 'bob' });
  assert.equal(toBob.status, 403);
  assert.equal(toBob.body.code, 'owner_forbidden');
  assert.equal((await call(base, 'GET', path, H.alice())).body.owner_user_id, 'alice');

  // An admin may change visibility and owner of a document it does not own.
  const admin = await call(base, 'PATCH', path, H.root(), { owner_user_id: 'bob', visibility_mode: 'restricted', user_grants: ['carol'] });
  assert.equal(admin.status, 200, JSON.stringify(admin.body));
  assert.deepEqual([admin.body.owner_user_id, admin.body.creator_user_id, admin.body.visibility_mode, admin.body.user_grants], ['bob', 'alice', 'restricted', ['carol']]);
  await assertReaders(base, id, 'tideline', ['bob', 'carol', 'root'], 'owned by bob, granted to carol');
  // The former owner (creator) now reads nothing and may change nothing.
  assert.equal((await call(base, 'PATCH', path, H.alice(), { visibility_mode: 'private' })).status, 404);
  // The new owner may.
  assert.equal((await call(base, 'PATCH', path, H.bob(), { visibility_mode: 'private' })).status, 200);
  await assertReaders(base, id, 'tideline', ['bob', 'root'], 'private to bob');
});

test('bad bodies answer 400 and change nothing', async (t) => {
  const base = await boot(t);
  const id = await uploadPdf(base, 'Quarry ledger', ['Quarry ledger', 'Quarry output by month.']);
  const path = `/v1/knowledge/documents/${id}`;
  const bad: Array<[unknown, string]> = [
    [{}, 'nothing to change'],
    [{ tenant_id: TENANT }, 'tenant only'],
    [{ confirm_tenant_wide: true }, 'confirmation only'],
    [{ visibility_mode: 'public' }, 'unknown mode'],
    [{ visibility: 'shared' }, 'unknown field'],
    [{ visibility_mode: 'private', user_grants: ['bob'] }, 'private with grants'],
    [{ visibility_mode: 'private', audience_tags: ['legal'] }, 'private with audiences'],
    [{ user_grants: ['bob'] }, 'grants on a private item'],
    [{ visibility_mode: 'shared', audience_tags: ['legal'], user_grants: ['bob'] }, 'grants on shared'],
    [{ visibility_mode: 'restricted', audience_tags: ['bad tag!'] }, 'invalid tag'],
    [{ visibility_mode: 'restricted', user_grants: [''] }, 'empty user id'],
    [{ title: '' }, 'empty title'],
    [{ title: '   ' }, 'blank title'],
    [{ owner_user_id: '' }, 'empty owner'],
    [{ confirm_tenant_wide: 'yes', visibility_mode: 'shared' }, 'confirmation not boolean'],
    [[], 'array body'],
  ];
  for (const [body, why] of bad) {
    const r = await call(base, 'PATCH', path, H.alice(), body);
    assert.equal(r.status, 400, `${why}: ${JSON.stringify(r.body)}`);
  }
  const noBody = await fetch(`${base}${path}`, { method: 'PATCH', headers: H.alice() });
  await noBody.arrayBuffer();
  assert.equal(noBody.status, 400, 'no body');
  const d = (await call(base, 'GET', path, H.alice())).body;
  assert.deepEqual([d.visibility_mode, d.audience_tags, d.user_grants, d.title, d.owner_user_id], ['private', [], [], 'Quarry ledger', 'alice']);
});

test('with the test model: a new title is re-embedded in the background; visibility changes keep the vectors', async (t) => {
  const models = writeTestModel({ tokenizerDir: TOKENIZER });
  t.after(() => removeDir(models));
  const base = await boot(t, { modelDirs: [models] });
  const end = Date.now() + 20_000;
  while (Date.now() < end && (await (await fetch(`${base}/readyz`)).json() as { dense_retrieval: string }).dense_retrieval !== 'on') await new Promise((r) => setTimeout(r, 100));
  const r = await call(base, 'POST', '/v1/knowledge/ingest/text', H.alice(), { title: 'Glacier survey', content: 'Meltwater channels cut through the glacier tongue each summer.' });
  assert.equal(r.body.status, 'indexed');
  const path = `/v1/knowledge/documents/${r.body.document_id as string}`;
  const vis = await call(base, 'PATCH', path, H.alice(), { visibility_mode: 'restricted', user_grants: ['bob'] });
  assert.equal(vis.status, 200);
  assert.deepEqual([vis.body.status, vis.body.chunks_embedded], ['indexed', vis.body.chunks_indexed], 'a visibility change does not touch vectors');
  const renamed = await call(base, 'PATCH', path, H.alice(), { title: 'Icefield expedition log' });
  assert.equal(renamed.status, 200);
  let d = renamed.body;
  for (let i = 0; i < 200 && !(d.status === 'indexed' && d.chunks_embedded === d.chunks_indexed); i++) {
    await new Promise((res) => setTimeout(res, 100));
    d = (await call(base, 'GET', path, H.alice())).body;
  }
  assert.deepEqual([d.title, d.status, d.chunks_embedded], ['Icefield expedition log', 'indexed', d.chunks_indexed]);
  const s = await call(base, 'POST', '/v1/knowledge/search', H.bob(), { query: 'icefield expedition' });
  assert.equal(s.body.results[0]?.document_title, 'Icefield expedition log');
  assert.match(s.body.results[0]?.retrieval_rationale, /semantic match/);
  const st = await call(base, 'GET', '/v1/knowledge/status', H.alice());
  assert.equal(st.body.chunks_pending_vectors, 0);
});
