/**
 * Durable conversations on PostgreSQL (issue 21 item 1; tables `conversations`,
 * `conversation_items`, `conversation_runs` of migrations/agent-runtime/pg/0001_core.sql): the twin
 * of store/conversations.ts. An append locks its conversation's row, so appends from several
 * processes get consecutive `seq` values; a run's end is written once (queued or in progress only).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type {
  ConversationRow, ConversationStore, ItemPageQuery, ItemRewrite, ItemRow, NewItem, RunEnd, RunRow,
} from '../../domain/conversations/ports.js';

const CONV_COLS = 'id, tenant_id, user_id, session_id, metadata, created_at, updated_at';
const ITEM_COLS = 'id, conversation_id, seq, type, role, content, call_id, name, arguments, output, status, excluded, run_id, turn_id, created_at';
const RUN_COLS = 'id, conversation_id, tenant_id, user_id, agent_id, status, turn_id, model, usage, receipt, error_code, error_message, created_at, started_at, completed_at';
/** Above any `seq` (SQLite's `Number.MAX_SAFE_INTEGER` bound; `seq` is an int4 column here). */
const SEQ_MAX = 2_147_483_647;

/** `ConversationStore` on one schema. */
export class PgConversationStore implements ConversationStore {
  constructor(private readonly db: PgDb) {}

  async create(row: ConversationRow, items: NewItem[] = []): Promise<void> {
    await this.db.tx(async () => {
      await this.db.exec(`INSERT INTO conversations (${CONV_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [row.id, row.tenant_id, row.user_id, row.session_id, row.metadata, row.created_at, row.updated_at]);
      if (items.length) await this.appendTx(row.id, items, row.updated_at);
    });
  }

  async get(id: string, tenantId: string, userId: string): Promise<ConversationRow | undefined> {
    const [r] = await this.db.query<ConversationRow>(`SELECT ${CONV_COLS} FROM conversations WHERE id = $1 AND tenant_id = $2 AND user_id = $3`, [id, tenantId, userId]);
    return r;
  }

  async bySession(sessionId: string, tenantId: string, userId: string): Promise<ConversationRow | undefined> {
    const [r] = await this.db.query<ConversationRow>(`SELECT ${CONV_COLS} FROM conversations WHERE session_id = $1 AND tenant_id = $2 AND user_id = $3`,
      [sessionId, tenantId, userId]);
    return r;
  }

  async list(tenantId: string, userId: string, limit: number, beforeId?: string): Promise<ConversationRow[]> {
    if (beforeId === undefined) {
      return this.db.query<ConversationRow>(`SELECT ${CONV_COLS} FROM conversations WHERE tenant_id = $1 AND user_id = $2 ORDER BY id DESC LIMIT $3`, [tenantId, userId, limit]);
    }
    return this.db.query<ConversationRow>(`SELECT ${CONV_COLS} FROM conversations WHERE tenant_id = $1 AND user_id = $2 AND id < $3 ORDER BY id DESC LIMIT $4`,
      [tenantId, userId, beforeId, limit]);
  }

  async setMetadata(id: string, metadata: string, now: string): Promise<boolean> {
    return (await this.db.exec('UPDATE conversations SET metadata = $1, updated_at = $2 WHERE id = $3', [metadata, now, id])) > 0;
  }

  async linkSession(id: string, sessionId: string, now: string): Promise<void> {
    await this.db.exec('UPDATE conversations SET session_id = $1, updated_at = $2 WHERE id = $3', [sessionId, now, id]);
  }

  async delete(id: string, tenantId: string, userId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM conversations WHERE id = $1 AND tenant_id = $2 AND user_id = $3', [id, tenantId, userId])) > 0;
  }

  private async appendTx(conversationId: string, items: NewItem[], now: string): Promise<void> {
    const [m] = await this.db.query<{ m: number }>('SELECT COALESCE(MAX(seq), 0) AS m FROM conversation_items WHERE conversation_id = $1', [conversationId]);
    let seq = m!.m;
    const cols: unknown[][] = ITEM_COLS.split(', ').map(() => []);
    for (const it of items) {
      const v = [it.id, conversationId, ++seq, it.type, it.role, it.content, it.call_id, it.name, it.arguments, it.output, it.status, it.excluded, it.run_id,
        it.turn_id, it.created_at];
      v.forEach((val, i) => cols[i]!.push(val));
    }
    await this.db.exec(`INSERT INTO conversation_items (${ITEM_COLS}) SELECT ${ITEM_COLS} FROM unnest($1::text[], $2::text[], $3::int[], $4::text[],
      $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::int[], $13::text[], $14::text[], $15::text[]) AS t(${ITEM_COLS})`, cols);
    await this.db.exec('UPDATE conversations SET updated_at = $1 WHERE id = $2', [now, conversationId]);
  }

  async appendItems(conversationId: string, items: NewItem[], now: string): Promise<boolean> {
    return this.db.tx(async () => {
      const [c] = await this.db.query('SELECT id FROM conversations WHERE id = $1 FOR UPDATE', [conversationId]);
      if (!c) return false;
      await this.appendTx(conversationId, items, now);
      return true;
    });
  }

  async items(conversationId: string): Promise<ItemRow[]> {
    return this.db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM conversation_items WHERE conversation_id = $1 ORDER BY seq`, [conversationId]);
  }

  async itemPage(q: ItemPageQuery): Promise<ItemRow[]> {
    if (q.order === 'asc') {
      return this.db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM conversation_items WHERE conversation_id = $1 AND seq > $2 ORDER BY seq ASC LIMIT $3`,
        [q.conversationId, q.afterSeq ?? 0, q.limit]);
    }
    return this.db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM conversation_items WHERE conversation_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3`,
      [q.conversationId, Math.min(q.afterSeq ?? SEQ_MAX, SEQ_MAX), q.limit]);
  }

  async item(conversationId: string, itemId: string): Promise<ItemRow | undefined> {
    const [r] = await this.db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM conversation_items WHERE conversation_id = $1 AND id = $2`, [conversationId, itemId]);
    return r;
  }

  async deleteItem(conversationId: string, itemId: string): Promise<boolean> {
    return (await this.db.exec('DELETE FROM conversation_items WHERE conversation_id = $1 AND id = $2', [conversationId, itemId])) > 0;
  }

  async rewriteItems(conversationId: string, rewrites: ItemRewrite[]): Promise<void> {
    await this.db.tx(async () => {
      for (const r of rewrites) {
        await this.db.exec('UPDATE conversation_items SET content = $1, status = $2, excluded = $3, turn_id = $4 WHERE id = $5 AND conversation_id = $6',
          [r.content, r.status, r.excluded, r.turn_id, r.id, conversationId]);
      }
    });
  }

  async itemsOfRun(conversationId: string, runId: string): Promise<ItemRow[]> {
    return this.db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM conversation_items WHERE conversation_id = $1 AND run_id = $2 ORDER BY seq`, [conversationId, runId]);
  }

  async insertRun(r: RunRow): Promise<void> {
    await this.db.exec(`INSERT INTO conversation_runs (${RUN_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
      r.id, r.conversation_id, r.tenant_id, r.user_id, r.agent_id, r.status, r.turn_id, r.model, r.usage, r.receipt, r.error_code, r.error_message,
      r.created_at, r.started_at, r.completed_at,
    ]);
  }

  async run(conversationId: string, runId: string): Promise<RunRow | undefined> {
    const [r] = await this.db.query<RunRow>(`SELECT ${RUN_COLS} FROM conversation_runs WHERE conversation_id = $1 AND id = $2`, [conversationId, runId]);
    return r;
  }

  async runs(conversationId: string, limit: number): Promise<RunRow[]> {
    return this.db.query<RunRow>(`SELECT ${RUN_COLS} FROM conversation_runs WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2`, [conversationId, limit]);
  }

  async finishRun(runId: string, e: RunEnd): Promise<boolean> {
    return (await this.db.exec(`UPDATE conversation_runs SET status = $1, model = COALESCE($2, model), usage = COALESCE($3, usage),
      receipt = COALESCE($4, receipt), error_code = $5, error_message = $6, completed_at = $7 WHERE id = $8 AND status IN ('queued', 'in_progress')`,
    [e.status, e.model, e.usage, e.receipt, e.error_code, e.error_message, e.completed_at, runId])) > 0;
  }

  async failActiveRuns(at: string, code: string, message: string, keepConversations: readonly string[] = []): Promise<number> {
    return this.db.exec(`UPDATE conversation_runs SET status = 'failed', error_code = $1, error_message = $2, completed_at = $3
      WHERE status IN ('queued', 'in_progress') AND NOT (conversation_id = ANY($4::text[]))`, [code, message, at, [...keepConversations]]);
  }
}
