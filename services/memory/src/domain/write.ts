/**
 * Storing memories (spec "Memory": `POST /v1/memory`): from `content` as sent, or extracted from
 * `messages` by the `memory` role (deterministic cues when the role is not mapped or fails). Each
 * candidate is checked against the scope's memories of its type: an exact duplicate is not stored
 * again (`NONE`), a near-duplicate is replaced by the newer statement (`UPDATE`), anything else is
 * added (`ADD`). Every change is recorded in the history and reported as a `memory_write` event.
 */
import { ulidFactory } from '../../../shared/identity/ulid.js';
import { analyze, dot } from '../../../embedder/src/index.js';
import type { MemoryType, StoreOutcome, StoreRequest, StoreResult } from '../contracts.js';
import { emitMemoryOp, type MemoryDeps } from './deps.js';
import { extractCandidates, type Candidate } from './extract.js';
import type { MemoryRow } from './ports.js';
import { checkExpiry, checkType, contentKey, eventScope, invalidField, jaccard, nowIso, record, scopeKey, type Scope } from './records.js';
import { candidatesFromRole, EXTRACT_PROMPT } from './role-prompts.js';
import { resolveScope, type Caller } from './scopes.js';

const newId = ulidFactory();

/** Longest transcript sent to the memory role, characters (the most recent part is kept). */
const TRANSCRIPT_CHARS = 24_000;

/** The store use case. */
export class MemoryWriter {
  constructor(private readonly d: MemoryDeps) {}

  /**
   * Store from `content`, or from `messages` through the memory role (deterministic otherwise).
   * @returns the answer and whether a memory was added (201) or not (200).
   * @throws DomainError `scope_forbidden`, `invalid_request` (neither content nor messages, a bad type or expiry).
   */
  async store(c: Caller, body: StoreRequest): Promise<{ result: StoreResult; created: boolean }> {
    const scope = resolveScope(c.principal, body.scope);
    checkType(body.memory_type, 'memory_type');
    const expires = checkExpiry(body.expires_at);
    const { candidates, extraction } = await this.candidates(c, body);
    const results: StoreOutcome[] = [];
    const now = nowIso();
    for (const cand of candidates) results.push(await this.storeOne(c, body, scope, cand, extraction, expires, now));
    if (this.d.dense.available) this.d.dense.kick();
    const changed = results.filter((r) => r.event !== 'NONE');
    if (changed.length) {
      await emitMemoryOp(this.d, c, 'memory_write', { operation: 'store', count: changed.length, memory_ids: changed.map((r) => r.memory.id), events: changed.map((r) => r.event), scope: eventScope(scope), extraction });
    }
    return { result: { results, memories: results.map((r) => r.memory), extraction }, created: results.some((r) => r.event === 'ADD') };
  }

  /** The candidate memories of a request and how they were found. */
  private async candidates(c: Caller, body: StoreRequest): Promise<{ candidates: Candidate[]; extraction: StoreResult['extraction'] }> {
    if (typeof body.content === 'string' && body.content.trim()) {
      return { candidates: [{ content: body.content.trim(), memory_type: body.memory_type ?? 'user', why_stored: body.why_stored ?? 'stored on request' }], extraction: 'content' };
    }
    if (!Array.isArray(body.messages) || !body.messages.length) {
      throw invalidField('send content (a string) or messages (an array of {role, content})', 'content');
    }
    const transcript = body.messages.map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`).join('\n').slice(-TRANSCRIPT_CHARS);
    const answer = await this.d.role.ask(c.headers, EXTRACT_PROMPT, transcript);
    const fromRole = candidatesFromRole(answer, body.memory_type ?? 'user');
    let candidates: Candidate[];
    let extraction: StoreResult['extraction'];
    if (fromRole) { candidates = fromRole; extraction = 'memory_role'; } else { candidates = extractCandidates(body.messages); extraction = 'deterministic'; }
    if (body.memory_type) candidates = candidates.map((x) => ({ ...x, memory_type: body.memory_type! }));
    if (body.why_stored) candidates = candidates.map((x) => ({ ...x, why_stored: body.why_stored! }));
    return { candidates, extraction };
  }

  /** Store one candidate: NONE for an exact duplicate, UPDATE of a near-duplicate, else ADD. */
  private async storeOne(c: Caller, body: StoreRequest, scope: Scope, cand: Candidate, extraction: StoreResult['extraction'], expires: string | null, now: string): Promise<StoreOutcome> {
    const { memories, history, vectors, tx } = this.d;
    const vec = await this.d.dense.vectorOf(cand.content, 'bulk');
    const dup = await this.nearDuplicate(scope, cand.memory_type, cand.content, vec);
    if (dup && contentKey(dup.content) === contentKey(cand.content)) {
      return { event: 'NONE', memory: record(dup), reason: 'already stored' };
    }
    if (dup) {
      await tx(async () => {
        await memories.update(dup.rid, {
          content: cand.content, content_key: contentKey(cand.content), memory_type: dup.memory_type, pinned: body.pinned === undefined ? dup.pinned : body.pinned,
          expires_at: expires ?? dup.expires_at, why_stored: cand.why_stored,
        }, analyze(cand.content).join(' '), now);
        await history.add({ memory_id: dup.id, tenant_id: dup.tenant_id, user_id: dup.user_id, event: 'UPDATE', actor_id: c.principal.id, user_initiated: false, old_content: dup.content, new_content: cand.content, reason: 'near-duplicate replaced by newer statement', at: now });
      });
      if (vec) await vectors.putVector(dup.rid, cand.content, vec);
      return { event: 'UPDATE', memory: record((await memories.byId(dup.id))!), reason: 'near-duplicate of an existing memory; updated' };
    }
    const row = await tx(async () => {
      const r = await memories.insert({
        id: newId(), tenant_id: scope.tenant_id, user_id: scope.user_id, scope_key: scopeKey(scope), agent_id: scope.agent_id, session_id: scope.session_id,
        memory_type: cand.memory_type, content: cand.content.slice(0, 8000), content_key: contentKey(cand.content), pinned: Boolean(body.pinned), expires_at: expires,
        source: body.source ?? (extraction === 'content' ? 'api' : `conversation:${extraction}`), why_stored: cand.why_stored,
      }, analyze(cand.content).join(' '), now);
      await history.add({ memory_id: r.id, tenant_id: r.tenant_id, user_id: r.user_id, event: 'ADD', actor_id: c.principal.id, user_initiated: extraction === 'content', old_content: null, new_content: r.content, reason: cand.why_stored, at: now });
      return r;
    });
    if (vec) await vectors.putVector(row.rid, row.content, vec);
    return { event: 'ADD', memory: record((await memories.byId(row.id))!) };
  }

  /** Near-duplicate of `content` in the scope and type: exact key, else cosine or term overlap. */
  private async nearDuplicate(scope: Scope, type: MemoryType, content: string, vec: Float32Array | null): Promise<MemoryRow | null> {
    const { memories, vectors } = this.d;
    const exact = await memories.byKey(scopeKey(scope), contentKey(content), type, scope.agent_id, scope.session_id);
    if (exact) return exact;
    const rows = await memories.all({ scopeKey: scopeKey(scope), agentId: scope.agent_id, sessionId: scope.session_id, memoryType: type, now: nowIso() });
    if (!rows.length) return null;
    if (vec) {
      const vecs = await vectors.vectors(rows.map((r) => r.rid));
      let best: MemoryRow | null = null;
      let bestSim = this.d.settings.duplicateSimilarity;
      for (const r of rows) {
        const v = vecs.get(r.rid);
        if (!v) continue;
        const sim = dot(vec, v);
        if (sim >= bestSim) { bestSim = sim; best = r; }
      }
      return best;
    }
    const terms = new Set(analyze(content));
    for (const r of rows) if (terms.size >= 3 && jaccard(terms, new Set(analyze(r.content))) >= 0.9) return r;
    return null;
  }
}
