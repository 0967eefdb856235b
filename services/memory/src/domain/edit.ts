/**
 * A user's own record of their memories (spec "Memory"): list a scope page by page, read one
 * memory with its history, edit it (content, type, pin, expiry, why), delete it, or forget it at
 * the user's request (recorded as user-initiated). Edits report `memory_write`, deletions
 * `memory_forget` events.
 */
import type { Principal } from '../../../shared/identity/principal.js';
import { analyze } from '../../../embedder/src/index.js';
import type { DeleteResult, ListQuery, MemoryDetail, MemoryPage, MemoryRecord, MemoryScope, UpdateRequest } from '../contracts.js';
import { emitMemoryOp, type MemoryDeps } from './deps.js';
import { checkExpiry, checkType, contentKey, eventScope, historyOf, invalidField, nowIso, record, scopeKey } from './records.js';
import { ownedMemory, resolveScope, type Caller } from './scopes.js';

/** The list, get, update, delete and forget use cases. */
export class MemoryEditor {
  constructor(private readonly d: MemoryDeps) {}

  /**
   * A page of a scope's memories, newest first; `next_cursor` when more remain.
   * @throws DomainError `scope_forbidden`, `invalid_request` (a bad type or a cursor this service did not issue).
   */
  async list(p: Principal, q: ListQuery): Promise<MemoryPage> {
    const scope = resolveScope(p, q);
    checkType(q.memory_type, 'querystring.memory_type');
    const before = q.cursor ? Number(q.cursor) : null;
    if (q.cursor && (!Number.isInteger(before) || before! <= 0)) throw invalidField('cursor is not a value this service issued', 'querystring.cursor');
    const limit = q.limit ?? 50;
    const rows = await this.d.memories.list({ scopeKey: scopeKey(scope), agentId: scope.agent_id, sessionId: scope.session_id, memoryType: q.memory_type ?? null, now: nowIso(), includeExpired: q.include_expired === true }, limit + 1, before);
    const out: MemoryPage = { items: rows.slice(0, limit).map((r) => record(r)) };
    if (rows.length > limit) out.next_cursor = String(rows[limit - 1]!.rid);
    return out;
  }

  /** One memory with its history. @throws DomainError `memory_not_found`, `scope_forbidden`. */
  async get(p: Principal, id: string, s?: MemoryScope): Promise<MemoryDetail> {
    const m = await ownedMemory(this.d.memories, p, id, s);
    return { ...record(m), history: await historyOf(this.d.history, m.id) };
  }

  /**
   * Change a memory; a content change re-indexes and re-embeds it.
   * @throws DomainError `memory_not_found`, `scope_forbidden`, `invalid_request` (empty content, a bad type or expiry).
   */
  async update(c: Caller, id: string, body: UpdateRequest): Promise<MemoryRecord> {
    const { memories, history, vectors, tx } = this.d;
    const m = await ownedMemory(memories, c.principal, id, body.scope);
    checkType(body.memory_type, 'memory_type');
    const content = body.content !== undefined ? body.content.trim() : m.content;
    if (!content) throw invalidField('content must not be empty', 'content');
    const now = nowIso();
    await tx(async () => {
      await memories.update(m.rid, {
        content, content_key: contentKey(content), memory_type: body.memory_type ?? m.memory_type, pinned: body.pinned === undefined ? m.pinned : body.pinned,
        expires_at: body.expires_at === undefined ? m.expires_at : checkExpiry(body.expires_at), why_stored: body.why_stored === undefined ? m.why_stored : body.why_stored,
      }, content !== m.content ? analyze(content).join(' ') : null, now);
      await history.add({ memory_id: m.id, tenant_id: m.tenant_id, user_id: m.user_id, event: 'UPDATE', actor_id: c.principal.id, user_initiated: true, old_content: m.content, new_content: content, reason: 'updated by request', at: now });
    });
    if (content !== m.content) {
      const vec = await this.d.dense.vectorOf(content, 'bulk');
      if (vec) await vectors.putVector(m.rid, content, vec);
    }
    await emitMemoryOp(this.d, c, 'memory_write', { operation: 'update', count: 1, memory_ids: [m.id], scope: eventScope(m) });
    return record((await memories.byId(m.id))!);
  }

  /**
   * Delete (`forget` false) or forget (recorded as user-initiated) a memory.
   * @throws DomainError `memory_not_found`, `scope_forbidden`.
   */
  async remove(c: Caller, id: string, s: MemoryScope | undefined, forget: boolean): Promise<DeleteResult> {
    const { memories, history, tx } = this.d;
    const m = await ownedMemory(memories, c.principal, id, s);
    const now = nowIso();
    await tx(async () => {
      await memories.delete(m.rid);
      await history.add({ memory_id: m.id, tenant_id: m.tenant_id, user_id: m.user_id, event: forget ? 'FORGET' : 'DELETE', actor_id: c.principal.id, user_initiated: forget || c.principal.id === m.user_id, old_content: m.content, new_content: null, reason: forget ? 'the user asked to forget' : 'deleted by request', at: now });
    });
    await emitMemoryOp(this.d, c, 'memory_forget', { operation: forget ? 'forget' : 'delete', count: 1, memory_ids: [m.id], initiated_by: forget ? 'user' : (c.principal.id === m.user_id ? 'user' : 'admin'), scope: eventScope(m) });
    return forget ? { id: m.id, deleted: true, forgotten: true, initiated_by: 'user' } : { id: m.id, deleted: true };
  }
}
