/**
 * Scale-out figures on PostgreSQL (issue 21 "Figures"), side by side in one run on a throwaway
 * PostgreSQL 15 cluster (test/helpers/postgres.ts; default durability: fsync on, synchronous_commit on):
 *
 *  1. audit appends per second: 4 writer processes appending to ONE tenant's chain at once on
 *     PostgreSQL (advisory lock on the chain head, group commit per process) vs one SQLite writer
 *     (WAL, synchronous=NORMAL, group commit) in this process, same rows, same bursts; both chains
 *     verified after with the five checks;
 *  2. dense search at 100,000 chunks: candidates + exact rescoring as search does it (k = 200, top 10),
 *     pgvector HNSW (halfvec, m 16, ef_construction 64, ef_search 200) vs sqlite-vec sign-bit KNN,
 *     p50 over 100 queries and recall@10 against exact brute-force search over the float vectors.
 *     Vectors: no real 384-d embeddings are on these machines (../shared/assets/README.md), so a stated
 *     synthetic distribution stands in: 2,000 Gaussian cluster centres on the unit sphere, members =
 *     centre + Gaussian noise (sigma 1.4/sqrt(d) per axis), L2-normalised, as bench/knowledge.ts uses;
 *     queries = a member + noise (sigma 0.5/sqrt(d)).
 *
 * Skipped with a reason when PostgreSQL or pgvector is missing; `npm run bench -- --skip=scale-out-postgres`
 * leaves it out. Sizes: BENCH_PG_AUDIT_ROWS (per writer, default 2500), BENCH_PG_CHUNKS (default 100000);
 * BENCH_PG_PARTS=audit or =dense runs one half.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dot, normalize } from '../services/embedder/src/vector.js';
import { ChainWriter } from '../services/audit/src/domain/chain-writer.js';
import { verifyChain } from '../services/audit/src/domain/chain-verify.js';
import { keyRingFromConfig, type KeyProvider } from '../services/audit/src/domain/keys.js';
import { AuditStore } from '../services/audit/src/store/audit-store.js';
import { openPgAuditStore } from '../services/audit/src/store/pg/audit-store.js';
import { openKnowledgeStore } from '../services/knowledge/src/store/knowledge-store.js';
import { openPgKnowledgeStore } from '../services/knowledge/src/store/pg/knowledge-store.js';
import type { NewDocument } from '../services/knowledge/src/domain/ports.js';
import { postgresMissing, startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { runPgWriters } from '../test/helpers/pg-writers.js';
import { mulberry } from '../test/helpers/knowledge-pg.js';
import { pct } from './support/measure.js';
import type { Figure } from './audit.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const MIGRATIONS = join(ROOT, 'migrations');
const KEY = 'bench-pg-key-1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f';
const keys: KeyProvider = ((ring) => () => ring)(keyRingFromConfig({ signingKey: KEY, keyVersion: 'v1', previousSigningKey: null, previousKeyVersion: null }));
const WRITERS = 4;
const BURST = 50;

async function auditFigures(pg: TestPostgres, out: (f: Figure) => void): Promise<void> {
  const perWriter = Number(process.env.BENCH_PG_AUDIT_ROWS ?? 2500);
  const tenant = 'bench-shared';
  // PostgreSQL: 4 processes, one tenant (the worst case: every append serialises on one chain head).
  const store = await openPgAuditStore({ url: pg.url, schema: 'audit' }, MIGRATIONS);
  try {
    const t0 = performance.now();
    const reports = await runPgWriters(Array.from({ length: WRITERS }, (_, worker) => ({
      url: pg.url, migrationsDir: MIGRATIONS, tenants: [tenant], count: perWriter, burst: BURST, key: KEY, worker,
    })));
    const wall = (performance.now() - t0) / 1000;
    const busiest = Math.max(...reports.map((r) => r.ms)) / 1000;
    const total = perWriter * WRITERS;
    const v0 = performance.now();
    const report = await verifyChain(store.log, keys, tenant);
    const verifyS = (performance.now() - v0) / 1000;
    if (!report.ok || report.checked !== total) throw new Error(`PostgreSQL chain did not verify: ${JSON.stringify(report.failures.slice(0, 3))}`);
    console.log(`PostgreSQL, ${WRITERS} writer processes x ${perWriter} rows on one tenant: ${(total / busiest).toFixed(0)} rows/s (appending), ${(total / wall).toFixed(0)} rows/s incl. process start; chain of ${total} verified in ${verifyS.toFixed(2)} s`);
    out({ name: `audit appends/s, ${WRITERS} writer processes on PostgreSQL, one tenant (chain verified)`, value: total / busiest, unit: 'rows/s' });
    // Four tenants, one per process: writers no longer wait for each other's chain lock.
    const spread = await runPgWriters(Array.from({ length: WRITERS }, (_, worker) => ({
      url: pg.url, migrationsDir: MIGRATIONS, tenants: [`bench-t${worker}`], count: perWriter, burst: BURST, key: KEY, worker,
    })));
    const spreadS = Math.max(...spread.map((r) => r.ms)) / 1000;
    for (let w = 0; w < WRITERS; w++) {
      const r = await verifyChain(store.log, keys, `bench-t${w}`);
      if (!r.ok || r.checked !== perWriter) throw new Error(`chain bench-t${w} did not verify`);
    }
    console.log(`PostgreSQL, ${WRITERS} writer processes, a tenant each: ${(total / spreadS).toFixed(0)} rows/s`);
    out({ name: `audit appends/s, ${WRITERS} writer processes on PostgreSQL, a tenant each (chains verified)`, value: total / spreadS, unit: 'rows/s' });
    // Where the one-tenant time goes: the WAL flush at commit, inside the chain lock. With
    // synchronous_commit off (durable against a process crash, as SQLite's synchronous=NORMAL is,
    // not against power loss) the lock is held for the statements alone.
    await pg.sql('ALTER SYSTEM SET synchronous_commit = off');
    await pg.sql('SELECT pg_reload_conf()');
    try {
      const async = await runPgWriters(Array.from({ length: WRITERS }, (_, worker) => ({
        url: pg.url, migrationsDir: MIGRATIONS, tenants: ['bench-async'], count: perWriter, burst: BURST, key: KEY, worker,
      })));
      const asyncS = Math.max(...async.map((r) => r.ms)) / 1000;
      if (!(await verifyChain(store.log, keys, 'bench-async')).ok) throw new Error('chain bench-async did not verify');
      console.log(`PostgreSQL, ${WRITERS} writer processes, one tenant, synchronous_commit off: ${(total / asyncS).toFixed(0)} rows/s`);
      out({ name: `audit appends/s, ${WRITERS} writer processes on PostgreSQL, one tenant, synchronous_commit off`, value: total / asyncS, unit: 'rows/s' });
    } finally {
      await pg.sql('ALTER SYSTEM RESET synchronous_commit');
      await pg.sql('SELECT pg_reload_conf()');
    }
  } finally {
    await store.db.close();
  }
  // SQLite: one writer (the desktop's), same rows and bursts.
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-sqlite-'));
  try {
    const sqlite = AuditStore.open(dir, MIGRATIONS);
    const writer = new ChainWriter(sqlite, keys);
    const total = perWriter * WRITERS;
    const t0 = performance.now();
    for (let i = 0; i < total; i += BURST) {
      const ps: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(total, i + BURST); j++) {
        ps.push(writer.append({ tenant_id: tenant, user_id: `w0-u${j % 7}`, action: 'doc.read', resource_type: 'doc', resource_id: `w0-d${j}`,
          detail_type: 'access_v1', detail: { worker: 0, i: j, path: `/v1/docs/${j}`, note: 'é ✓' } }));
      }
      await Promise.all(ps);
    }
    const s = (performance.now() - t0) / 1000;
    const report = await verifyChain(sqlite.log, keys, tenant);
    if (!report.ok) throw new Error('SQLite chain did not verify');
    writer.close();
    sqlite.close();
    console.log(`SQLite, one writer: ${(total / s).toFixed(0)} rows/s (same rows, bursts of ${BURST})`);
    out({ name: 'audit appends/s, one SQLite writer (same rows; chain verified)', value: total / s, unit: 'rows/s' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The synthetic vectors and queries (see the module header). */
function syntheticVectors(n: number, dims: number, queries: number): { vecs: Float32Array[]; qs: Float32Array[] } {
  const rnd = mulberry(42);
  const gauss = (): number => { const u = rnd() || 1e-9; const v = rnd(); return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v); };
  const centroids = Array.from({ length: 2000 }, () => { const c = new Float32Array(dims); for (let i = 0; i < dims; i++) c[i] = gauss(); return normalize(c); });
  const vecs = Array.from({ length: n }, () => {
    const c = centroids[Math.floor(rnd() * centroids.length)]!;
    const v = new Float32Array(dims);
    for (let i = 0; i < dims; i++) v[i] = c[i]! + 1.4 * gauss() / Math.sqrt(dims);
    return normalize(v);
  });
  const qs = Array.from({ length: queries }, () => {
    const base = vecs[Math.floor(rnd() * n)]!;
    const q = new Float32Array(dims);
    for (let i = 0; i < dims; i++) q[i] = base[i]! + 0.5 * gauss() / Math.sqrt(dims);
    return normalize(q);
  });
  return { vecs, qs };
}

/** Exact top-10 chunk ids (1-based, as both stores number them) by cosine, brute force. */
function exactTop10(vecs: Float32Array[], q: Float32Array): Set<number> {
  const best: Array<{ id: number; s: number }> = [];
  for (let i = 0; i < vecs.length; i++) {
    const s = dot(q, vecs[i]!);
    if (best.length < 10 || s > best[best.length - 1]!.s) {
      best.push({ id: i + 1, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > 10) best.pop();
    }
  }
  return new Set(best.map((b) => b.id));
}

const doc: NewDocument = { id: 'doc', tenant_id: 't', title: 'synthetic', source_type: 'batch', filename: null, mime_type: null, bytes: null, object_sha256: null,
  owner_user_id: 'u', creator_user_id: 'u', visibility_mode: 'private', tags: [], metadata: {}, audience_tags: [], user_grants: [], batch_id: null, now: '2026-11-24T00:00:00.000Z' };

async function denseFigures(pg: TestPostgres, out: (f: Figure) => void): Promise<void> {
  const n = Number(process.env.BENCH_PG_CHUNKS ?? 100_000);
  const dims = 384;
  const K = 200;
  const { vecs, qs } = syntheticVectors(n, dims, 100);
  const truth = qs.map((q) => exactTop10(vecs, q));
  const BATCH = 2000;
  const chunk = (i: number) => ({ chunk_index: i, heading: null, content: '', titleTerms: '', bodyTerms: '' });
  const now = doc.now;
  const measure = async (knn: (q: Float32Array) => Promise<number[]>): Promise<{ p50: number; recall: number }> => {
    const lat: number[] = [];
    let hit = 0;
    for (const [i, q] of qs.entries()) {
      const t = performance.now();
      const top = await knn(q);
      lat.push(performance.now() - t);
      hit += top.filter((id) => truth[i]!.has(id)).length;
    }
    return { p50: pct(lat, 50), recall: hit / (qs.length * 10) };
  };
  const rescore = (q: Float32Array, ids: number[], fv: Map<number, Float32Array>): number[] =>
    ids.map((id) => ({ id, s: dot(q, fv.get(id)!) })).sort((a, b) => b.s - a.s).slice(0, 10).map((x) => x.id);

  // pgvector
  const store = await openPgKnowledgeStore({ url: pg.url, schema: 'knowledge' }, MIGRATIONS);
  try {
    await store.vectors.ensure(dims);
    await store.vectors.dropIndex();
    await store.documents.insert(doc);
    const l0 = performance.now();
    for (let b = 0; b < n; b += BATCH) {
      const idx = Array.from({ length: Math.min(BATCH, n - b) }, (_, k) => b + k);
      const ids = await store.chunks.appendForBench('doc', idx.map(chunk));
      await store.vectors.put(ids.map((id, k) => ({ chunkId: id, documentId: 'doc', vector: vecs[idx[k]!]! })), now);
    }
    const loadS = (performance.now() - l0) / 1000;
    const b0 = performance.now();
    await store.db.exec('SET maintenance_work_mem = \'512MB\'');
    await store.vectors.buildIndex();
    const buildS = (performance.now() - b0) / 1000;
    await store.db.exec('VACUUM ANALYZE chunk_vectors');
    const r = await measure(async (q) => {
      const cand = await store.vectors.knn(q, K);
      const ids = cand.map((c) => c.chunk_id);
      return rescore(q, ids, await store.vectors.vectorsOf(ids));
    });
    console.log(`pgvector HNSW (halfvec, m ${16}, ef_search ${K}) + exact rescoring at ${n} chunks: p50 ${r.p50.toFixed(2)} ms, recall@10 ${r.recall.toFixed(3)} (load ${loadS.toFixed(1)} s, index build ${buildS.toFixed(1)} s)`);
    out({ name: `dense search p50, ${n} chunks, pgvector HNSW + rescoring`, value: r.p50, unit: 'ms' });
    out({ name: `dense recall@10 vs exact, ${n} chunks, pgvector HNSW + rescoring`, value: r.recall, unit: '', target: '>= 0.95', pass: r.recall >= 0.95 });
    out({ name: `pgvector HNSW index build, ${n} x ${dims}`, value: buildS, unit: 's' });
  } finally {
    await store.db.close();
  }

  // sqlite-vec
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-sqlitevec-'));
  const sqlite = openKnowledgeStore(dir, MIGRATIONS);
  try {
    sqlite.vectors.ensure(dims);
    sqlite.documents.insert(doc);
    for (let b = 0; b < n; b += BATCH) {
      sqlite.tx(() => {
        const idx = Array.from({ length: Math.min(BATCH, n - b) }, (_, k) => b + k);
        const ids = sqlite.chunks.appendForBench('doc', idx.map(chunk));
        sqlite.vectors.put(ids.map((id, k) => ({ chunkId: id, documentId: 'doc', vector: vecs[idx[k]!]! })), now);
      });
    }
    const r = await measure(async (q) => {
      const ids = sqlite.vectors.knn(q, K).map((c) => c.chunk_id);
      return rescore(q, ids, sqlite.vectors.vectorsOf(ids));
    });
    console.log(`sqlite-vec sign-bit KNN (k ${K}) + exact rescoring at ${n} chunks: p50 ${r.p50.toFixed(2)} ms, recall@10 ${r.recall.toFixed(3)}`);
    out({ name: `dense search p50, ${n} chunks, sqlite-vec sign bits + rescoring`, value: r.p50, unit: 'ms' });
    out({ name: `dense recall@10 vs exact, ${n} chunks, sqlite-vec sign bits + rescoring`, value: r.recall, unit: '' });
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run the scale-out PostgreSQL figures. @returns them ([] when PostgreSQL or pgvector is missing). */
export async function main(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const missing = postgresMissing();
  if (missing) {
    console.log(`== scale-out on PostgreSQL: skipped (${missing}) ==`);
    return figures;
  }
  const out = (f: Figure): void => { figures.push(f); };
  const pg = await startPostgres({ conf: ['max_connections = 60'] });
  try {
    const parts = (process.env.BENCH_PG_PARTS ?? 'audit,dense').split(',');
    if (parts.includes('audit')) {
      console.log('== scale-out on PostgreSQL: audit appends ==');
      await auditFigures(pg, out);
    }
    if (parts.includes('dense')) {
      console.log('== scale-out on PostgreSQL: dense search ==');
      await denseFigures(pg, out);
    }
  } finally {
    await pg.stop();
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then((fs) => { for (const f of fs) console.log(`${f.name}: ${f.value} ${f.unit}`); })
    .catch((err: unknown) => { process.stderr.write(`${String((err as Error).stack ?? err)}\n`); process.exitCode = 1; });
}
