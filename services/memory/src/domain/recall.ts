/**
 * Recall (spec "Memory": search and prefetch): hybrid ranking of a scope's memories by keyword
 * (BM25) and cosine, fused by reciprocal rank into a 0-1 score. Search answers the best matches;
 * prefetch fills a token budget for a chat turn, pinned memories first. Both mark what they
 * return as recalled and report a `memory_recall` event.
 */
import { dot, fuse, normalisedScore, queryTerms, type Ranked } from '../../../embedder/src/index.js';
import type { MemoryType, PrefetchRequest, PrefetchResult, SearchRequest, SearchResult } from '../contracts.js';
import { emitMemoryOp, type MemoryDeps } from './deps.js';
import type { MemoryRow, ScopeFilter } from './ports.js';
import { checkType, estimateTokens, eventScope, nowIso, record, scopeKey, type Scope } from './records.js';
import { resolveScope, type Caller } from './scopes.js';

/** Dense matches below this cosine are not evidence. */
const DENSE_MIN = 0.2;
/** Prefetch takes ranked memories at or above this score. */
const PREFETCH_MIN_SCORE = 0.5;
/** Tokens a memory costs in the prefetch context beyond its content (the `- [type] ` line prefix). */
const PREFETCH_LINE_TOKENS = 4;

/** A ranked memory. */
export interface Hit { row: MemoryRow; score: number }

/** The search and prefetch use cases. */
export class MemoryRecall {
  constructor(private readonly d: MemoryDeps) {}

  /**
   * Rank a scope's memories for `query`. `agentOrShared`: also the user's memories with no agent or
   * session, next to the scope's agent and session (prefetch); otherwise exactly the scope's.
   */
  async rank(scope: Scope, query: string, type: MemoryType | null, limit: number, agentOrShared: boolean): Promise<Hit[]> {
    const { memories, vectors } = this.d;
    const f: ScopeFilter = { scopeKey: scopeKey(scope), agentId: agentOrShared ? null : scope.agent_id, sessionId: agentOrShared ? null : scope.session_id, memoryType: type, now: nowIso() };
    const lists: Array<{ name: string; items: Array<Ranked<number>> }> = [];
    const terms = queryTerms(query);
    const depth = Math.max(50, limit * 5);
    const keep = (r: MemoryRow): boolean => !agentOrShared || ((!r.agent_id || r.agent_id === scope.agent_id) && (!r.session_id || r.session_id === scope.session_id));
    if (terms.length) lists.push({ name: 'bm25', items: (await memories.keywordSearch(f, terms, depth)).map((r, i) => ({ key: r.rid, rank: i + 1 })) });
    const qv = await this.d.dense.vectorOf(query, 'query');
    if (qv) {
      const rows = (await memories.all(f)).filter(keep);
      const vecs = await vectors.vectors(rows.map((r) => r.rid));
      const scored = rows.map((r) => ({ rid: r.rid, sim: vecs.has(r.rid) ? dot(qv, vecs.get(r.rid)!) : -1 })).filter((x) => x.sim >= DENSE_MIN).sort((a, b) => b.sim - a.sim).slice(0, depth);
      if (scored.length) lists.push({ name: 'dense', items: scored.map((x, i) => ({ key: x.rid, rank: i + 1 })) });
    }
    const fused = fuse(lists).slice(0, depth);
    const rows = new Map((await memories.byRids(fused.map((x) => x.key))).map((r) => [r.rid, r]));
    const out: Hit[] = [];
    for (const x of fused) {
      const r = rows.get(x.key);
      if (r && keep(r)) out.push({ row: r, score: normalisedScore(x.fused) });
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Search by query, scope and type, with scores (0-1, reciprocal-rank fusion of BM25 and cosine).
   * @throws DomainError `scope_forbidden`, `invalid_request` (a bad type).
   */
  async search(c: Caller, body: SearchRequest): Promise<SearchResult> {
    const scope = resolveScope(c.principal, body.scope);
    checkType(body.memory_type, 'memory_type');
    const hits = (await this.rank(scope, body.query, body.memory_type ?? null, body.limit ?? 10, false)).filter((h) => h.score >= (body.min_score ?? 0));
    const now = nowIso();
    await this.d.memories.touch(hits.map((h) => h.row.rid), now);
    const memories = hits.map((h) => record({ ...h.row, last_recalled_at: now }, h.score));
    await emitMemoryOp(this.d, c, 'memory_recall', { operation: 'search', count: memories.length, memory_ids: memories.map((m) => m.id), memory_type: body.memory_type ?? null, scope: eventScope(scope) });
    return { memories };
  }

  /**
   * Prefetch for a chat turn: pinned memories first, then the most relevant, until the token
   * budget is spent. Memories of the user with no agent or session, or the turn's, are eligible.
   * The query is `query`, else the last two user messages.
   * @throws DomainError `scope_forbidden`.
   */
  async prefetch(c: Caller, body: PrefetchRequest): Promise<PrefetchResult> {
    const scope = resolveScope(c.principal, body.scope);
    const budget = body.token_budget ?? this.d.settings.prefetchTokenBudget;
    const limit = body.limit ?? 20;
    let query = body.query ?? '';
    if (!query && Array.isArray(body.messages)) {
      query = body.messages.filter((m) => m.role === 'user').slice(-2).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    }
    const eligible = (r: MemoryRow): boolean => (!r.agent_id || r.agent_id === scope.agent_id) && (!r.session_id || r.session_id === scope.session_id);
    const pinned = (await this.d.memories.all({ scopeKey: scopeKey(scope), now: nowIso() })).filter((r) => r.pinned && eligible(r)).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const ranked = query.trim() ? await this.rank(scope, query, null, limit * 2, true) : [];
    const picked: Array<{ row: MemoryRow; score?: number }> = [];
    const seen = new Set<number>();
    let used = 0;
    for (const cand of [...pinned.map((row) => ({ row, score: undefined as number | undefined })), ...ranked.filter((r) => r.score >= PREFETCH_MIN_SCORE)]) {
      if (seen.has(cand.row.rid) || picked.length >= limit) continue;
      const cost = estimateTokens(cand.row.content) + PREFETCH_LINE_TOKENS;
      if (used + cost > budget) continue;
      seen.add(cand.row.rid);
      used += cost;
      picked.push(cand);
    }
    const now = nowIso();
    await this.d.memories.touch(picked.map((p) => p.row.rid), now);
    const memories = picked.map((p) => record({ ...p.row, last_recalled_at: now }, p.score));
    const context = memories.length ? `Things you remember about this user (use when relevant):\n${memories.map((m) => `- [${m.memory_type}] ${m.content}`).join('\n')}` : '';
    if (memories.length) await emitMemoryOp(this.d, c, 'memory_recall', { operation: 'prefetch', count: memories.length, memory_ids: memories.map((m) => m.id), tokens_used: used, scope: eventScope(scope) });
    return { memories, tokens_used: used, token_budget: budget, context };
  }
}
