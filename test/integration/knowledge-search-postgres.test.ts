/**
 * Knowledge retrieval on PostgreSQL (issue 21 items 1 and 5), on a real throwaway PostgreSQL 15 with
 * pgvector: the same corpus loaded into the SQLite store and the PostgreSQL store answers the same
 * searches through the one `Search` use case (same fusion, same exact rescoring): hybrid and dense
 * top results agree, keyword search (ts_rank vs FTS5 bm25) agrees on the best match, visibility is
 * the same chunk for chunk for every kind of viewer, and HNSW candidates hold recall against exact
 * search. Skips with a reason when PostgreSQL, pgvector or the SciFact asset is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../../services/embedder/src/contracts.js';
import { ftsOrQuery, queryTerms } from '../../services/embedder/src/index.js';
import { Search, TITLE_WEIGHT } from '../../services/knowledge/src/domain/search.js';
import { Visibility } from '../../services/knowledge/src/domain/visibility.js';
import type { Viewer } from '../../services/knowledge/src/domain/ports.js';
import { openKnowledgeStore, type KnowledgeStore } from '../../services/knowledge/src/store/knowledge-store.js';
import { openPgKnowledgeStore, type PgKnowledgeStore } from '../../services/knowledge/src/store/pg/knowledge-store.js';
import { listPgMigrations } from '../../services/shared/db/pg/migrate.js';
import { principal } from '../helpers/embedder/service-helpers.js';
import { REPO_ROOT } from '../helpers/audit.js';
import { hashEmbedder, loadBoth, loadSciFactFrom, sciFactDir, type CorpusDoc } from '../helpers/knowledge-pg.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../helpers/postgres.js';

const MIGRATIONS = join(REPO_ROOT, 'migrations');
const TENANT = 'acme';
const SCIFACT = sciFactDir();
const skip = postgresMissing() ?? (SCIFACT ? false : 'SciFact is not in ../shared/assets/beir/scifact');

/** 400 SciFact abstracts (shared), plus governance fixtures of every visibility kind. */
function corpus(): { docs: CorpusDoc[]; queries: string[] } {
  const sf = loadSciFactFrom(SCIFACT!);
  const docs: CorpusDoc[] = sf.corpus.slice(0, 400).map((d) => ({ id: `sf-${d._id}`, title: d.title, text: d.text }));
  const ids = new Set(sf.corpus.slice(0, 400).map((d) => d._id));
  const queries = sf.queries.filter((q) => [...(sf.qrels.get(q._id)?.keys() ?? [])].some((d) => ids.has(d))).map((q) => q.text);
  const gov: CorpusDoc[] = [
    { id: 'g-private', title: 'Quarterly vaccine budget', text: 'Private notes on vaccine procurement budget and cold chain costs.', owner: 'alice', visibility: 'private' },
    { id: 'g-shared-aud', title: 'Vaccine trial roster', text: 'Shared with the trials audience: vaccine trial roster and sites.', owner: 'alice', visibility: 'shared', audiences: ['trials'] },
    { id: 'g-restricted', title: 'Vaccine adverse events', text: 'Restricted: vaccine adverse event reports under review.', owner: 'alice', visibility: 'restricted', grants: ['bob'] },
    { id: 'g-tagged', title: 'Vaccine cold chain', text: 'Tagged logistics note on the vaccine cold chain.', owner: 'alice', visibility: 'shared', tags: ['logistics'] },
  ];
  return { docs: [...docs, ...gov], queries: [...queries.slice(0, 40), 'vaccine cold chain budget', 'adverse events of vaccines'] };
}

describe('knowledge retrieval on PostgreSQL', { skip }, () => {
  let pg: TestPostgres;
  let pgStore: PgKnowledgeStore;
  let sqlite: KnowledgeStore;
  let dir: string;
  let embedder: Embedder;
  let queries: string[];

  before(async () => {
    pg = await startPostgres();
    pgStore = await openPgKnowledgeStore({ url: pg.url, schema: 'knowledge' }, MIGRATIONS);
    dir = mkdtempSync(join(tmpdir(), 'knowledge-pg-'));
    sqlite = openKnowledgeStore(dir, MIGRATIONS);
    embedder = hashEmbedder(384);
    const c = corpus();
    queries = c.queries;
    await loadBoth(c.docs, TENANT, sqlite, pgStore, embedder);
  });
  after(async () => {
    sqlite?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await pgStore?.db.close();
    await pg?.stop();
  });

  function searchOn(store: 'sqlite' | 'pg', dense: boolean, sparse: boolean): Search {
    const s = store === 'sqlite' ? sqlite : pgStore;
    return new Search({
      visibility: new Visibility({ tenantId: TENANT, audiences: sqlite.audiences, documents: sqlite.documents }),
      chunks: s.chunks, vectors: s.vectors,
      embedder: dense ? embedder : { ...embedder, available: false },
      indexer: { denseReason: () => 'off in this test' }, settings: { sparseEnabled: sparse, searchScoreThreshold: 0 }, events: null,
    });
  }

  async function compare(dense: boolean, sparse: boolean, who = principal('reader')): Promise<{ top1: number; overlap5: number; n: number; answered: number }> {
    const a = searchOn('sqlite', dense, sparse);
    const b = searchOn('pg', dense, sparse);
    let top1 = 0;
    let overlap = 0;
    let answered = 0;
    for (const q of queries) {
      const ra = (await a.search(who, q, { limit: 5 })).results.map((r) => r.document_id);
      const rb = (await b.search(who, q, { limit: 5 })).results.map((r) => r.document_id);
      if (ra[0] === rb[0]) top1++;
      overlap += ra.length === 0 && rb.length === 0 ? 1 : rb.filter((d) => ra.includes(d)).length / Math.max(ra.length, rb.length);
      answered += ra.length > 0 ? 1 : 0;
    }
    assert.ok(answered >= queries.length / 2, `SQLite answered only ${answered} of ${queries.length} queries`);
    return { top1: top1 / queries.length, overlap5: overlap / queries.length, n: queries.length, answered };
  }

  test('the knowledge migrations apply (pgvector, full-text and vector tables)', async () => {
    const names = (await pg.sql<{ name: string }>('SELECT name FROM knowledge.schema_migrations ORDER BY version')).map((r) => r.name);
    assert.deepEqual(names, listPgMigrations(MIGRATIONS, 'knowledge').map((m) => m.name));
    const idx = await pg.sql<{ def: string }>("SELECT indexdef AS def FROM pg_indexes WHERE schemaname = 'knowledge' AND indexname = 'chunk_vectors_hnsw'");
    assert.match(idx[0]!.def, /USING hnsw .*halfvec\(384\).*halfvec_ip_ops/);
    assert.equal(await pgStore.chunks.count(), sqlite.chunks.count());
    assert.equal(await pgStore.vectors.countPending(), 0);
  });

  test('hybrid search answers on PostgreSQL as on SQLite (same fusion and rescoring)', async (t) => {
    const r = await compare(true, true);
    t.diagnostic(`hybrid: top-1 agreement ${r.top1.toFixed(3)}, top-5 overlap ${r.overlap5.toFixed(3)} over ${r.n} queries`);
    assert.ok(r.top1 >= 0.95, `top-1 agreement ${r.top1}`);
    assert.ok(r.overlap5 >= 0.95, `top-5 overlap ${r.overlap5}`);
  });

  test('dense search alone returns the same results (HNSW candidates, exact rescoring)', async (t) => {
    const r = await compare(true, false);
    t.diagnostic(`dense: top-1 agreement ${r.top1.toFixed(3)}, top-5 overlap ${r.overlap5.toFixed(3)}`);
    assert.ok(r.top1 >= 0.95, `top-1 agreement ${r.top1}`);
    assert.ok(r.overlap5 >= 0.95, `top-5 overlap ${r.overlap5}`);
  });

  test('keyword search (BM25 in SQL over tsvector matches) ranks as FTS5 bm25 does', async (t) => {
    const r = await compare(false, true);
    t.diagnostic(`sparse: top-1 agreement ${r.top1.toFixed(3)}, top-5 overlap ${r.overlap5.toFixed(3)}`);
    assert.ok(r.top1 >= 0.95, `top-1 agreement ${r.top1}`);
    assert.ok(r.overlap5 >= 0.95, `top-5 overlap ${r.overlap5}`);
    // The scores themselves: BM25 on PostgreSQL equals FTS5's bm25() for the same matches.
    const viewer: Viewer = { tenantId: TENANT, userId: 'root', admin: true, audiences: [], scope: null, filter: null };
    let compared = 0;
    for (const q of queries.slice(0, 10)) {
      const match = ftsOrQuery(queryTerms(q));
      if (!match) continue;
      const a = sqlite.chunks.sparse(viewer, match, 20, TITLE_WEIGHT);
      const b = await pgStore.chunks.sparse(viewer, match, 20, TITLE_WEIGHT);
      assert.equal(b.length, a.length, q);
      const byId = new Map(a.map((x) => [x.chunk_id, x.score]));
      for (const x of b.slice(0, 10)) {
        assert.ok(byId.has(x.chunk_id), `${q}: chunk ${x.chunk_id} only on PostgreSQL`);
        assert.ok(Math.abs(byId.get(x.chunk_id)! - x.score) < 1e-6 * Math.max(1, Math.abs(x.score)), `${q}: ${x.score} vs ${byId.get(x.chunk_id)}`);
        compared++;
      }
    }
    assert.ok(compared >= 50, `compared ${compared} scores`);
  });

  test('visibility is the same chunk for chunk for every kind of viewer', async () => {
    const all = Array.from({ length: sqlite.chunks.count() }, (_, i) => i + 1);
    const base = { tenantId: TENANT, audiences: [] as string[], scope: null, filter: null };
    const viewers: Array<[string, Viewer]> = [
      ['admin', { ...base, userId: 'root', admin: true }],
      ['owner', { ...base, userId: 'alice', admin: false }],
      ['granted', { ...base, userId: 'bob', admin: false }],
      ['audience member', { ...base, userId: 'carol', admin: false, audiences: ['trials'] }],
      ['outsider', { ...base, userId: 'mallory', admin: false }],
      ['scoped to a tag', { ...base, userId: 'dave', admin: false, scope: { tags: ['logistics'], audiences: [] } }],
      ['scoped to an audience', { ...base, userId: 'carol', admin: false, audiences: ['trials'], scope: { tags: [], audiences: ['trials'] } }],
      ['admin filtered to documents', { ...base, userId: 'root', admin: true, filter: { tags: [], audiences: [], documentIds: ['g-private', 'sf-4983'] } }],
      ['user filtered by tag', { ...base, userId: 'bob', admin: false, filter: { tags: ['logistics'], audiences: [], documentIds: [] } }],
    ];
    for (const [name, v] of viewers) {
      const a = [...sqlite.chunks.visibleChunkIds(v, all)].sort((x, y) => x[0] - y[0]);
      const b = [...(await pgStore.chunks.visibleChunkIds(v, all))].sort((x, y) => x[0] - y[0]);
      assert.deepEqual(b, a, name);
    }
    const outsider = viewers[4]![1];
    const seen = new Set((await pgStore.chunks.visibleChunkIds(outsider, all)).values());
    assert.ok(!seen.has('g-private') && !seen.has('g-restricted') && !seen.has('g-shared-aud'), 'an outsider sees none of the governed documents');
    assert.ok(seen.has('g-tagged'));
    // Through search: the outsider's results never name a governed document; bob's include the one granted to him.
    const hits = (await searchOn('pg', true, true).search(principal('mallory'), 'vaccine adverse events budget', { limit: 20 })).results.map((r) => r.document_id);
    assert.ok(!hits.some((d) => ['g-private', 'g-restricted', 'g-shared-aud'].includes(d)), hits.join(','));
    const bob = (await searchOn('pg', true, true).search(principal('bob'), 'vaccine adverse events', { limit: 5 })).results.map((r) => r.document_id);
    assert.ok(bob.includes('g-restricted'), bob.join(','));
  });

  test('archived documents drop out of PostgreSQL search; deleting removes chunks and vectors', async () => {
    const q = 'vaccine cold chain';
    const before1 = (await searchOn('pg', true, true).search(principal('x'), q, { limit: 5 })).results.map((r) => r.document_id);
    assert.ok(before1.includes('g-tagged'));
    await pgStore.documents.setArchived('g-tagged', '2026-11-24T11:00:00.000Z', '2026-11-24T11:00:00.000Z');
    const after1 = (await searchOn('pg', true, true).search(principal('x'), q, { limit: 5 })).results.map((r) => r.document_id);
    assert.ok(!after1.includes('g-tagged'), after1.join(','));
    const chunks = await pgStore.chunks.idsOf('g-tagged');
    await pgStore.documents.delete('g-tagged');
    assert.equal((await pgStore.vectors.vectorsOf(chunks)).size, 0);
    assert.deepEqual(await pgStore.chunks.idsOf('g-tagged'), []);
  });

  test('HNSW candidates hold recall@10 against exact search; stored vectors read back exactly', async () => {
    const [qv] = await embedder.embed(['protein folding and gene expression in cancer cells']);
    let hit = 0;
    const probes = [qv!, ...(await embedder.embed(queries.slice(0, 19)))];
    for (const v of probes) {
      const cand = await pgStore.vectors.knn(v, 200);
      const exact = await pgStore.vectors.exactNearestForBench(v, 10);
      const set = new Set(cand.map((c) => c.chunk_id));
      hit += exact.filter((id) => set.has(id)).length;
    }
    assert.ok(hit / (probes.length * 10) >= 0.99, `recall ${hit / (probes.length * 10)}`);
    const some = [1, 2, 3];
    const a = sqlite.vectors.vectorsOf(some);
    const b = await pgStore.vectors.vectorsOf(some);
    for (const id of some) assert.deepEqual([...b.get(id)!], [...a.get(id)!]);
  });
});
