/**
 * The memory domain (spec "Memory"): scopes and authorization, store (content or extraction from
 * messages), hybrid search with scores, list, update, delete, forget, prefetch within a token
 * budget, consolidation, and `memory_op` turn events (subtypes memory_write, memory_recall,
 * memory_forget).
 */
import type { Logger } from 'pino';
import { AppError, invalidRequest } from '../../../shared/http/errors.js';
import type { Principal } from '../../../shared/identity/principal.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { Embedder } from '../../../embedder/src/contracts.js';
import { analyze, ftsOrQuery, queryTerms } from '../../../embedder/src/text/analyzer.js';
import { dot, fromBlob, toBlob } from '../../../embedder/src/vector.js';
import { fuse, normalisedScore, type Ranked } from '../../../embedder/src/fusion.js';
import {
  MEMORY_TYPES, type ConsolidationDecision, type ConsolidationReport, type MemoryRecord, type MemoryScope, type MemoryType, type PrefetchRequest,
  type PrefetchResult, type SearchRequest, type StoreOutcome, type StoreRequest, type StoreResult, type UpdateRequest, type MemorySettings,
} from '../contracts.js';
import type { MemoryRow, MemoryStore, ScopeFilter } from '../store/memory-store.js';
import { extractCandidates, type Candidate } from './extract.js';
import { askMemoryRole, CONSOLIDATE_PROMPT, EXTRACT_PROMPT, type StampedHeaders } from './memory-role.js';

const newId = ulidFactory();
/** Roles acting on any user of their tenant. */
export const TENANT_ROLES = ['admin', 'tenant_admin', 'service-account'];
/** Roles acting across tenants. */
export const PLATFORM_ROLES = ['platform_admin'];
/** Dense matches below this cosine are not evidence. */
const DENSE_MIN = 0.2;

/** memory_op subtypes (spec "Events"). */
export type MemoryOpSubtype = 'memory_write' | 'memory_recall' | 'memory_forget';

/** Turn-event sink. */
export interface EventSink {
  emit(turnId: string, principalId: string, type: 'memory_op', payload: unknown): void;
  deliver(timeoutMs?: number): Promise<boolean>;
}

/** Who acts, in which turn, with which headers (forwarded to the memory role). */
export interface Caller { principal: Principal; turnId: string | null; headers: StampedHeaders }

/** A resolved scope. */
export interface Scope { tenant_id: string; user_id: string; agent_id: string | null; session_id: string | null }

/** Dependencies. */
export interface MemoryDeps {
  store: MemoryStore;
  embedder: Embedder;
  settings: MemorySettings;
  routerUrl: string;
  events: EventSink | null;
  logger: Logger;
}

function nowIso(): string { return new Date().toISOString(); }
function scopeKey(s: { tenant_id: string; user_id: string }): string { return `${s.tenant_id}:${s.user_id}`; }
/** Normalised content for exact-duplicate checks. */
export function contentKey(s: string): string { return s.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim(); }
function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}
/** Estimated tokens of a text (4 characters per token, the usual English rule of thumb). */
export function estimateTokens(s: string): number { return Math.ceil(s.length / 4); }

function record(r: MemoryRow, score?: number): MemoryRecord {
  const out: MemoryRecord = {
    id: r.id, content: r.content, memory_type: r.memory_type, scope: { tenant_id: r.tenant_id, user_id: r.user_id, agent_id: r.agent_id, session_id: r.session_id },
    pinned: r.pinned === 1, expires_at: r.expires_at, source: r.source, last_recalled_at: r.last_recalled_at, why_stored: r.why_stored,
    created_at: r.created_at, updated_at: r.updated_at,
  };
  if (score !== undefined) out.score = Number(score.toFixed(4));
  return out;
}

function checkExpiry(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw invalidRequest('expires_at must be an RFC 3339 time', 'expires_at');
  return new Date(v).toISOString();
}

/** The service. */
export class MemoryService {
  private pumping: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly d: MemoryDeps) {}

  start(): void {
    void this.d.embedder.whenSettled().then((st) => { if (st.state === 'ready') this.kick(); });
  }

  async close(): Promise<void> { this.closed = true; await this.pumping?.catch(() => {}); }

  // ---- scopes --------------------------------------------------------------------------------

  /**
   * Resolve and authorise a scope (spec "Authorization"): own scope for everyone; any user of the
   * tenant for tenant admins (and service accounts); any tenant for platform roles.
   * @throws AppError 403 `scope_forbidden`.
   */
  resolveScope(p: Principal, s: MemoryScope | undefined): Scope {
    const tenant = s?.tenant_id || p.tenant_id;
    const user = s?.user_id || p.id;
    const platform = p.roles.some((r) => PLATFORM_ROLES.includes(r));
    const tenantAdmin = platform || p.roles.some((r) => TENANT_ROLES.includes(r));
    if (tenant !== p.tenant_id && !platform) throw new AppError(403, 'scope_forbidden', 'memories of another tenant are out of reach');
    if (user !== p.id && !tenantAdmin) throw new AppError(403, 'scope_forbidden', 'you may act on your own memories only');
    return { tenant_id: tenant, user_id: user, agent_id: s?.agent_id || null, session_id: s?.session_id || null };
  }

  /** A memory the caller may act on; others answer 404 as if absent. */
  private owned(p: Principal, id: string, s?: MemoryScope): MemoryRow {
    const m = this.d.store.byId(id);
    const platform = p.roles.some((r) => PLATFORM_ROLES.includes(r));
    const tenantAdmin = platform || p.roles.some((r) => TENANT_ROLES.includes(r));
    const ok = m && (platform || (m.tenant_id === p.tenant_id && (m.user_id === p.id || tenantAdmin)));
    if (!m || !ok) throw new AppError(404, 'memory_not_found', `no memory ${id}`);
    if (s && (s.user_id || s.tenant_id)) {
      const scope = this.resolveScope(p, s);
      if (scope.user_id !== m.user_id || scope.tenant_id !== m.tenant_id) throw new AppError(404, 'memory_not_found', `no memory ${id}`);
    }
    return m;
  }

  private async event(c: Caller, subtype: MemoryOpSubtype, payload: Record<string, unknown>): Promise<void> {
    if (!c.turnId || !this.d.events) return;
    this.d.events.emit(c.turnId, c.principal.id, 'memory_op', { subtype, ...payload });
    await this.d.events.deliver(1500);
  }

  // ---- store ---------------------------------------------------------------------------------

  private async vectorOf(text: string, priority: 'query' | 'bulk'): Promise<Float32Array | null> {
    if (!this.d.embedder.available) return null;
    try { return (await this.d.embedder.embed([text], priority))[0]!; } catch { return null; }
  }

  /** Near-duplicate of `content` in the scope and type: exact key, else cosine or term overlap. */
  private async nearDuplicate(scope: Scope, type: MemoryType, content: string, vec: Float32Array | null): Promise<MemoryRow | null> {
    const exact = this.d.store.byKey(scopeKey(scope), contentKey(content), type, scope.agent_id, scope.session_id);
    if (exact) return exact;
    const rows = this.d.store.all({ scopeKey: scopeKey(scope), agentId: scope.agent_id, sessionId: scope.session_id, memoryType: type, now: nowIso() });
    if (!rows.length) return null;
    if (vec) {
      const vecs = this.d.store.vectors(rows.map((r) => r.rid));
      let best: MemoryRow | null = null;
      let bestSim = this.d.settings.duplicateSimilarity;
      for (const r of rows) {
        const v = vecs.get(r.rid);
        if (!v) continue;
        const sim = dot(vec, fromBlob(v));
        if (sim >= bestSim) { bestSim = sim; best = r; }
      }
      return best;
    }
    const terms = new Set(analyze(content));
    for (const r of rows) if (terms.size >= 3 && jaccard(terms, new Set(analyze(r.content))) >= 0.9) return r;
    return null;
  }

  /** Store from `content`, or from `messages` through the memory role (deterministic otherwise). */
  async store(c: Caller, body: StoreRequest): Promise<{ result: StoreResult; created: boolean }> {
    const scope = this.resolveScope(c.principal, body.scope);
    if (body.memory_type && !MEMORY_TYPES.includes(body.memory_type)) throw invalidRequest('memory_type must be user, feedback, project or reference', 'memory_type');
    const expires = checkExpiry(body.expires_at);
    let candidates: Candidate[];
    let extraction: StoreResult['extraction'] = 'content';
    if (typeof body.content === 'string' && body.content.trim()) {
      candidates = [{ content: body.content.trim(), memory_type: body.memory_type ?? 'user', why_stored: body.why_stored ?? 'stored on request' }];
    } else if (Array.isArray(body.messages) && body.messages.length) {
      const transcript = body.messages.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`).join('\n').slice(-24_000);
      const answer = await askMemoryRole(this.d.routerUrl, c.headers, EXTRACT_PROMPT, transcript);
      const fromRole = Array.isArray(answer?.memories) ? (answer!.memories as unknown[]).flatMap((x): Candidate[] => {
        const o = x as { content?: unknown; memory_type?: unknown; why_stored?: unknown };
        if (typeof o.content !== 'string' || !o.content.trim()) return [];
        const t = MEMORY_TYPES.includes(o.memory_type as MemoryType) ? o.memory_type as MemoryType : (body.memory_type ?? 'user');
        return [{ content: o.content.trim().slice(0, 4000), memory_type: t, why_stored: typeof o.why_stored === 'string' ? o.why_stored.slice(0, 1000) : 'extracted by the memory role' }];
      }) : null;
      if (fromRole) { candidates = fromRole; extraction = 'memory_role'; } else { candidates = extractCandidates(body.messages); extraction = 'deterministic'; }
      if (body.memory_type) candidates = candidates.map((x) => ({ ...x, memory_type: body.memory_type! }));
      if (body.why_stored) candidates = candidates.map((x) => ({ ...x, why_stored: body.why_stored! }));
    } else {
      throw invalidRequest('send content (a string) or messages (an array of {role, content})', 'content');
    }
    const results: StoreOutcome[] = [];
    const now = nowIso();
    for (const cand of candidates) {
      const vec = await this.vectorOf(cand.content, 'bulk');
      const dup = await this.nearDuplicate(scope, cand.memory_type, cand.content, vec);
      if (dup && contentKey(dup.content) === contentKey(cand.content)) {
        results.push({ event: 'NONE', memory: record(dup), reason: 'already stored' });
        continue;
      }
      if (dup) {
        this.d.store.tx(() => {
          this.d.store.update(dup.rid, { content: cand.content, content_key: contentKey(cand.content), memory_type: dup.memory_type, pinned: body.pinned === undefined ? dup.pinned : Number(body.pinned),
            expires_at: expires ?? dup.expires_at, why_stored: cand.why_stored }, analyze(cand.content).join(' '), now);
          this.d.store.history({ memory_id: dup.id, tenant_id: dup.tenant_id, user_id: dup.user_id, event: 'UPDATE', actor_id: c.principal.id, user_initiated: false, old_content: dup.content, new_content: cand.content, reason: 'near-duplicate replaced by newer statement', at: now });
        });
        if (vec) this.d.store.putVector(dup.rid, cand.content, toBlob(vec));
        results.push({ event: 'UPDATE', memory: record(this.d.store.byId(dup.id)!), reason: 'near-duplicate of an existing memory; updated' });
        continue;
      }
      const row = this.d.store.tx(() => {
        const r = this.d.store.insert({
          id: newId(), tenant_id: scope.tenant_id, user_id: scope.user_id, scope_key: scopeKey(scope), agent_id: scope.agent_id, session_id: scope.session_id,
          memory_type: cand.memory_type, content: cand.content.slice(0, 8000), content_key: contentKey(cand.content), pinned: body.pinned ? 1 : 0, expires_at: expires,
          source: body.source ?? (extraction === 'content' ? 'api' : `conversation:${extraction}`), why_stored: cand.why_stored,
        }, analyze(cand.content).join(' '), now);
        this.d.store.history({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'ADD', actor_id: c.principal.id, user_initiated: extraction === 'content', old_content: null, new_content: r.content, reason: cand.why_stored, at: now });
        return r;
      });
      if (vec) this.d.store.putVector(row.rid, row.content, toBlob(vec));
      results.push({ event: 'ADD', memory: record(this.d.store.byId(row.id)!) });
    }
    if (this.d.embedder.available) this.kick();
    const changed = results.filter((r) => r.event !== 'NONE');
    if (changed.length) {
      await this.event(c, 'memory_write', { operation: 'store', count: changed.length, memory_ids: changed.map((r) => r.memory.id), events: changed.map((r) => r.event), scope: { user_id: scope.user_id, agent_id: scope.agent_id, session_id: scope.session_id }, extraction });
    }
    return { result: { results, memories: results.map((r) => r.memory), extraction }, created: results.some((r) => r.event === 'ADD') };
  }

  // ---- search --------------------------------------------------------------------------------

  private async rank(scope: Scope, query: string, type: MemoryType | null, limit: number, agentOrShared: boolean): Promise<Array<{ row: MemoryRow; score: number }>> {
    const f: ScopeFilter = { scopeKey: scopeKey(scope), agentId: agentOrShared ? null : scope.agent_id, sessionId: agentOrShared ? null : scope.session_id, memoryType: type, now: nowIso() };
    const lists: Array<{ name: string; items: Array<Ranked<number>> }> = [];
    const match = ftsOrQuery(queryTerms(query));
    const depth = Math.max(50, limit * 5);
    const keep = (r: MemoryRow): boolean => !agentOrShared || ((!r.agent_id || r.agent_id === scope.agent_id) && (!r.session_id || r.session_id === scope.session_id));
    if (match) lists.push({ name: 'bm25', items: this.d.store.sparse(f, match, depth).map((r, i) => ({ key: r.rid, rank: i + 1 })) });
    const qv = await this.vectorOf(query, 'query');
    if (qv) {
      const rows = this.d.store.all(f).filter(keep);
      const vecs = this.d.store.vectors(rows.map((r) => r.rid));
      const scored = rows.map((r) => ({ rid: r.rid, sim: vecs.has(r.rid) ? dot(qv, fromBlob(vecs.get(r.rid)!)) : -1 })).filter((x) => x.sim >= DENSE_MIN).sort((a, b) => b.sim - a.sim).slice(0, depth);
      if (scored.length) lists.push({ name: 'dense', items: scored.map((x, i) => ({ key: x.rid, rank: i + 1 })) });
    }
    const fused = fuse(lists).slice(0, depth);
    const rows = new Map(this.d.store.byRids(fused.map((x) => x.key)).map((r) => [r.rid, r]));
    const out: Array<{ row: MemoryRow; score: number }> = [];
    for (const x of fused) {
      const r = rows.get(x.key);
      if (r && keep(r)) out.push({ row: r, score: normalisedScore(x.fused) });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Search by query, scope and type, with scores (0-1, reciprocal-rank fusion of BM25 and cosine). */
  async search(c: Caller, body: SearchRequest): Promise<{ memories: MemoryRecord[] }> {
    const scope = this.resolveScope(c.principal, body.scope);
    if (body.memory_type && !MEMORY_TYPES.includes(body.memory_type)) throw invalidRequest('memory_type must be user, feedback, project or reference', 'memory_type');
    const hits = (await this.rank(scope, body.query, body.memory_type ?? null, body.limit ?? 10, false)).filter((h) => h.score >= (body.min_score ?? 0));
    const now = nowIso();
    this.d.store.touch(hits.map((h) => h.row.rid), now);
    const memories = hits.map((h) => record({ ...h.row, last_recalled_at: now }, h.score));
    await this.event(c, 'memory_recall', { operation: 'search', count: memories.length, memory_ids: memories.map((m) => m.id), memory_type: body.memory_type ?? null, scope: { user_id: scope.user_id, agent_id: scope.agent_id, session_id: scope.session_id } });
    return { memories };
  }

  /**
   * Prefetch for a chat turn: pinned memories first, then the most relevant, until the token
   * budget is spent. Memories of the user with no agent or session, or the turn's, are eligible.
   */
  async prefetch(c: Caller, body: PrefetchRequest): Promise<PrefetchResult> {
    const scope = this.resolveScope(c.principal, body.scope);
    const budget = body.token_budget ?? this.d.settings.prefetchTokenBudget;
    const limit = body.limit ?? 20;
    let query = body.query ?? '';
    if (!query && Array.isArray(body.messages)) {
      query = body.messages.filter((m) => m.role === 'user').slice(-2).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    }
    const eligible = (r: MemoryRow): boolean => (!r.agent_id || r.agent_id === scope.agent_id) && (!r.session_id || r.session_id === scope.session_id);
    const pinned = this.d.store.all({ scopeKey: scopeKey(scope), now: nowIso() }).filter((r) => r.pinned === 1 && eligible(r)).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const ranked = query.trim() ? await this.rank(scope, query, null, limit * 2, true) : [];
    const picked: Array<{ row: MemoryRow; score?: number }> = [];
    const seen = new Set<number>();
    let used = 0;
    for (const cand of [...pinned.map((row) => ({ row, score: undefined as number | undefined })), ...ranked.filter((r) => r.score >= 0.5)]) {
      if (seen.has(cand.row.rid) || picked.length >= limit) continue;
      const cost = estimateTokens(cand.row.content) + 4;
      if (used + cost > budget) continue;
      seen.add(cand.row.rid);
      used += cost;
      picked.push(cand);
    }
    const now = nowIso();
    this.d.store.touch(picked.map((p) => p.row.rid), now);
    const memories = picked.map((p) => record({ ...p.row, last_recalled_at: now }, p.score));
    const context = memories.length ? `Things you remember about this user (use when relevant):\n${memories.map((m) => `- [${m.memory_type}] ${m.content}`).join('\n')}` : '';
    if (memories.length) await this.event(c, 'memory_recall', { operation: 'prefetch', count: memories.length, memory_ids: memories.map((m) => m.id), tokens_used: used, scope: { user_id: scope.user_id, agent_id: scope.agent_id, session_id: scope.session_id } });
    return { memories, tokens_used: used, token_budget: budget, context };
  }

  // ---- list, get, update, delete, forget -----------------------------------------------------

  list(p: Principal, q: { tenant_id?: string; user_id?: string; agent_id?: string; session_id?: string; memory_type?: string; limit?: number; cursor?: string; include_expired?: boolean }): { items: MemoryRecord[]; next_cursor?: string } {
    const scope = this.resolveScope(p, q);
    if (q.memory_type && !MEMORY_TYPES.includes(q.memory_type as MemoryType)) throw invalidRequest('memory_type must be user, feedback, project or reference', 'querystring.memory_type');
    const before = q.cursor ? Number(q.cursor) : null;
    if (q.cursor && (!Number.isInteger(before) || before! <= 0)) throw invalidRequest('cursor is not a value this service issued', 'querystring.cursor');
    const limit = q.limit ?? 50;
    const rows = this.d.store.list({ scopeKey: scopeKey(scope), agentId: scope.agent_id, sessionId: scope.session_id, memoryType: q.memory_type ?? null, now: nowIso(), includeExpired: q.include_expired === true }, limit + 1, before);
    const out: { items: MemoryRecord[]; next_cursor?: string } = { items: rows.slice(0, limit).map((r) => record(r)) };
    if (rows.length > limit) out.next_cursor = String(rows[limit - 1]!.rid);
    return out;
  }

  get(p: Principal, id: string, s?: MemoryScope): MemoryRecord & { history: ReturnType<MemoryStore['historyOf']> } {
    const m = this.owned(p, id, s);
    return { ...record(m), history: this.d.store.historyOf(m.id) };
  }

  async update(c: Caller, id: string, body: UpdateRequest): Promise<MemoryRecord> {
    const m = this.owned(c.principal, id, body.scope);
    if (body.memory_type && !MEMORY_TYPES.includes(body.memory_type)) throw invalidRequest('memory_type must be user, feedback, project or reference', 'memory_type');
    const content = body.content !== undefined ? body.content.trim() : m.content;
    if (!content) throw invalidRequest('content must not be empty', 'content');
    const now = nowIso();
    this.d.store.tx(() => {
      this.d.store.update(m.rid, {
        content, content_key: contentKey(content), memory_type: body.memory_type ?? m.memory_type, pinned: body.pinned === undefined ? m.pinned : Number(body.pinned),
        expires_at: body.expires_at === undefined ? m.expires_at : checkExpiry(body.expires_at), why_stored: body.why_stored === undefined ? m.why_stored : body.why_stored,
      }, content !== m.content ? analyze(content).join(' ') : null, now);
      this.d.store.history({ memory_id: m.id, tenant_id: m.tenant_id, user_id: m.user_id, event: 'UPDATE', actor_id: c.principal.id, user_initiated: true, old_content: m.content, new_content: content, reason: 'updated by request', at: now });
    });
    if (content !== m.content) {
      const vec = await this.vectorOf(content, 'bulk');
      if (vec) this.d.store.putVector(m.rid, content, toBlob(vec));
    }
    await this.event(c, 'memory_write', { operation: 'update', count: 1, memory_ids: [m.id], scope: { user_id: m.user_id, agent_id: m.agent_id, session_id: m.session_id } });
    return record(this.d.store.byId(m.id)!);
  }

  /** Delete (`forget` false) or forget (recorded as user-initiated). */
  async remove(c: Caller, id: string, s: MemoryScope | undefined, forget: boolean): Promise<{ id: string; deleted: true; forgotten?: true; initiated_by?: 'user' }> {
    const m = this.owned(c.principal, id, s);
    const now = nowIso();
    this.d.store.tx(() => {
      this.d.store.delete(m.rid);
      this.d.store.history({ memory_id: m.id, tenant_id: m.tenant_id, user_id: m.user_id, event: forget ? 'FORGET' : 'DELETE', actor_id: c.principal.id, user_initiated: forget || c.principal.id === m.user_id, old_content: m.content, new_content: null, reason: forget ? 'the user asked to forget' : 'deleted by request', at: now });
    });
    await this.event(c, 'memory_forget', { operation: forget ? 'forget' : 'delete', count: 1, memory_ids: [m.id], initiated_by: forget ? 'user' : (c.principal.id === m.user_id ? 'user' : 'admin'), scope: { user_id: m.user_id, agent_id: m.agent_id, session_id: m.session_id } });
    return forget ? { id: m.id, deleted: true, forgotten: true, initiated_by: 'user' } : { id: m.id, deleted: true };
  }

  // ---- consolidation -------------------------------------------------------------------------

  /**
   * Consolidate: remove expired memories, then merge near-duplicates within each (scope, agent,
   * session, type) group. With the `memory` role mapped, it decides ADD/UPDATE/DELETE/NONE per
   * group; otherwise the newest (pinned first) memory of a group stays and the rest are merged
   * into it. `only` limits the run to one scope.
   */
  async consolidate(actor: string, headers: StampedHeaders, only: Scope | null): Promise<ConsolidationReport> {
    const now = nowIso();
    const decisions: ConsolidationDecision[] = [];
    let expired = 0;
    let merged = 0;
    let decidedBy: ConsolidationReport['decided_by'] = 'deterministic';
    for (const m of this.d.store.expired(now)) {
      if (only && m.scope_key !== scopeKey(only)) continue;
      this.d.store.tx(() => {
        this.d.store.delete(m.rid);
        this.d.store.history({ memory_id: m.id, tenant_id: m.tenant_id, user_id: m.user_id, event: 'EXPIRE', actor_id: actor, user_initiated: false, old_content: m.content, new_content: null, reason: `expired at ${m.expires_at}`, at: now });
      });
      expired++;
    }
    const scopes = only ? [{ scope_key: scopeKey(only), tenant_id: only.tenant_id, user_id: only.user_id }] : this.d.store.scopes();
    for (const s of scopes) {
      const rows = this.d.store.all({ scopeKey: s.scope_key, now });
      const groups = new Map<string, MemoryRow[]>();
      for (const r of rows) {
        const k = `${r.agent_id ?? ''}|${r.session_id ?? ''}|${r.memory_type}`;
        (groups.get(k) ?? groups.set(k, []).get(k)!).push(r);
      }
      for (const g of groups.values()) {
        for (const cluster of this.clusters(g)) {
          const res = await this.decideCluster(actor, headers, cluster, now);
          decisions.push(...res.decisions);
          merged += res.merged;
          if (res.by === 'memory_role') decidedBy = 'memory_role';
        }
      }
    }
    return { scopes: scopes.length, expired_removed: expired, merged, decisions, decided_by: decidedBy };
  }

  /** Groups of near-duplicates (single link over cosine, or term overlap without vectors). */
  private clusters(rows: MemoryRow[]): MemoryRow[][] {
    if (rows.length < 2) return [];
    const vecs = this.d.store.vectors(rows.map((r) => r.rid));
    const terms = rows.map((r) => new Set(analyze(r.content)));
    const parent = rows.map((_, i) => i);
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
    for (let i = 0; i < rows.length; i++) {
      for (let j = i + 1; j < rows.length; j++) {
        const a = vecs.get(rows[i]!.rid);
        const b = vecs.get(rows[j]!.rid);
        const near = contentKey(rows[i]!.content) === contentKey(rows[j]!.content)
          || (a && b ? dot(fromBlob(a), fromBlob(b)) >= this.d.settings.duplicateSimilarity : jaccard(terms[i]!, terms[j]!) >= 0.8);
        if (near) parent[find(i)] = find(j);
      }
    }
    const out = new Map<number, MemoryRow[]>();
    rows.forEach((r, i) => { const k = find(i); (out.get(k) ?? out.set(k, []).get(k)!).push(r); });
    return [...out.values()].filter((c) => c.length > 1);
  }

  private async decideCluster(actor: string, headers: StampedHeaders, cluster: MemoryRow[], now: string): Promise<{ decisions: ConsolidationDecision[]; merged: number; by: 'memory_role' | 'deterministic' }> {
    const sorted = [...cluster].sort((a, b) => (b.pinned - a.pinned) || b.updated_at.localeCompare(a.updated_at));
    const keep = sorted[0]!;
    const decisions: ConsolidationDecision[] = [];
    let merged = 0;
    const answer = Object.keys(headers).length
      ? await askMemoryRole(this.d.routerUrl, headers, CONSOLIDATE_PROMPT, JSON.stringify(sorted.map((r) => ({ id: r.id, content: r.content, updated_at: r.updated_at }))))
      : null;
    const fromRole = Array.isArray(answer?.decisions) ? (answer!.decisions as Array<Record<string, unknown>>) : null;
    if (fromRole) {
      const ids = new Set(cluster.map((r) => r.id));
      const valid = fromRole.filter((x) => typeof x.memory_id === 'string' && ids.has(x.memory_id) && ['ADD', 'UPDATE', 'DELETE', 'NONE'].includes(String(x.event)));
      const survivors = cluster.filter((r) => !valid.some((x) => x.memory_id === r.id && x.event === 'DELETE'));
      if (valid.length && survivors.length) {
        for (const x of valid) {
          const r = cluster.find((m) => m.id === x.memory_id)!;
          const reason = typeof x.reason === 'string' ? x.reason.slice(0, 500) : 'decided by the memory role';
          if (x.event === 'DELETE') {
            this.d.store.tx(() => { this.d.store.delete(r.rid); this.d.store.history({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'MERGE', actor_id: actor, user_initiated: false, old_content: r.content, new_content: null, reason, at: now }); });
            merged++;
            decisions.push({ event: 'DELETE', memory_id: r.id, reason });
          } else if (x.event === 'UPDATE' && typeof x.content === 'string' && x.content.trim()) {
            const content = x.content.trim().slice(0, 8000);
            this.d.store.tx(() => {
              this.d.store.update(r.rid, { content, content_key: contentKey(content), memory_type: r.memory_type, pinned: r.pinned, expires_at: r.expires_at, why_stored: r.why_stored }, analyze(content).join(' '), now);
              this.d.store.history({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'UPDATE', actor_id: actor, user_initiated: false, old_content: r.content, new_content: content, reason, at: now });
            });
            decisions.push({ event: 'UPDATE', memory_id: r.id, reason });
          } else {
            decisions.push({ event: x.event === 'ADD' ? 'ADD' : 'NONE', memory_id: r.id, reason });
          }
        }
        this.kick();
        return { decisions, merged, by: 'memory_role' };
      }
    }
    decisions.push({ event: 'NONE', memory_id: keep.id, reason: 'newest (or pinned) of its near-duplicates; kept' });
    for (const r of sorted.slice(1)) {
      this.d.store.tx(() => {
        this.d.store.delete(r.rid);
        this.d.store.history({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'MERGE', actor_id: actor, user_initiated: false, old_content: r.content, new_content: null, reason: `near-duplicate merged into ${keep.id}`, at: now });
      });
      merged++;
      decisions.push({ event: 'DELETE', memory_id: r.id, merged_into: keep.id, reason: 'near-duplicate of a newer memory' });
    }
    return { decisions, merged, by: 'deterministic' };
  }

  // ---- background embedding ------------------------------------------------------------------

  kick(): void {
    if (this.pumping || this.closed || !this.d.embedder.available) return;
    this.pumping = (async () => {
      for (;;) {
        if (this.closed) return;
        const rows = this.d.store.unembedded(64);
        if (!rows.length) return;
        let vecs: Float32Array[];
        try { vecs = await this.d.embedder.embed(rows.map((r) => r.content), 'bulk'); } catch { return; }
        rows.forEach((r, i) => this.d.store.putVector(r.rid, r.content, toBlob(vecs[i]!)));
      }
    })().finally(() => { this.pumping = null; });
  }

  status(): Record<string, unknown> {
    const st = this.d.embedder.status();
    return { dense_enabled: this.d.embedder.available, dense_reason: this.d.embedder.available ? null : (st.state === 'loading' ? 'the embedding model is still loading' : st.reason), embedder: st, sparse_enabled: true };
  }
}
