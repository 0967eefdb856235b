/**
 * Webhooks over SQLite (tables `webhooks`, `webhook_deliveries`, `webhook_replays`, migration 0011;
 * issue 18 item 2). The target and the owner's roles and groups are JSON; the secret is stored sealed.
 */
import type { Db } from '../../../shared/db/open.js';
import type { DeliveryRow, WebhookRow, WebhookStore } from '../domain/webhooks/ports.js';

interface Raw extends Omit<WebhookRow, 'target' | 'owner_roles' | 'owner_groups'> { target_json: string; owner_roles_json: string; owner_groups_json: string }

const fromRaw = (r: Raw): WebhookRow => {
  const { target_json, owner_roles_json, owner_groups_json, ...rest } = r;
  return { ...rest, target: JSON.parse(target_json) as WebhookRow['target'], owner_roles: JSON.parse(owner_roles_json) as string[], owner_groups: JSON.parse(owner_groups_json) as string[] };
};

/** `WebhookStore` over one open database. */
export class SqliteWebhookStore implements WebhookStore {
  private readonly s;
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
    this.s = {
      get: db.prepare<[string, string], Raw>('SELECT * FROM webhooks WHERE tenant_id = ? AND id = ?'),
      list: db.prepare<[string], Raw>('SELECT * FROM webhooks WHERE tenant_id = ? ORDER BY created_at, id'),
      put: db.prepare(`INSERT INTO webhooks (id, tenant_id, name, target_json, owner_id, owner_roles_json, owner_groups_json, key_id, secret_iv, secret_tag, secret_ct, secret_set_at, created_at)
        VALUES (@id, @tenant_id, @name, @target_json, @owner_id, @owner_roles_json, @owner_groups_json, @key_id, @secret_iv, @secret_tag, @secret_ct, @secret_set_at, @created_at)`),
      setSecret: db.prepare(`UPDATE webhooks SET key_id = @key_id, secret_iv = @secret_iv, secret_tag = @secret_tag, secret_ct = @secret_ct, secret_set_at = @secret_set_at
        WHERE tenant_id = @tenant_id AND id = @id`),
      delete: db.prepare('DELETE FROM webhooks WHERE tenant_id = ? AND id = ?'),
      deleteDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE tenant_id = ? AND hook_id = ?'),
      deleteReplays: db.prepare('DELETE FROM webhook_replays WHERE hook_id = ?'),
      addDelivery: db.prepare(`INSERT INTO webhook_deliveries (id, tenant_id, hook_id, received_at, outcome, code, turn_id, notification_id)
        VALUES (@id, @tenant_id, @hook_id, @received_at, @outcome, @code, @turn_id, @notification_id)`),
      prune: db.prepare(`DELETE FROM webhook_deliveries WHERE tenant_id = ? AND hook_id = ? AND id NOT IN
        (SELECT id FROM webhook_deliveries WHERE tenant_id = ? AND hook_id = ? ORDER BY received_at DESC, id DESC LIMIT ?)`),
      deliveries: db.prepare<[string, string, number], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE tenant_id = ? AND hook_id = ? ORDER BY received_at DESC, id DESC LIMIT ?'),
      seen: db.prepare<[string, string, number], { n: number }>('SELECT 1 AS n FROM webhook_replays WHERE hook_id = ? AND signature = ? AND expires_ms > ?'),
      remember: db.prepare('INSERT INTO webhook_replays (hook_id, signature, expires_ms) VALUES (?, ?, ?) ON CONFLICT (hook_id, signature) DO UPDATE SET expires_ms = excluded.expires_ms'),
      expire: db.prepare('DELETE FROM webhook_replays WHERE expires_ms <= ?'),
      forget: db.prepare('DELETE FROM webhook_replays WHERE hook_id = ? AND signature = ?'),
    };
  }

  get(tenantId: string, id: string): WebhookRow | undefined {
    const r = this.s.get.get(tenantId, id);
    return r ? fromRaw(r) : undefined;
  }

  list(tenantId: string): WebhookRow[] { return this.s.list.all(tenantId).map(fromRaw); }

  put(row: WebhookRow): void {
    const { target, owner_roles, owner_groups, ...rest } = row;
    this.s.put.run({ ...rest, target_json: JSON.stringify(target), owner_roles_json: JSON.stringify(owner_roles), owner_groups_json: JSON.stringify(owner_groups) });
  }

  setSecret(tenantId: string, id: string, s: Pick<WebhookRow, 'key_id' | 'secret_iv' | 'secret_tag' | 'secret_ct' | 'secret_set_at'>): boolean {
    return this.s.setSecret.run({ ...s, tenant_id: tenantId, id }).changes > 0;
  }

  delete(tenantId: string, id: string): boolean {
    return this.db.transaction(() => {
      this.s.deleteDeliveries.run(tenantId, id);
      this.s.deleteReplays.run(id);
      return this.s.delete.run(tenantId, id).changes > 0;
    })();
  }

  addDelivery(row: DeliveryRow, keep: number): void {
    this.db.transaction(() => {
      this.s.addDelivery.run(row);
      this.s.prune.run(row.tenant_id, row.hook_id, row.tenant_id, row.hook_id, keep);
    })();
  }

  deliveries(tenantId: string, hookId: string, limit: number): DeliveryRow[] {
    return this.s.deliveries.all(tenantId, hookId, limit);
  }

  remember(hookId: string, signature: string, nowMs: number, expiresMs: number): boolean {
    return this.db.transaction(() => {
      this.s.expire.run(nowMs);
      if (this.s.seen.get(hookId, signature, nowMs)) return false;
      this.s.remember.run(hookId, signature, expiresMs);
      return true;
    })();
  }

  forget(hookId: string, signature: string): void { this.s.forget.run(hookId, signature); }
}
