/**
 * Notification contracts (spec "Agent runtime surfaces": `/v1/notifications`,
 * `/v1/notifications/unread-count`, `/v1/notifications/{id}/read`, `/v1/notifications/read-all`,
 * `/v1/internal/notifications`; "Limits": payload at most 8 KiB and 8 levels deep,
 * NOTIFICATIONS_MAX_PER_USER; issue 13 item 1), the live stream's events and the kinds the
 * platform's own producers send.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Id, OrNull, Timestamp } from './atoms.js';

/** Largest serialised payload, bytes (spec "Limits": 8 KiB). */
export const NOTIFICATION_PAYLOAD_MAX_BYTES = 8 * 1024;

/** Deepest payload nesting, objects and arrays (spec "Limits": 8 levels; `{}` is 1). */
export const NOTIFICATION_PAYLOAD_MAX_DEPTH = 8;

/** Default of NOTIFICATIONS_MAX_PER_USER. */
export const NOTIFICATIONS_MAX_PER_USER_DEFAULT = 10_000;

/** Default of NOTIFICATIONS_PRODUCERS: the platform's own producers (service names). */
export const NOTIFICATION_PRODUCERS_DEFAULT = ['agent-runtime', 'knowledge', 'observability', 'sandbox', 'auth', 'dirauth'] as const;

/**
 * Kinds the platform's own producers send (a producer may send any kind matching the pattern):
 * - `approval_waiting` (agent runtime): a tool call waits for the user's decision; payload `{approval_id, session_id, tool}`
 * - `document_indexed`, `document_failed` (knowledge): the user's upload finished; payload `{document_id, error?}`
 * - `budget_threshold` (observability): the tenant's spend crossed its soft or hard limit; payload `{tenant_id, state, period_start, spend_usd, limit_usd}`
 * - `sandbox_session_removed` (sandbox): the user's code session was evicted, reaped or destroyed; payload `{session_id, reason}`
 * - `device_paired`, `device_revoked`, `login_reported` (auth, issue 14): a phone was paired / a device was revoked / a "this wasn't me" report
 */
export const NOTIFICATION_KINDS = [
  'approval_waiting', 'document_indexed', 'document_failed', 'budget_threshold', 'sandbox_session_removed',
  'device_paired', 'device_revoked', 'login_reported',
] as const;

/** A platform notification kind. */
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** Pattern of a kind: lower-case words joined by `_`, `.` or `-`. */
export const NOTIFICATION_KIND_PATTERN = '^[a-z][a-z0-9_.-]{0,63}$';

/** A notification payload: a JSON object (links and ids the UI uses), or null. */
export const NotificationPayloadSchema = Type.Unsafe<Record<string, unknown> | null>(OrNull(Type.Object({}, { additionalProperties: true })));

/** One notification as the inbox lists it. */
export const NotificationViewSchema = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  title: Type.String(),
  body: OrNull(Type.String()),
  payload: NotificationPayloadSchema,
  read_at: OrNull(Timestamp),
  created_at: Timestamp,
});
/** One notification. */
export type NotificationView = Static<typeof NotificationViewSchema>;

/** `GET /v1/notifications` answer: newest first. */
export const NotificationPageSchema = Type.Object({ items: Type.Array(NotificationViewSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of notifications. */
export type NotificationPage = Static<typeof NotificationPageSchema>;

/** `GET /v1/notifications` query: `limit` 1-100 (default 50), `cursor` the previous page's `next_cursor`. */
export const NotificationQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
/** List query. */
export type NotificationQuery = Static<typeof NotificationQuerySchema>;

/** `GET /v1/notifications/unread-count` answer. */
export const UnreadCountSchema = Type.Object({ count: Type.Integer({ minimum: 0 }) });
/** Unread count. */
export type UnreadCount = Static<typeof UnreadCountSchema>;

/** `POST /v1/notifications/read-all` answer: how many were marked. */
export const ReadAllResultSchema = Type.Object({ marked: Type.Integer({ minimum: 0 }) });

/** `{id}` of a notification. */
export const NotificationParams = Type.Object({ id: Id });

/** Body of `POST /v1/internal/notifications`. */
export const NotificationCreateSchema = Type.Object({
  tenant_id: Type.String({ minLength: 1, maxLength: 128 }),
  user_id: Type.String({ minLength: 1, maxLength: 256 }),
  kind: Type.String({ pattern: NOTIFICATION_KIND_PATTERN }),
  title: Type.String({ minLength: 1, maxLength: 200 }),
  body: Type.Optional(OrNull(Type.String({ maxLength: 4000 }))),
  payload: Type.Optional(NotificationPayloadSchema),
  idempotency_key: Type.Optional(OrNull(Type.String({ minLength: 1, maxLength: 256 }))),
});
/** A producer's notification. */
export type NotificationCreate = Static<typeof NotificationCreateSchema>;

/** Largest body of `POST /v1/internal/notifications`, bytes (payload plus the other fields; a larger payload is 413 anyway). */
export const NOTIFICATION_BODY_LIMIT = 64 * 1024;

/** Live stream events (`GET /v1/notifications/stream`, `text/event-stream`). */
export interface NotificationStreamEventMap {
  /** A new notification of the caller. */
  notification: NotificationView;
  /** The caller's unread count (first record of every stream, then after every change). */
  unread_count: UnreadCount;
}

/** Schema of the stream answer (documentation: the body is SSE text). */
export const NotificationStreamSchema = Type.String({ description: 'text/event-stream: `notification` and `unread_count` events, `: keep-alive` comments' });
