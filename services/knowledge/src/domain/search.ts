/**
 * Hybrid search (spec "Knowledge defaults"; docs/decisions-knowledge.md "Scores"): BM25 over the
 * keyword index plus, with a model, sign-bit KNN rescored with exact cosine, fused by reciprocal
 * rank; visibility applied on both paths. A search within a turn emits `rag_chunks_retrieved`
 * (spec: turn events) and waits briefly for its delivery before answering.
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../../../shared/identity/principal.js';
import type { Embedder } from '../../../embedder/src/contracts.js';
import { analyze, dot, ftsOrQuery, fuse, normalisedScore, queryTerms, RRF_K, type Ranked } from '../../../embedder/src/index.js';
import type { KnowledgeSettings, SearchFilter, SearchResponse, SearchResult } from '../contracts.js';
import type { Indexer } from './indexing.js';
import type { EventSink, Viewer } from './ports.js';
import type { SearchChunkReads, SearchVectorReads } from './async-ports.js';
import { isAdmin, type Visibility } from './visibility.js';

/** FTS5 bm25() weight of the title column against the body (tuned on SciFact train queries). */
export const TITLE_WEIGHT = 2.5;
/** Dense candidates below this cosine are not evidence at all. */
export const DENSE_MIN_SIMILARITY = 0.2;

/** Options of one search. */
export interface SearchOptions {
  /** Results wanted, 1-100. */
  limit: number;
  /** Normalised score below which results are dropped (default: the configured threshold). */
  threshold?: number;
  /** One result per document, its best chunk (default true). */
  groupByDocument?: boolean;
  /** The turn the search belongs to: `rag_chunks_retrieved` is emitted for it. */
  turnId?: string | null;
  /** Only documents matching this (within visibility; issue 17 item 1: an agent's knowledge). */
  filter?: SearchFilter;
}

/** Dependencies of search. */
export interface SearchDeps {
  visibility: Visibility;
  /** The SQLite `ChunkStore`, or an async store (PostgreSQL, issue 21 item 1). */
  chunks: SearchChunkReads;
  /** The SQLite `VectorIndex`, or an async index (pgvector). */
  vectors: SearchVectorReads;
  embedder: Embedder;
  indexer: Pick<Indexer, 'denseReason'>;
  settings: Pick<KnowledgeSettings, 'sparseEnabled' | 'searchScoreThreshold'>;
  events: EventSink | null;
}

/** The search use case. */
export class Search {
  constructor(private readonly d: SearchDeps) {}

  /** Search what `p` may read; each result says how it was found (`retrieval_rationale`). */
  async search(p: Principal, query: string, opts: SearchOptions): Promise<SearchResponse> {
    const viewer = withFilter(await this.d.visibility.viewerOf(p), opts.filter);
    const limit = opts.limit;
    const depth = Math.max(50, limit * 5);
    const useDense = this.d.embedder.available;
    const useSparse = this.d.settings.sparseEnabled || !useDense;
    const terms = queryTerms(query);
    const lists: Array<{ name: string; items: Array<Ranked<number>> }> = [];
    const sparseInfo = new Map<number, number>();
    const denseInfo = new Map<number, number>();
    const docOf = new Map<number, string>();
    if (useSparse) {
      const match = ftsOrQuery(terms);
      if (match) {
        const rows = await this.d.chunks.sparse(viewer, match, depth, TITLE_WEIGHT);
        rows.forEach((r) => { sparseInfo.set(r.chunk_id, -r.score); docOf.set(r.chunk_id, r.document_id); });
        lists.push({ name: 'bm25', items: rows.map((r, i) => ({ key: r.chunk_id, rank: i + 1 })) });
      }
    }
    if (useDense && query.trim()) {
      const dense = await this.denseCandidates(viewer, query, depth);
      dense.forEach((r) => { denseInfo.set(r.chunk_id, r.cosine); docOf.set(r.chunk_id, r.document_id); });
      if (dense.length) lists.push({ name: 'dense', items: dense.map((r, i) => ({ key: r.chunk_id, rank: i + 1 })) });
    }
    const fused = fuse(lists);
    const threshold = opts.threshold ?? this.d.settings.searchScoreThreshold;
    const picked: typeof fused = [];
    const seenDocs = new Set<string>();
    for (const f of fused) {
      const score = normalisedScore(f.fused);
      if (score < threshold) break; // fused order = score order
      const doc = docOf.get(f.key)!;
      if (opts.groupByDocument !== false) {
        if (seenDocs.has(doc)) continue;
        seenDocs.add(doc);
      }
      picked.push(f);
      if (picked.length >= limit) break;
    }
    const hits = await this.d.chunks.hits(picked.map((f) => f.key));
    const termSet = new Set(terms);
    const results: SearchResult[] = [];
    for (const f of picked) {
      const h = hits.get(f.key);
      if (!h) continue;
      const parts: string[] = [];
      if (f.ranks.bm25 !== undefined) {
        const matched = [...new Set(analyze(`${h.title}\n${h.heading ?? ''}\n${h.content}`))].filter((t) => termSet.has(t));
        parts.push(`keyword match (BM25) rank ${f.ranks.bm25}, score ${sparseInfo.get(f.key)!.toFixed(2)}; matched terms: ${matched.slice(0, 8).join(', ') || 'none'}`);
      }
      if (f.ranks.dense !== undefined) parts.push(`semantic match rank ${f.ranks.dense}, cosine ${denseInfo.get(f.key)!.toFixed(3)}`);
      parts.push(lists.length > 1 ? `fused by reciprocal rank (k=${RRF_K})` : `single retriever (${lists[0]!.name === 'bm25' ? 'BM25' : 'dense'})`);
      results.push({
        content: h.content, source: h.document_id, document_id: h.document_id, score: Number(normalisedScore(f.fused).toFixed(4)),
        document_title: h.title, chunk_index: h.chunk_index, heading: h.heading, retrieval_rationale: parts.join('; '),
      });
    }
    if (opts.turnId && this.d.events) {
      this.d.events.emit(opts.turnId, p.id, 'rag_chunks_retrieved', {
        query_sha256: createHash('sha256').update(query).digest('hex'), query_chars: query.length,
        retrieval: { sparse: useSparse, dense: useDense, fusion: lists.length > 1 ? 'rrf' : 'none' }, threshold,
        count: results.length,
        chunks: results.map((r) => ({ document_id: r.document_id, chunk_index: r.chunk_index, score: r.score })),
      });
      await this.d.events.deliver(1500);
    }
    // Only admins read the embedder's own reason (it names directories; issue 11 item 9).
    return { results, retrieval: { sparse: useSparse, dense: useDense, dense_reason: useDense ? null : this.d.indexer.denseReason(isAdmin(p)) } };
  }

  /** Dense candidates: Hamming KNN over sign bits, oversampled, then exact cosine on float vectors, visibility applied. */
  private async denseCandidates(viewer: Viewer, query: string, depth: number): Promise<Array<{ chunk_id: number; document_id: string; cosine: number }>> {
    let q: Float32Array;
    try { q = (await this.d.embedder.embed([query], 'query'))[0]!; } catch { return []; }
    // sqlite-vec's bit KNN costs grow with k (about 0.1 ms per candidate at 100k rows): 200 candidates keep
    // recall@10 above 0.95 against exact search within the latency budget (bench/knowledge.ts).
    const cand = await this.d.vectors.knn(q, Math.min(400, Math.max(200, depth * 4)));
    if (cand.length === 0) return [];
    const ids = cand.map((c) => c.chunk_id);
    const visible = viewer.admin && !viewer.filter ? null : await this.d.chunks.visibleChunkIds(viewer, ids);
    const keep = visible ? ids.filter((id) => visible.has(id)) : ids;
    const vecs = await this.d.vectors.vectorsOf(keep);
    const docs = visible ?? await this.d.chunks.visibleChunkIds(viewer, keep);
    const scored: Array<{ chunk_id: number; document_id: string; cosine: number }> = [];
    for (const id of keep) {
      const v = vecs.get(id);
      const doc = docs.get(id);
      if (!v || !doc) continue;
      const cosine = dot(q, v);
      if (cosine >= DENSE_MIN_SIMILARITY) scored.push({ chunk_id: id, document_id: doc, cosine });
    }
    scored.sort((a, b) => b.cosine - a.cosine);
    return scored.slice(0, depth);
  }
}

/** `viewer` narrowed by a search's filter (lists trimmed; a filter that names nothing leaves it as it is). */
function withFilter(viewer: Viewer, f: SearchFilter | undefined): Viewer {
  if (!f) return viewer;
  const clean = (xs: string[] | undefined): string[] => [...new Set((xs ?? []).map((x) => x.trim()).filter(Boolean))];
  const filter = { tags: clean(f.tags), audiences: clean(f.audiences), documentIds: clean(f.document_ids) };
  return filter.tags.length || filter.audiences.length || filter.documentIds.length ? { ...viewer, filter } : viewer;
}
