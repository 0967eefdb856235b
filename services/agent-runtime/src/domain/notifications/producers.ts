/**
 * The runtime's own notification producer (issue 13 item 1, "an approval waiting"): when the
 * approval center files a pending approval for a user, the user gets an `approval_waiting`
 * notification (idempotency key `approval:<id>`). Delivery is in-process, after the current work
 * (never inside the engine's call), and fails soft: an error is logged once per run of failures
 * and never reaches the turn.
 */
import type { NotificationCreate } from '../../contracts.js';
import type { ApprovalRow, ApprovalStore } from '../ports.js';

/** What a failed delivery is reported to. */
export interface NoticeLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Sends a notification later; never throws. */
export type Notify = (n: NotificationCreate) => void;

/**
 * A `Notify` that calls `deliver` on the next turn of the event loop. The first failure of a run of
 * failures is logged (with how many followed once one succeeds again); nothing is thrown.
 */
export function softNotify(deliver: (n: NotificationCreate) => unknown, log: NoticeLog): Notify {
  let failing = 0;
  return (n) => {
    setImmediate(() => {
      (async () => {
        try {
          await deliver(n);
          if (failing) { log.info({ failed: failing }, 'notifications are delivered again'); failing = 0; }
        } catch (err) {
          if (failing++ === 0) log.warn({ err: err instanceof Error ? err.message : String(err), kind: n.kind }, 'notification not delivered');
        }
      })().catch(() => undefined);
    });
  };
}

/** The `approval_waiting` notification of a pending approval. */
export function approvalNotice(row: ApprovalRow): NotificationCreate {
  return {
    tenant_id: row.tenant_id, user_id: row.user_id, kind: 'approval_waiting',
    title: `Approval needed: ${row.tool}`.slice(0, 200),
    body: 'A tool call waits for your decision.',
    payload: { approval_id: row.id, session_id: row.session_id, tool: row.tool, link: '/approvals' },
    idempotency_key: `approval:${row.id}`,
  };
}

/** Told when an approval is decided, with the owner and the idempotency key of its notice. */
export type Settle = (tenantId: string, userId: string, key: string) => Promise<void>;

/**
 * `store` with an `approval_waiting` notice after each pending approval it inserts, and, when `settle`
 * is given, the notice marked read once the approval is decided (by anyone: nothing waits any more);
 * every other call goes to `store` unchanged (a Proxy, so methods the port gains later pass through).
 */
export function noticingApprovals(store: ApprovalStore, notify: Notify, settle?: Settle): ApprovalStore {
  const insert = async (row: ApprovalRow): Promise<void> => {
    await store.insert(row);
    if (row.status === 'pending') notify(approvalNotice(row));
  };
  const decide: ApprovalStore['decide'] = async (id, tenantId, ...rest) => {
    const decided = await store.decide(id, tenantId, ...rest);
    const row = decided && settle ? await store.get(id, tenantId) : undefined;
    if (row) await settle!(row.tenant_id, row.user_id, approvalNotice(row).idempotency_key!);
    return decided;
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'insert') return insert;
      if (prop === 'decide') return decide;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
