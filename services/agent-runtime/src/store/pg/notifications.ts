/**
 * Notifications on PostgreSQL (issue 21 item 1; tables `notifications` and `notification_counters`
 * of migrations/agent-runtime/pg/0001_core.sql, counters kept by a trigger): the twin of
 * store/notifications.ts. `add` runs in one transaction under a per-user advisory lock, so the cap
 * check, the eviction and the insert of one user never interleave across processes (SQLite: BEGIN
 * IMMEDIATE).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AddOutcome, NotificationRow, NotificationStore } from '../../domain/notifications/ports.js';

const COLS = 'id, tenant_id, user_id, kind, title, body, payload, producer, idempotency_key, read_at, created_at';
/** First key of the advisory locks of this table group. */
const LOCK_NOTIFICATIONS = 21_101;

/** `NotificationStore` on one schema. */
export class PgNotificationStore implements NotificationStore {
  constructor(private readonly db: PgDb) {}

  add(row: NotificationRow, maxPerUser: number): Promise<AddOutcome> {
    return this.db.tx(async () => {
      await this.db.query("SELECT pg_advisory_xact_lock($1, hashtext($2 || ' ' || $3))", [LOCK_NOTIFICATIONS, row.tenant_id, row.user_id]);
      const seen = await this.original(row);
      if (seen) return { row: seen, fresh: false, evicted: 0 };
      const [c] = await this.db.query<{ total: number }>('SELECT total FROM notification_counters WHERE tenant_id = $1 AND user_id = $2', [row.tenant_id, row.user_id]);
      const total = c?.total ?? 0;
      const evicted = total >= maxPerUser ? await this.db.exec(`DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE tenant_id = $1
        AND user_id = $2 ORDER BY (read_at IS NULL), id LIMIT $3)`, [row.tenant_id, row.user_id, total - maxPerUser + 1]) : 0;
      const inserted = await this.db.exec(`INSERT INTO notifications (${COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`, [
        row.id, row.tenant_id, row.user_id, row.kind, row.title, row.body, row.payload, row.producer, row.idempotency_key, row.read_at, row.created_at,
      ]);
      if (inserted === 0) {
        const raced = await this.original(row);
        if (raced) return { row: raced, fresh: false, evicted };
        throw new Error('notification insert was refused');
      }
      return { row, fresh: true, evicted };
    });
  }

  async list(tenantId: string, userId: string, beforeId: string | null, limit: number): Promise<NotificationRow[]> {
    if (beforeId === null) {
      return this.db.query<NotificationRow>(`SELECT ${COLS} FROM notifications WHERE tenant_id = $1 AND user_id = $2 ORDER BY id DESC LIMIT $3`, [tenantId, userId, limit]);
    }
    return this.db.query<NotificationRow>(`SELECT ${COLS} FROM notifications WHERE tenant_id = $1 AND user_id = $2 AND id < $3 ORDER BY id DESC LIMIT $4`,
      [tenantId, userId, beforeId, limit]);
  }

  async unreadCount(tenantId: string, userId: string): Promise<number> {
    const [c] = await this.db.query<{ unread: number }>('SELECT unread FROM notification_counters WHERE tenant_id = $1 AND user_id = $2', [tenantId, userId]);
    return c?.unread ?? 0;
  }

  async markRead(id: string, tenantId: string, userId: string, at: string): Promise<NotificationRow | undefined> {
    await this.db.exec('UPDATE notifications SET read_at = $1 WHERE id = $2 AND tenant_id = $3 AND user_id = $4 AND read_at IS NULL', [at, id, tenantId, userId]);
    const [r] = await this.db.query<NotificationRow>(`SELECT ${COLS} FROM notifications WHERE id = $1 AND tenant_id = $2 AND user_id = $3`, [id, tenantId, userId]);
    return r;
  }

  async markAllRead(tenantId: string, userId: string, at: string): Promise<number> {
    return this.db.exec('UPDATE notifications SET read_at = $1 WHERE tenant_id = $2 AND user_id = $3 AND read_at IS NULL', [at, tenantId, userId]);
  }

  async markReadByKey(tenantId: string, userId: string, key: string, at: string): Promise<number> {
    return this.db.exec('UPDATE notifications SET read_at = $1 WHERE tenant_id = $2 AND user_id = $3 AND idempotency_key = $4 AND read_at IS NULL', [at, tenantId, userId, key]);
  }

  private async original(row: NotificationRow): Promise<NotificationRow | undefined> {
    if (row.idempotency_key === null) return undefined;
    const [r] = await this.db.query<NotificationRow>(`SELECT ${COLS} FROM notifications WHERE tenant_id = $1 AND user_id = $2 AND idempotency_key = $3`,
      [row.tenant_id, row.user_id, row.idempotency_key]);
    return r;
  }
}
