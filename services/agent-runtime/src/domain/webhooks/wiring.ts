/**
 * The webhooks' ports over the runtime's own parts (issue 18 item 2): the notification inbox (kind
 * `webhook.delivery`, producer `agent-runtime`), and the `webhook.delivery` audit row through the
 * audit client (fire and forget; no secret, no body).
 */
import type { AuditAppendRequest } from '../../../../audit/src/contracts.js';
import type { NotificationCreate } from '../../contracts.js';
import { RUNTIME_PRODUCER } from '../notifications/wiring.js';
import type { Awaitable } from '../../../../shared/db/async-store.js';
import type { WebhookAudit, WebhookNotifier } from './ports.js';

/** Longest notification body taken from a payload, characters. */
const BODY_CHARS = 4000;

/** The inbox's `deliver` (domain/notifications/inbox.ts). */
export interface InboxPort { deliver(producer: string, input: NotificationCreate): Awaitable<{ notification: { id: string } }> }

/** A `WebhookNotifier` over the runtime's inbox. @throws the inbox's `payload_too_large` / `payload_too_deep`. */
export function inboxNotifier(inbox: InboxPort): WebhookNotifier {
  return {
    notify: async (n) => (await inbox.deliver(RUNTIME_PRODUCER, {
      tenant_id: n.tenantId, user_id: n.userId, kind: 'webhook.delivery', title: `Webhook: ${n.hookName}`.slice(0, 200),
      body: n.summary.length > BODY_CHARS ? `${n.summary.slice(0, BODY_CHARS - 1)}…` : n.summary || null,
      payload: { hook_id: n.hookId, delivery_id: n.deliveryId, data: n.payload as never },
      idempotency_key: `webhook:${n.deliveryId}`,
    })).notification.id,
  };
}

/** The audit client's `append`. */
export interface AuditAppendPort { append(row: AuditAppendRequest, opts?: { attempts?: number; onFailure?: (f: unknown) => void }): Promise<boolean> }

/** A `WebhookAudit` appending `webhook.delivery` rows (retried twice; a failure is logged). */
export function auditedDeliveries(audit: AuditAppendPort, log: { warn(obj: object, msg: string): void }): WebhookAudit {
  return {
    delivery: (d) => {
      void audit.append({
        user_id: d.userId, action: 'webhook.delivery', resource_type: 'webhook', resource_id: d.hookId || null, detail_type: 'webhook.delivery',
        detail: {
          delivery_id: d.deliveryId, outcome: d.outcome, ...(d.code ? { code: d.code } : {}),
          ...(d.turnId ? { turn_id: d.turnId } : {}), ...(d.notificationId ? { notification_id: d.notificationId } : {}),
        },
      }, { attempts: 3 }).then((ok) => { if (!ok) log.warn({ hook_id: d.hookId, delivery_id: d.deliveryId }, 'webhook delivery not audited'); });
    },
  };
}
