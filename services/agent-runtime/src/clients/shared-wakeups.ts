/**
 * The agent runtime's cross-instance wake-ups over the shared bus (issue 21 item 3): with several
 * runtimes behind a balancer on one database, an approval decided on runtime B wakes the turn
 * parked on runtime A, and a notification stored by any runtime reaches the user's live streams on
 * every runtime. Without `REDIS_URL` none of this is wired (one runtime, in-process).
 *
 * Channels: `svc:approvals` carries `{"id","tenant_id"}` (the decision itself is in the shared
 * store; the waiter re-reads it); `svc:notifications` carries `{"t","u","name","data"}`.
 */
import type { SharedBus } from '../../../shared/shared-bus.js';
import type { NotificationStreamEventMap } from '../contracts.js';
import { NotificationHub } from '../domain/notifications/hub.js';
import type { ApprovalSignal } from '../domain/approvals.js';

/** The approval wake-up channel. */
export const APPROVALS_CHANNEL = 'svc:approvals';
/** The notification stream channel. */
export const NOTIFICATIONS_CHANNEL = 'svc:notifications';

/** `ApprovalSignal` over the bus. */
export function busApprovalSignal(bus: SharedBus): ApprovalSignal {
  return {
    decided: (id, tenantId) => bus.publish(APPROVALS_CHANNEL, JSON.stringify({ id, tenant_id: tenantId })),
    onDecided: (fn) => bus.subscribe(APPROVALS_CHANNEL, (m) => {
      const v = JSON.parse(m) as { id?: unknown; tenant_id?: unknown };
      if (typeof v.id === 'string' && typeof v.tenant_id === 'string') fn(v.id, v.tenant_id);
    }),
  };
}

/**
 * A `NotificationHub` whose publishes go through the bus: every runtime (this one included) hands
 * each event to its own local streams. `watched` answers true, since a stream may be open on
 * another runtime (publishers then compute the unread count for every change).
 */
export class SharedNotificationHub extends NotificationHub {
  private readonly stop: () => void;

  constructor(private readonly bus: SharedBus, maxPerUser?: number) {
    super(maxPerUser);
    this.stop = bus.subscribe(NOTIFICATIONS_CHANNEL, (m) => {
      const v = JSON.parse(m) as { t: string; u: string; name: keyof NotificationStreamEventMap; data: NotificationStreamEventMap[keyof NotificationStreamEventMap] };
      super.publish(v.t, v.u, v.name, v.data as never);
    });
  }

  override watched(): boolean {
    return true;
  }

  override publish<K extends keyof NotificationStreamEventMap>(tenantId: string, userId: string, name: K, data: NotificationStreamEventMap[K]): void {
    this.bus.publish(NOTIFICATIONS_CHANNEL, JSON.stringify({ t: tenantId, u: userId, name, data }));
  }

  override closeAll(): void {
    this.stop();
    super.closeAll();
  }
}
