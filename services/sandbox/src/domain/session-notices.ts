/**
 * The notification of a removed sandbox session (issue 13 item 1: "a sandbox session removed"):
 * when the cap evicts, the idle reaper removes or an admin destroys a session, its creator learns
 * that the session's variables and files are gone. Sent by app.ts through the agent runtime's
 * `NotificationsClient` (in the background; a failure never touches the sandbox's work). Sessions
 * created by a service principal notify nobody.
 */
import type { NotificationCreate } from '../../../agent-runtime/src/contracts.js';
import type { SessionKey } from './sessions.js';

/** Why a session went away. */
export type RemovalReason = 'evicted' | 'reaped' | 'destroyed';

const WHY: Readonly<Record<RemovalReason, string>> = {
  evicted: 'it was the longest idle when the sandbox needed room for another session',
  reaped: 'it was idle longer than the idle timeout',
  destroyed: 'an administrator ended it',
};

/**
 * The `sandbox_session_removed` notification for the creator of `key`, or null when a service
 * created it. `at` (ms) makes the idempotency key unique per removal.
 */
export function sessionRemovedNotice(key: SessionKey, ownerId: string, why: RemovalReason, at: number): NotificationCreate | null {
  if (ownerId.startsWith('service:')) return null;
  return {
    tenant_id: key.tenantId, user_id: ownerId, kind: 'sandbox_session_removed',
    title: 'Code session ended',
    body: `The code sandbox of this chat was removed because ${WHY[why]}. Variables and files in it are gone; the next run starts fresh.`,
    payload: { session_id: key.sessionId, reason: why, link: `/chat/${encodeURIComponent(key.sessionId)}` },
    idempotency_key: `sandbox:${key.sessionId}:${why}:${at}`,
  };
}
