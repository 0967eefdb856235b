/**
 * The knowledge service on PostgreSQL (issue 21 item 1), on a real throwaway PostgreSQL 15 with
 * pgvector: (1) the same sequence of store calls against the SQLite store and the PostgreSQL store
 * answers the same for every table group the retrieval test does not cover (documents: visible
 * reads, the keyset list with its filters, content, indexing state, governance, archive, batch
 * progress, parses cut short, delete; audiences and members; wiki pages; jobs with a batch cancel;
 * access profiles; chunks' ids and lists; a transaction rolled back on throw); (2) the service
 * started with `database` set answers its main routes (text and batch ingest, list, detail,
 * content, change, archive, search, jobs, wiki, audiences, access profiles) and creates no `.sqlite`
 * file. Skips with the reason when PostgreSQL is absent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../services/knowledge/src/index.js';
import type { NewDocument, Viewer, WikiRow } from '../../services/knowledge/src/domain/ports.js';
import { openKnowledgeStore, type KnowledgeStoreFacade } from '../../services/knowledge/src/store/knowledge-store.js';
import { openPgKnowledgeStore, type PgKnowledgeStore } from '../../services/knowledge/src/store/pg/knowledge-store.js';
import { REPO_ROOT } from '../helpers/audit.js';
import { call, headersFor, knowledgeConfig, principal, removeDir } from '../helpers/embedder/service-helpers.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(REPO_ROOT, 'migrations');
const skip = postgresMissing() ?? false;

function doc(id: string, over: Partial<NewDocument> = {}): NewDocument {
  return {
    id, tenant_id: 'acme', title: `Doc ${id}`, source_type: 'text', filename: null, mime_type: 'text/plain', bytes: 10, object_sha256: null,
    owner_user_id: 'alice', creator_user_id: 'alice', visibility_mode: 'private', tags: [], metadata: {}, audience_tags: [], user_grants: [],
    batch_id: null, now: '2026-11-24T10:00:00.000Z', ...over,
  };
}

const viewer = (userId: string, over: Partial<Viewer> = {}): Viewer => ({ tenantId: 'acme', userId, admin: false, audiences: [], ...over });

/** The same calls on one store; every answer, in order. */
async function script(s: KnowledgeStoreFacade): Promise<unknown[]> {
  const out: unknown[] = [];
  await s.vectors.ensure(8);
  const docs: NewDocument[] = [
    doc('d01', { title: 'Alpha plan', now: '2026-11-24T10:00:01.000Z' }),
    doc('d02', { title: 'Beta 100% plan', visibility_mode: 'shared', audience_tags: ['zeta', 'legal'], tags: ['ops'], now: '2026-11-24T10:00:02.000Z' }),
    doc('d03', { title: 'Gamma', visibility_mode: 'restricted', user_grants: ['carol', 'bob'], metadata: { format: 'text', n: 2 }, now: '2026-11-24T10:00:02.000Z' }),
    doc('d04', { title: 'Delta tenant-wide', visibility_mode: 'shared', owner_user_id: 'dave', now: '2026-11-24T10:00:03.000Z' }),
    doc('d05', { title: 'Batch one', source_type: 'batch', batch_id: 'b1', now: '2026-11-24T10:00:04.000Z' }),
    doc('d06', { title: 'Batch two', source_type: 'batch', batch_id: 'b1', tags: ['ops', 'x'], now: '2026-11-24T10:00:05.000Z' }),
    doc('d07', { title: 'file_waiting', source_type: 'file', object_sha256: 'ab'.repeat(32), now: '2026-11-24T10:00:06.000Z' }),
  ];
  for (const d of docs) await s.documents.insert(d);
  out.push(await s.documents.get('acme', 'd02'), await s.documents.get('other', 'd02'), await s.documents.get('acme', 'nope'));
  for (const v of [viewer('alice'), viewer('bob'), viewer('eve', { audiences: ['legal'] }), viewer('root', { admin: true }), viewer('bob', { scope: { tags: ['ops'], audiences: [] } })]) {
    out.push(await s.documents.getVisible(v, 'd02'), await s.documents.getVisible(v, 'd03'));
    // The whole list a page of two at a time, newest first.
    const pages: unknown[] = [];
    let cursor: { created_at: string; id: string } | null = null;
    for (let i = 0; i < 6; i++) {
      const rows = await s.documents.list(v, { limit: 2, cursor, archived: 'exclude' });
      pages.push(rows.map((r) => r.id));
      if (rows.length < 2) break;
      cursor = { created_at: rows[1]!.created_at, id: rows[1]!.id };
    }
    out.push(pages);
  }
  const admin = viewer('root', { admin: true });
  out.push((await s.documents.list(admin, { limit: 50, cursor: null, archived: 'exclude', q: '100%' })).map((r) => r.id));
  out.push((await s.documents.list(admin, { limit: 50, cursor: null, archived: 'exclude', q: 'PLAN' })).map((r) => r.id));
  out.push((await s.documents.list(admin, { limit: 50, cursor: null, archived: 'exclude', q: 'file_w' })).map((r) => r.id));
  out.push((await s.documents.list(admin, { limit: 50, cursor: null, archived: 'exclude', status: 'failed' })).map((r) => r.id));
  out.push((await s.documents.list(admin, { limit: 50, cursor: null, archived: 'exclude', filter: undefined } as never)).length);
  out.push((await s.documents.list({ ...admin, filter: { tags: ['x'], audiences: [], documentIds: ['d01'] } }, { limit: 50, cursor: null, archived: 'exclude' })).map((r) => r.id));
  // Chunks and indexing state.
  const ids = await s.chunks.replace('d01', [0, 1, 2].map((i) => ({ chunk_index: i, heading: i ? `H${i}` : null, content: `alpha chunk ${i}`, titleTerms: 'alpha plan', bodyTerms: `alpha chunk ${i}` })));
  await s.chunks.replace('d05', [{ chunk_index: 0, heading: null, content: 'batch one', titleTerms: 'batch', bodyTerms: 'batch one' }]);
  await s.chunks.replace('d06', [0, 1].map((i) => ({ chunk_index: i, heading: null, content: `batch two ${i}`, titleTerms: 'batch two', bodyTerms: `batch two ${i}` })));
  out.push(ids, await s.chunks.idsOf('d01'), await s.chunks.list('d01'), await s.chunks.count());
  await s.documents.setIndexed('d01', { status: 'indexing', chunks: 3, embedded: 0, error: null, content: 'the alpha text' }, '2026-11-24T10:01:00.000Z');
  await s.documents.setIndexed('d01', { status: 'indexed', chunks: 3, embedded: 0, error: null, content: null }, '2026-11-24T10:01:01.000Z');
  await s.documents.setIndexed('d05', { status: 'indexing', chunks: 1, embedded: 0, error: null, content: 'b1' }, '2026-11-24T10:01:02.000Z');
  await s.documents.setIndexed('d06', { status: 'indexing', chunks: 2, embedded: 0, error: null, content: 'b2' }, '2026-11-24T10:01:03.000Z');
  out.push(await s.documents.contentOf('d01'), await s.documents.contentOf('d02'), await s.documents.contentOf('nope'));
  await s.documents.setTitle('d01', 'Alpha plan v2');
  await s.documents.setFailed('d04', 'too big', '2026-11-24T10:01:04.000Z');
  out.push(await s.documents.get('acme', 'd01'), await s.documents.get('acme', 'd04'));
  out.push(await s.documents.batchProgress('b1'), await s.documents.batchProgress('none'));
  out.push((await s.documents.awaitingParse('acme')).map((r) => r.id), await s.documents.awaitingParse('other'));
  // Governance and archive.
  await s.documents.setGovernance('d02', { visibility: 'restricted', owner: 'bob', audiences: ['b-team', 'a-team'], grants: ['zed', 'amy'], title: 'Beta renamed' }, '2026-11-24T10:02:00.000Z');
  out.push(await s.documents.get('acme', 'd02'), await s.documents.getVisible(viewer('amy'), 'd02'), await s.documents.getVisible(viewer('x', { audiences: ['a-team'] }), 'd02'));
  await s.documents.setArchived('d03', '2026-11-24T10:03:00.000Z', '2026-11-24T10:03:00.000Z');
  for (const archived of ['exclude', 'include', 'only'] as const) out.push((await s.documents.list(admin, { limit: 50, cursor: null, archived })).map((r) => r.id));
  await s.documents.setArchived('d03', null, '2026-11-24T10:04:00.000Z');
  out.push(await s.documents.get('acme', 'd03'));
  // Audiences.
  await s.audiences.upsert('acme', 'legal', 'Legal team', '2026-11-24T10:05:00.000Z');
  await s.audiences.upsert('acme', 'legal', null, '2026-11-24T10:05:01.000Z');
  await s.audiences.ensure('acme', ['ops', 'legal', 'Zed'], '2026-11-24T10:05:02.000Z');
  await s.audiences.ensure('acme', [], '2026-11-24T10:05:03.000Z');
  await s.audiences.setMembers('acme', 'legal', ['carol', 'amy', 'bob']);
  await s.audiences.setMembers('acme', 'ops', ['bob']);
  await s.audiences.setMembers('acme', 'legal', ['carol', 'bob']);
  out.push(await s.audiences.list('acme'), await s.audiences.get('acme', 'legal'), await s.audiences.get('acme', 'nope'));
  out.push(await s.audiences.membersOf('acme', 'legal'), await s.audiences.ofUser('acme', 'bob'), await s.audiences.ofUser('acme', 'nobody'));
  await s.audiences.setMembers('acme', 'ops', []);
  out.push(await s.audiences.list('acme'));
  // Wiki.
  const page = (topic: string, over: Partial<WikiRow> = {}): WikiRow => ({
    tenant_id: 'acme', topic, title: `T ${topic}`, summary: 's', tags: ['a', 'b'], content: `# ${topic}`, owner_user_id: 'alice', visibility_mode: 'shared',
    audience_tags: ['legal'], user_grants: [], created_by: 'alice', updated_by: 'alice', created_at: '2026-11-24T10:06:00.000Z', updated_at: '2026-11-24T10:06:00.000Z', ...over,
  });
  await s.wiki.upsert(page('zeta'));
  await s.wiki.upsert(page('alpha', { visibility_mode: 'restricted', audience_tags: [], user_grants: ['bob'] }));
  await s.wiki.upsert(page('zeta', { title: 'New', owner_user_id: 'mallory', created_by: 'mallory', created_at: 'later', updated_by: 'bob', updated_at: '2026-11-24T10:07:00.000Z', tags: [] }));
  out.push(await s.wiki.get('acme', 'zeta'), await s.wiki.get('acme', 'nope'), await s.wiki.list('acme'), await s.wiki.list('other'));
  out.push(await s.wiki.delete('acme', 'alpha'), await s.wiki.delete('acme', 'alpha'), (await s.wiki.list('acme')).map((w) => w.topic));
  // Jobs, with a batch cancel.
  await s.jobs.create('j2', 'acme', 'reembed', 'system', 10, '2026-11-24T10:08:00.000Z');
  await s.jobs.create('b1', 'acme', 'batch_ingest', 'alice', 3, '2026-11-24T10:08:00.000Z');
  await s.jobs.create('j3', 'acme', 'batch_ingest', 'bob', 1, '2026-11-24T10:08:01.000Z');
  await s.jobs.progress('j2', 4, 10, 'running', null, '2026-11-24T10:08:02.000Z');
  out.push(await s.jobs.get('acme', 'j2'), await s.jobs.get('other', 'j2'), await s.jobs.list('acme', null, 2), await s.jobs.list('acme', 'alice', 10), await s.jobs.list('acme', null, 10));
  out.push(await s.jobs.cancelBatch('acme', 'b1', '2026-11-24T10:09:00.000Z'), await s.jobs.cancelBatch('acme', 'b1', '2026-11-24T10:09:01.000Z'), await s.jobs.cancelBatch('other', 'j3', 'x'));
  out.push(await s.jobs.get('acme', 'b1'), await s.documents.batchProgress('b1'));
  await s.jobs.failInterrupted('2026-11-24T10:10:00.000Z');
  out.push(await s.jobs.list('acme', null, 10));
  // Access profiles.
  await s.accessProfiles.replace('acme', [
    { id: 'p2', roles: ['user'], groups: ['g'], knowledge: { audiences: ['legal'], tags: [] } },
    { id: 'p1', roles: [], groups: [], knowledge: { audiences: [], tags: ['ops'] } },
  ], '2026-11-24T10:11:00.000Z');
  out.push(await s.accessProfiles.list('acme'));
  await s.accessProfiles.replace('acme', [{ id: 'p3', roles: ['admin'], groups: [], knowledge: { audiences: [], tags: [] } }], '2026-11-24T10:12:00.000Z');
  out.push(await s.accessProfiles.list('acme'), await s.accessProfiles.list('other'));
  // A transaction rolled back on throw leaves nothing; a committed one keeps every write.
  await assert.rejects(s.txAsync(async () => {
    await s.audiences.ensure('acme', ['ghost'], 'x');
    await s.documents.setGovernance('d01', { visibility: 'shared', owner: 'x', audiences: ['ghost'], grants: [], title: 'ghost' }, 'x');
    await s.chunks.removeAll('d01');
    throw new Error('boom');
  }), /boom/);
  out.push(await s.documents.get('acme', 'd01'), await s.chunks.idsOf('d01'), (await s.audiences.list('acme')).map((a) => a.tag));
  await s.txAsync(async () => {
    await s.vectors.remove(await s.chunks.idsOf('d01'));
    await s.chunks.removeAll('d01');
    await s.documents.delete('d01');
  });
  out.push(await s.documents.get('acme', 'd01'), await s.chunks.idsOf('d01'), await s.chunks.count(), (await s.documents.list(admin, { limit: 50, cursor: null, archived: 'include' })).map((r) => r.id));
  return out;
}

describe('knowledge on PostgreSQL: every table group', { skip }, () => {
  let pg: TestPostgres;
  before(async () => { pg = await startPostgres(); });
  after(async () => { await pg?.stop(); });

  test('store contract: the same store calls answer the same on SQLite and PostgreSQL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'knowledge-pg-contract-'));
    const sqlite = openKnowledgeStore(dir, MIGRATIONS);
    let pgStore: PgKnowledgeStore | null = null;
    try {
      pgStore = await openPgKnowledgeStore({ url: pg.url, schema: 'knowledge_contract' }, MIGRATIONS);
      const want = await script(sqlite);
      const got = await script(pgStore);
      assert.equal(got.length, want.length);
      for (let i = 0; i < want.length; i++) assert.deepEqual(got[i], want[i], `answer ${i} differs`);
      // What was compared holds data (not two empty answers).
      assert.equal((want[0] as { audience_tags: string[] }).audience_tags.join(), 'legal,zeta');
      assert.ok(want.some((x) => Array.isArray(x) && x.length > 1 && Array.isArray(x[0])), 'list pages were compared');
    } finally {
      sqlite.close();
      await pgStore?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('service: start(cfg) with a database keeps every store in PostgreSQL and answers the main routes', async () => {
    // A stand-in agent runtime that records the upload notices (sent once the transaction committed).
    const notices: Array<{ kind: string; user_id: string; payload: { document_id: string } }> = [];
    const runtime: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => { notices.push(JSON.parse(body) as (typeof notices)[number]); res.writeHead(201, { 'content-type': 'application/json' }).end('{}'); });
    });
    await new Promise<void>((r) => runtime.listen(0, '127.0.0.1', r));
    const cfg = knowledgeConfig({ database: { url: pg.url, schema: 'knowledge' } }, { 'agent-runtime': `http://127.0.0.1:${(runtime.address() as AddressInfo).port}` });
    const svc = await start(cfg, { events: false });
    try {
      const base = `http://127.0.0.1:${svc.port}`;
      const alice = headersFor(principal('alice'));
      const bob = headersFor(principal('bob'));
      const admin = headersFor(principal('root', ['admin']));
      const ready = await call(base, 'GET', '/readyz', {});
      assert.equal(ready.status, 200);
      assert.equal(ready.body.sparse_retrieval, 'on');
      const text = await fetch(`${base}/v1/knowledge/ingest/text`, {
        method: 'POST', headers: { ...alice, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Kestrel runbook', content: 'The Kestrel pipeline restarts nightly. Page the data team when it fails twice.' }),
      });
      const ingested = await text.json() as { document_id: string; status: string; chunks_indexed: number };
      assert.equal(text.status, 201, JSON.stringify(ingested));
      assert.equal(ingested.status, 'indexed');
      for (let i = 0; i < 50 && notices.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(notices.map((n) => [n.kind, n.user_id, n.payload.document_id]), [['document_indexed', 'alice', ingested.document_id]], 'one notice, read after the commit');
      const batch = await call(base, 'POST', '/v1/knowledge/ingest/batch', admin, {
        records: [{ title: 'Osprey notes', content: 'Osprey handles billing exports every Friday.' }, { title: '', content: 'no title' }],
        visibility_mode: 'shared', audience_tags: ['finance'],
      });
      assert.equal(batch.status, 201, JSON.stringify(batch.body));
      assert.equal(batch.body.documents_indexed, 1);
      assert.equal(batch.body.failed.length, 1);
      const job = await call(base, 'GET', `/v1/knowledge/jobs/${batch.body.job_id}`, admin);
      assert.equal(job.body.status, 'done');
      assert.equal((await call(base, 'GET', '/v1/knowledge/jobs', admin)).body.jobs.length, 1);
      const list = await call(base, 'GET', '/v1/knowledge/documents?limit=1', admin);
      assert.equal(list.body.items.length, 1);
      const rest = await call(base, 'GET', `/v1/knowledge/documents?limit=5&cursor=${encodeURIComponent(list.body.next_cursor)}`, admin);
      assert.equal(rest.body.items.length, 1);
      assert.deepEqual((await call(base, 'GET', '/v1/knowledge/documents', bob)).body.items, [], 'private and audience-shared documents stay hidden');
      const id = ingested.document_id;
      const detail = await call(base, 'GET', `/v1/knowledge/documents/${id}`, alice);
      assert.equal(detail.body.chunks.length, ingested.chunks_indexed);
      assert.match((await call(base, 'GET', `/v1/knowledge/documents/${id}/content`, alice)).body.content, /Kestrel pipeline/);
      const found = await call(base, 'POST', '/v1/knowledge/search', alice, { query: 'kestrel pipeline fails' });
      assert.equal(found.status, 200, JSON.stringify(found.body));
      assert.equal(found.body.results[0].document_id, id);
      const shared = await call(base, 'PATCH', `/v1/knowledge/documents/${id}`, alice, { visibility_mode: 'restricted', user_grants: ['bob'], title: 'Kestrel runbook v2' });
      assert.equal(shared.status, 200, JSON.stringify(shared.body));
      assert.equal((await call(base, 'GET', `/v1/knowledge/documents/${id}`, bob)).body.title, 'Kestrel runbook v2');
      assert.equal((await call(base, 'POST', `/v1/knowledge/documents/${id}/archive`, alice)).body.archived_at !== null, true);
      assert.equal((await call(base, 'POST', '/v1/knowledge/search', alice, { query: 'kestrel' })).body.results.length, 0, 'archived documents leave search');
      assert.equal((await call(base, 'POST', `/v1/knowledge/documents/${id}/restore`, alice)).body.archived_at, null);
      const wiki = await call(base, 'POST', '/v1/knowledge/wiki', alice, { topic: 'Onboarding', title: 'Onboarding', content: '# Welcome' });
      assert.equal(wiki.status, 201);
      assert.equal((await call(base, 'GET', '/v1/knowledge/wiki/onboarding', alice)).body.content, '# Welcome');
      assert.equal((await call(base, 'GET', '/v1/knowledge/wiki/onboarding', bob)).status, 404);
      assert.equal((await call(base, 'POST', '/v1/knowledge/wiki', bob, { topic: 'onboarding', title: 'X', content: 'x' })).body.code, 'wiki_topic_conflict');
      const aud = await call(base, 'PUT', '/v1/knowledge/admin/audiences/finance/members', admin, { user_ids: ['bob'] });
      assert.equal(aud.status, 200, JSON.stringify(aud.body));
      assert.deepEqual(aud.body.user_ids, ['bob']);
      assert.equal((await call(base, 'GET', '/v1/knowledge/documents', bob)).body.items.length, 2, 'the audience and the grant open two documents to bob');
      assert.equal((await call(base, 'DELETE', `/v1/knowledge/documents/${id}`, alice)).body.deleted, true);
      assert.equal((await call(base, 'GET', `/v1/knowledge/documents/${id}`, alice)).status, 404);
      const rows = await pg.sql<{ n: number }>('SELECT count(*)::int AS n FROM knowledge.documents');
      assert.equal(rows[0]!.n, 1, 'the documents are in PostgreSQL');
      assert.equal(notices.length, 1, 'batch records and changes send no notice');
    } finally {
      await svc.close();
      await new Promise((r) => runtime.close(r));
    }
    const files = readdirSync(cfg.dataDir, { recursive: true }).map(String);
    assert.ok(files.length > 0, 'the data directory was used');
    assert.deepEqual(files.filter((f) => f.includes('.sqlite')), [], 'no SQLite store file anywhere under the data directory');
    removeDir(cfg.dataDir);
  });
});
