/**
 * The runtime's notifications as app.ts wires them (issue 13 item 1): the inbox over its store and
 * the live hub, and the runtime's own producer (approval waiting, read once decided) in front of the approval store.
 */
import type { AgentRuntimeSettings } from '../../contracts.js';
import type { ApprovalStore } from '../ports.js';
import { NotificationHub } from './hub.js';
import { Notifications } from './inbox.js';
import type { NotificationStore } from './ports.js';
import { noticingApprovals, softNotify, type NoticeLog } from './producers.js';

/** The service name the runtime's own notifications carry as producer. */
export const RUNTIME_PRODUCER = 'agent-runtime';

/** The wired notifications. */
export interface RuntimeNotifications {
  /** The inbox use cases (routes). */
  inbox: Notifications;
  /** `store` with the `approval_waiting` producer in front (for the approval center). */
  approvals(store: ApprovalStore): ApprovalStore;
}

/** Build the inbox and the runtime's own producers; `hub`: the live streams (issue 21 item 3: a shared one across runtimes). */
export function openNotifications(
  settings: Pick<AgentRuntimeSettings, 'notificationProducers' | 'notificationsMaxPerUser'>, store: NotificationStore, log: NoticeLog,
  hub: NotificationHub = new NotificationHub(),
): RuntimeNotifications {
  const inbox = new Notifications({ store, hub, maxPerUser: settings.notificationsMaxPerUser, producers: settings.notificationProducers });
  const notify = softNotify((n) => inbox.deliver(RUNTIME_PRODUCER, n), log);
  const settle = async (tenantId: string, userId: string, key: string): Promise<void> => {
    try { await inbox.settle({ tenantId, userId }, key); } catch (err) { log.warn({ err: err instanceof Error ? err.message : String(err) }, 'approval notice not marked read'); }
  };
  return { inbox, approvals: (s) => noticingApprovals(s, notify, settle) };
}
