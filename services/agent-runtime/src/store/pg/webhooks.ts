/**
 * Webhooks on PostgreSQL (tables `webhooks`, `webhook_deliveries`, `webhook_replays`,
 * migrations/agent-runtime/pg/0002_integrations.sql; issue 21 item 1): the twin of store/webhooks.ts.
 * `remember` is one upsert that only replaces an expired entry, so two runtimes receiving the same
 * signature at once cannot both accept it.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { DeliveryRow, WebhookRow, WebhookStore } from '../../domain/webhooks/ports.js';

interface Raw extends Omit<WebhookRow, 'target' | 'owner_roles' | 'owner_groups'> { target_json: string; owner_roles_json: string; owner_groups_json: string }

const fromRaw = (r: Raw): WebhookRow => {
  const { target_json, owner_roles_json, owner_groups_json, ...rest } = r;
  return { ...rest, target: JSON.parse(target_json) as WebhookRow['target'], owner_roles: JSON.parse(owner_roles_json) as string[], owner_groups: JSON.parse(owner_groups_json) as string[] };
};

const HOOK = ['id', 'tenant_id', 'name', 'target_json', 'owner_id', 'owner_roles_json', 'owner_groups_json', 'key_id', 'secret_iv', 'secret_tag', 'secret_ct', 'secret_set_at', 'created_at'] as const;
const DELIVERY = ['id', 'tenant_id', 'hook_id', 'received_at', 'outcome', 'code', 'turn_id', 'notification_id'] as const;
const params = (cols: readonly string[]): string => cols.map((_, i) => `$${i + 1}`).join(', ');
const SEL_HOOK = `SELECT ${HOOK.join(', ')} FROM webhooks`;
const C = 'COLLATE "C"';

/** `WebhookStore` over one service schema. */
export class PgWebhookStore implements WebhookStore {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, id: string): Promise<WebhookRow | undefined> {
    const [r] = await this.db.query<Raw>(`${SEL_HOOK} WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r ? fromRaw(r) : undefined;
  }

  async list(tenantId: string): Promise<WebhookRow[]> {
    return (await this.db.query<Raw>(`${SEL_HOOK} WHERE tenant_id = $1 ORDER BY created_at ${C}, id ${C}`, [tenantId])).map(fromRaw);
  }

  async put(row: WebhookRow): Promise<void> {
    const { target, owner_roles, owner_groups, ...rest } = row;
    const raw: Raw = { ...rest, target_json: JSON.stringify(target), owner_roles_json: JSON.stringify(owner_roles), owner_groups_json: JSON.stringify(owner_groups) };
    await this.db.exec(`INSERT INTO webhooks (${HOOK.join(', ')}) VALUES (${params(HOOK)})`, HOOK.map((c) => raw[c]));
  }

  async setSecret(tenantId: string, id: string, s: Pick<WebhookRow, 'key_id' | 'secret_iv' | 'secret_tag' | 'secret_ct' | 'secret_set_at'>): Promise<boolean> {
    return (await this.db.exec(`UPDATE webhooks SET key_id = $3, secret_iv = $4, secret_tag = $5, secret_ct = $6, secret_set_at = $7 WHERE tenant_id = $1 AND id = $2`,
      [tenantId, id, s.key_id, s.secret_iv, s.secret_tag, s.secret_ct, s.secret_set_at])) > 0;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM webhook_deliveries WHERE tenant_id = $1 AND hook_id = $2', [tenantId, id]);
      await this.db.exec('DELETE FROM webhook_replays WHERE hook_id = $1', [id]);
      return (await this.db.exec('DELETE FROM webhooks WHERE tenant_id = $1 AND id = $2', [tenantId, id])) > 0;
    });
  }

  async addDelivery(row: DeliveryRow, keep: number): Promise<void> {
    await this.db.tx(async () => {
      await this.db.exec(`INSERT INTO webhook_deliveries (${DELIVERY.join(', ')}) VALUES (${params(DELIVERY)})`, DELIVERY.map((c) => row[c]));
      await this.db.exec(`DELETE FROM webhook_deliveries WHERE tenant_id = $1 AND hook_id = $2 AND id NOT IN
        (SELECT id FROM webhook_deliveries WHERE tenant_id = $1 AND hook_id = $2 ORDER BY received_at ${C} DESC, id ${C} DESC LIMIT $3)`, [row.tenant_id, row.hook_id, keep]);
    });
  }

  async deliveries(tenantId: string, hookId: string, limit: number): Promise<DeliveryRow[]> {
    return this.db.query<DeliveryRow>(`SELECT ${DELIVERY.join(', ')} FROM webhook_deliveries WHERE tenant_id = $1 AND hook_id = $2
      ORDER BY received_at ${C} DESC, id ${C} DESC LIMIT $3`, [tenantId, hookId, limit]);
  }

  async remember(hookId: string, signature: string, nowMs: number, expiresMs: number): Promise<boolean> {
    return this.db.tx(async () => {
      await this.db.exec('DELETE FROM webhook_replays WHERE expires_ms <= $1', [nowMs]);
      const fresh = await this.db.query(`INSERT INTO webhook_replays (hook_id, signature, expires_ms) VALUES ($1, $2, $3)
        ON CONFLICT (hook_id, signature) DO UPDATE SET expires_ms = excluded.expires_ms WHERE webhook_replays.expires_ms <= $4 RETURNING 1 AS n`,
      [hookId, signature, expiresMs, nowMs]);
      return fresh.length > 0;
    });
  }

  async forget(hookId: string, signature: string): Promise<void> {
    await this.db.exec('DELETE FROM webhook_replays WHERE hook_id = $1 AND signature = $2', [hookId, signature]);
  }
}
