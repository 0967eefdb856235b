/**
 * Shared setup of the knowledge-on-PostgreSQL test and bench (issue 21 items 1, 5 and 6): a
 * deterministic stand-in embedder (hashed term vectors, L2-normalised, 384-d like the local model;
 * the real ONNX weights are not on these machines), and loading one corpus into the SQLite store and
 * the PostgreSQL store identically (same documents, chunks, analysed terms and vectors), so search
 * on both can be compared.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder, EmbedderStatus } from '../../services/embedder/src/contracts.js';
import { analyze, normalize } from '../../services/embedder/src/index.js';
import type { VisibilityMode } from '../../services/knowledge/src/contracts.js';
import type { NewDocument } from '../../services/knowledge/src/domain/ports.js';
import type { KnowledgeStore } from '../../services/knowledge/src/store/knowledge-store.js';
import type { PgKnowledgeStore } from '../../services/knowledge/src/store/pg/knowledge-store.js';

/** Seeded PRNG (mulberry32), uniform in [0, 1). */
export function mulberry(seed: number): () => number {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

function termSeed(t: string): number {
  let h = 2166136261;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A deterministic embedder: each analysed term maps to a fixed pseudo-random Gaussian vector; a text
 * is the normalised sum of its terms' vectors (so texts sharing terms are near, as with a real model).
 */
export function hashEmbedder(dims = 384): Embedder {
  const cache = new Map<string, Float32Array>();
  const termVec = (t: string): Float32Array => {
    let v = cache.get(t);
    if (!v) {
      const r = mulberry(termSeed(t));
      v = new Float32Array(dims);
      for (let i = 0; i < dims; i++) { const u = r() || 1e-9; v[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r()); }
      cache.set(t, v);
    }
    return v;
  };
  const status: EmbedderStatus = { state: 'ready', model: 'hash-test', path: null, dims, file: null, reason: null, texts_embedded: 0 };
  return {
    available: true,
    status: () => status,
    whenSettled: async () => status,
    embed: async (texts) => texts.map((t) => {
      const v = new Float32Array(dims);
      for (const term of analyze(t)) { const tv = termVec(term); for (let i = 0; i < dims; i++) v[i]! += tv[i]!; }
      return normalize(v);
    }),
    close: async () => undefined,
  };
}

/** One document of a test corpus (one chunk each). */
export interface CorpusDoc { id: string; title: string; text: string; owner?: string; visibility?: VisibilityMode; audiences?: string[]; grants?: string[]; tags?: string[] }

function newDoc(d: CorpusDoc, tenant: string, now: string): NewDocument {
  return {
    id: d.id, tenant_id: tenant, title: d.title, source_type: 'text', filename: null, mime_type: null, bytes: null, object_sha256: null,
    owner_user_id: d.owner ?? 'owner', creator_user_id: d.owner ?? 'owner', visibility_mode: d.visibility ?? 'shared', tags: d.tags ?? [], metadata: {},
    audience_tags: d.audiences ?? [], user_grants: d.grants ?? [], batch_id: null, now,
  };
}

/**
 * Load `docs` into both stores the same way (document, one chunk with analysed title and body
 * terms, its vector from `embedder`). Vector indexes are ensured for `embedder`'s width first.
 */
export async function loadBoth(docs: CorpusDoc[], tenant: string, sqlite: KnowledgeStore, pg: PgKnowledgeStore, embedder: Embedder): Promise<void> {
  const dims = embedder.status().dims;
  sqlite.vectors.ensure(dims);
  await pg.vectors.ensure(dims);
  const now = '2026-11-24T10:00:00.000Z';
  const vecs = await embedder.embed(docs.map((d) => `${d.title}\n${d.text}`));
  for (const [i, d] of docs.entries()) {
    const chunk = { chunk_index: 0, heading: null, content: d.text, titleTerms: analyze(d.title).join(' '), bodyTerms: analyze(d.text).join(' ') };
    sqlite.tx(() => {
      sqlite.documents.insert(newDoc(d, tenant, now));
      const [id] = sqlite.chunks.replace(d.id, [chunk]);
      sqlite.vectors.put([{ chunkId: id!, documentId: d.id, vector: vecs[i]! }], now);
    });
    await pg.db.tx(async () => {
      await pg.documents.insert(newDoc(d, tenant, now));
      const [id] = await pg.chunks.replace(d.id, [chunk]);
      await pg.vectors.put([{ chunkId: id!, documentId: d.id, vector: vecs[i]! }], now);
    });
  }
}

/**
 * The SciFact folder of the shared assets (`<repo>/../shared/assets/beir/scifact`), found by walking up
 * from this file (the build may sit in `dist/` or `.build/<name>/`), or null when absent.
 */
export function sciFactDir(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const p = join(dir, 'shared', 'assets', 'beir', 'scifact');
    if (existsSync(join(p, 'corpus.jsonl'))) return p;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** SciFact: corpus, train queries and their judged documents. @throws Error when `dir` lacks the files. */
export function loadSciFactFrom(dir: string): { corpus: Array<{ _id: string; title: string; text: string }>; queries: Array<{ _id: string; text: string }>; qrels: Map<string, Set<string>> } {
  const lines = (f: string) => readFileSync(join(dir, f), 'utf8').trim().split('\n');
  const qrels = new Map<string, Set<string>>();
  for (const l of lines('qrels/train.tsv').slice(1)) {
    const [q, d] = l.split('\t');
    if (!qrels.has(q!)) qrels.set(q!, new Set());
    qrels.get(q!)!.add(d!);
  }
  return {
    corpus: lines('corpus.jsonl').map((l) => JSON.parse(l) as { _id: string; title: string; text: string }),
    queries: lines('queries.jsonl').map((l) => JSON.parse(l) as { _id: string; text: string }),
    qrels,
  };
}
