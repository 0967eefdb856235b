/**
 * Notifications over SQLite (tables `notifications` and `notification_counters`, migration 0002;
 * issue 13 item 1). The counters are kept by triggers in the same transaction as every row change,
 * so the unread count and the cap check read one row. Statements are prepared once.
 */
import type { Db } from '../../../shared/db/open.js';
import type { AddOutcome, NotificationRow, NotificationStore } from '../domain/notifications/ports.js';

/** `NotificationStore` over one open database. */
export class SqliteNotificationStore implements NotificationStore {
  private readonly s;
  private readonly addTx;

  constructor(db: Db) {
    this.s = {
      byKey: db.prepare('SELECT * FROM notifications WHERE tenant_id = ? AND user_id = ? AND idempotency_key = ?'),
      total: db.prepare<[string, string], { total: number }>('SELECT total FROM notification_counters WHERE tenant_id = ? AND user_id = ?'),
      unread: db.prepare<[string, string], { unread: number }>('SELECT unread FROM notification_counters WHERE tenant_id = ? AND user_id = ?'),
      // Read ones first ((read_at IS NULL) = 0), oldest first: the eviction index answers in order.
      evict: db.prepare(`DELETE FROM notifications WHERE id IN (SELECT id FROM notifications WHERE tenant_id = ? AND user_id = ?
        ORDER BY (read_at IS NULL), id LIMIT ?)`),
      insert: db.prepare(`INSERT INTO notifications (id, tenant_id, user_id, kind, title, body, payload, producer, idempotency_key, read_at, created_at)
        VALUES (@id, @tenant_id, @user_id, @kind, @title, @body, @payload, @producer, @idempotency_key, @read_at, @created_at)
        ON CONFLICT DO NOTHING`),
      page: db.prepare('SELECT * FROM notifications WHERE tenant_id = ? AND user_id = ? ORDER BY id DESC LIMIT ?'),
      pageBefore: db.prepare('SELECT * FROM notifications WHERE tenant_id = ? AND user_id = ? AND id < ? ORDER BY id DESC LIMIT ?'),
      get: db.prepare('SELECT * FROM notifications WHERE id = ? AND tenant_id = ? AND user_id = ?'),
      markRead: db.prepare('UPDATE notifications SET read_at = ? WHERE id = ? AND tenant_id = ? AND user_id = ? AND read_at IS NULL'),
      markAll: db.prepare('UPDATE notifications SET read_at = ? WHERE tenant_id = ? AND user_id = ? AND read_at IS NULL'),
      markKey: db.prepare('UPDATE notifications SET read_at = ? WHERE tenant_id = ? AND user_id = ? AND idempotency_key = ? AND read_at IS NULL'),
    };
    this.addTx = db.transaction((row: NotificationRow, maxPerUser: number): AddOutcome => {
      const seen = this.original(row);
      if (seen) return { row: seen, fresh: false, evicted: 0 };
      const total = this.s.total.get(row.tenant_id, row.user_id)?.total ?? 0;
      const evicted = total >= maxPerUser ? this.s.evict.run(row.tenant_id, row.user_id, total - maxPerUser + 1).changes : 0;
      if (this.s.insert.run(row).changes === 0) {
        // Only the idempotency index can refuse a fresh ULID: the key was written meanwhile.
        const raced = this.original(row);
        if (raced) return { row: raced, fresh: false, evicted };
        throw new Error('notification insert was refused');
      }
      return { row, fresh: true, evicted };
    });
  }

  add(row: NotificationRow, maxPerUser: number): AddOutcome {
    return this.addTx.immediate(row, maxPerUser);
  }

  list(tenantId: string, userId: string, beforeId: string | null, limit: number): NotificationRow[] {
    return (beforeId === null ? this.s.page.all(tenantId, userId, limit) : this.s.pageBefore.all(tenantId, userId, beforeId, limit)) as NotificationRow[];
  }

  unreadCount(tenantId: string, userId: string): number {
    return this.s.unread.get(tenantId, userId)?.unread ?? 0;
  }

  markRead(id: string, tenantId: string, userId: string, at: string): NotificationRow | undefined {
    this.s.markRead.run(at, id, tenantId, userId);
    return this.s.get.get(id, tenantId, userId) as NotificationRow | undefined;
  }

  markAllRead(tenantId: string, userId: string, at: string): number {
    return this.s.markAll.run(at, tenantId, userId).changes;
  }

  markReadByKey(tenantId: string, userId: string, key: string, at: string): number {
    return this.s.markKey.run(at, tenantId, userId, key).changes;
  }

  private original(row: NotificationRow): NotificationRow | undefined {
    if (row.idempotency_key === null) return undefined;
    return this.s.byKey.get(row.tenant_id, row.user_id, row.idempotency_key) as NotificationRow | undefined;
  }
}
