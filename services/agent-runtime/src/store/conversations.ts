/**
 * Durable conversations over SQLite (tables `conversations`, `conversation_items`,
 * `conversation_runs` of migrations/agent-runtime/0004_conversations.sql): a conversation and its
 * first items are written in one transaction, items get their place (`seq`) at append time, and a
 * run's end is written once (only a queued or in-progress run changes). Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type {
  ConversationRow, ConversationStore, ItemPageQuery, ItemRewrite, ItemRow, NewItem, RunEnd, RunRow,
} from '../domain/conversations/ports.js';

/** `ConversationStore` over one open database. */
export class SqliteConversationStore implements ConversationStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insert: db.prepare(`INSERT INTO conversations (id, tenant_id, user_id, session_id, metadata, created_at, updated_at)
        VALUES (@id, @tenant_id, @user_id, @session_id, @metadata, @created_at, @updated_at)`),
      get: db.prepare('SELECT * FROM conversations WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      getAny: db.prepare('SELECT id FROM conversations WHERE id = ?'),
      bySession: db.prepare('SELECT * FROM conversations WHERE session_id = ? AND tenant_id = ? AND user_id = ?'),
      list: db.prepare('SELECT * FROM conversations WHERE tenant_id = ? AND user_id = ? ORDER BY id DESC LIMIT ?'),
      listBefore: db.prepare('SELECT * FROM conversations WHERE tenant_id = ? AND user_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
      setMetadata: db.prepare('UPDATE conversations SET metadata = ?, updated_at = ? WHERE id = ?'),
      link: db.prepare('UPDATE conversations SET session_id = ?, updated_at = ? WHERE id = ?'),
      touch: db.prepare('UPDATE conversations SET updated_at = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM conversations WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      maxSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) AS m FROM conversation_items WHERE conversation_id = ?'),
      insertItem: db.prepare(`INSERT INTO conversation_items (id, conversation_id, seq, type, role, content, call_id, name, arguments, output, status, excluded,
        run_id, turn_id, created_at) VALUES (@id, @conversation_id, @seq, @type, @role, @content, @call_id, @name, @arguments, @output, @status, @excluded,
        @run_id, @turn_id, @created_at)`),
      items: db.prepare('SELECT * FROM conversation_items WHERE conversation_id = ? ORDER BY seq'),
      pageAsc: db.prepare('SELECT * FROM conversation_items WHERE conversation_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?'),
      pageDesc: db.prepare('SELECT * FROM conversation_items WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
      item: db.prepare('SELECT * FROM conversation_items WHERE conversation_id = ? AND id = ?'),
      deleteItem: db.prepare('DELETE FROM conversation_items WHERE conversation_id = ? AND id = ?'),
      rewrite: db.prepare('UPDATE conversation_items SET content = @content, status = @status, excluded = @excluded, turn_id = @turn_id WHERE id = @id AND conversation_id = @conversation_id'),
      itemsOfRun: db.prepare('SELECT * FROM conversation_items WHERE conversation_id = ? AND run_id = ? ORDER BY seq'),
      insertRun: db.prepare(`INSERT INTO conversation_runs (id, conversation_id, tenant_id, user_id, agent_id, status, turn_id, model, usage, receipt, error_code,
        error_message, created_at, started_at, completed_at) VALUES (@id, @conversation_id, @tenant_id, @user_id, @agent_id, @status, @turn_id, @model, @usage,
        @receipt, @error_code, @error_message, @created_at, @started_at, @completed_at)`),
      run: db.prepare('SELECT * FROM conversation_runs WHERE conversation_id = ? AND id = ?'),
      runs: db.prepare('SELECT * FROM conversation_runs WHERE conversation_id = ? ORDER BY id DESC LIMIT ?'),
      finishRun: db.prepare(`UPDATE conversation_runs SET status = @status, model = COALESCE(@model, model), usage = COALESCE(@usage, usage),
        receipt = COALESCE(@receipt, receipt), error_code = @error_code, error_message = @error_message, completed_at = @completed_at
        WHERE id = @id AND status IN ('queued', 'in_progress')`),
      failActive: db.prepare(`UPDATE conversation_runs SET status = 'failed', error_code = ?, error_message = ?, completed_at = ?
        WHERE status IN ('queued', 'in_progress') AND conversation_id NOT IN (SELECT value FROM json_each(?))`),
    };
  }

  create(row: ConversationRow, items: NewItem[] = []): void {
    this.db.transaction(() => {
      this.s.insert.run(row);
      if (items.length) this.appendTx(row.id, items, row.updated_at);
    })();
  }

  get(id: string, tenantId: string, userId: string): ConversationRow | undefined {
    return this.s.get.get(id, tenantId, userId) as ConversationRow | undefined;
  }

  bySession(sessionId: string, tenantId: string, userId: string): ConversationRow | undefined {
    return this.s.bySession.get(sessionId, tenantId, userId) as ConversationRow | undefined;
  }

  list(tenantId: string, userId: string, limit: number, beforeId?: string): ConversationRow[] {
    return (beforeId === undefined ? this.s.list.all(tenantId, userId, limit) : this.s.listBefore.all(tenantId, userId, beforeId, limit)) as ConversationRow[];
  }

  setMetadata(id: string, metadata: string, now: string): boolean {
    return this.s.setMetadata.run(metadata, now, id).changes > 0;
  }

  linkSession(id: string, sessionId: string, now: string): void {
    this.s.link.run(sessionId, now, id);
  }

  delete(id: string, tenantId: string, userId: string): boolean {
    return this.s.delete.run(id, tenantId, userId).changes > 0;
  }

  private appendTx(conversationId: string, items: NewItem[], now: string): void {
    let seq = (this.s.maxSeq.get(conversationId) as { m: number }).m;
    for (const it of items) this.s.insertItem.run({ ...it, conversation_id: conversationId, seq: ++seq });
    this.s.touch.run(now, conversationId);
  }

  appendItems(conversationId: string, items: NewItem[], now: string): boolean {
    return this.db.transaction(() => {
      if (!this.s.getAny.get(conversationId)) return false;
      this.appendTx(conversationId, items, now);
      return true;
    })();
  }

  items(conversationId: string): ItemRow[] {
    return this.s.items.all(conversationId) as ItemRow[];
  }

  itemPage(q: ItemPageQuery): ItemRow[] {
    if (q.order === 'asc') return this.s.pageAsc.all(q.conversationId, q.afterSeq ?? 0, q.limit) as ItemRow[];
    return this.s.pageDesc.all(q.conversationId, q.afterSeq ?? Number.MAX_SAFE_INTEGER, q.limit) as ItemRow[];
  }

  item(conversationId: string, itemId: string): ItemRow | undefined {
    return this.s.item.get(conversationId, itemId) as ItemRow | undefined;
  }

  deleteItem(conversationId: string, itemId: string): boolean {
    return this.s.deleteItem.run(conversationId, itemId).changes > 0;
  }

  rewriteItems(conversationId: string, rewrites: ItemRewrite[]): void {
    this.db.transaction(() => {
      for (const r of rewrites) this.s.rewrite.run({ ...r, conversation_id: conversationId });
    })();
  }

  itemsOfRun(conversationId: string, runId: string): ItemRow[] {
    return this.s.itemsOfRun.all(conversationId, runId) as ItemRow[];
  }

  insertRun(row: RunRow): void {
    this.s.insertRun.run(row);
  }

  run(conversationId: string, runId: string): RunRow | undefined {
    return this.s.run.get(conversationId, runId) as RunRow | undefined;
  }

  runs(conversationId: string, limit: number): RunRow[] {
    return this.s.runs.all(conversationId, limit) as RunRow[];
  }

  finishRun(runId: string, end: RunEnd): boolean {
    return this.s.finishRun.run({ ...end, id: runId }).changes > 0;
  }

  failActiveRuns(at: string, code: string, message: string, keepConversations: readonly string[] = []): number {
    return this.s.failActive.run(code, message, at, JSON.stringify(keepConversations)).changes;
  }
}
