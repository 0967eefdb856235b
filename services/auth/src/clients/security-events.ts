/**
 * Where the second factor's audit rows and user notifications go (issue 14 item 6): the audit
 * service through its `AuditClient` (`POST /v1/audit`, spec "Audit actions") and the agent runtime's
 * inbox through `NotificationsClient` (`POST /v1/internal/notifications`; `auth` is one of
 * NOTIFICATIONS_PRODUCERS). Both best effort: a failure is logged, never fails the login or pairing.
 */
import type { AuditClient } from '../../../audit/src/client.js';
import type { NotificationsClient } from '../../../agent-runtime/src/client.js';
import type { SecurityAuditEvent, SecurityEvents, SecurityNotice } from '../domain/device-ports.js';

/** Where append failures are reported (a pino logger fits). */
export interface SecurityEventsLog {
  warn(obj: object, msg: string): void;
}

/** `SecurityEvents` over the audit and notifications clients. */
export class ClientSecurityEvents implements SecurityEvents {
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly o: { audit: AuditClient; notifications: NotificationsClient; tenantId: string; log: SecurityEventsLog }) {}

  /** Append the row in the background (two attempts). */
  audit(e: SecurityAuditEvent): void {
    const p = this.o.audit.append({
      user_id: e.user_id, action: e.action, resource_type: e.resource_type, resource_id: e.resource_id,
      detail_type: 'auth_second_factor', detail: { ...e.detail },
    }, {
      attempts: 2,
      onFailure: (f) => this.o.log.warn({ action: e.action, kind: f.kind, attempt: f.attempt }, 'audit row not written'),
    });
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
  }

  /** Queue the notification (the client never throws). */
  notify(n: SecurityNotice): void {
    this.o.notifications.notify({
      tenant_id: this.o.tenantId, user_id: n.user_id, kind: n.kind, title: n.title, body: n.body, payload: { ...n.payload },
      idempotency_key: n.idempotency_key,
    });
  }

  /** Resolves once every row and notification in flight is done (shutdown, tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
    await this.o.notifications.idle();
  }
}
