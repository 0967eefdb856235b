/**
 * Signed webhooks (spec "Agent runtime surfaces": `/v1/webhook`, `/v1/webhook/*`; issue 18 item 2).
 * An admin creates a hook (`POST /v1/admin/webhooks`) whose target posts a notification to a user
 * or runs an agent as the hook's owner; a sender signs each delivery with the hook's secret:
 * `X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: sha256=<hex HMAC-SHA256(secret, ts + "." + raw body)>`.
 * The secret is answered once (create, rotate) and never again. Node-free: schemas, types, codes.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { StringEnum, Timestamp } from './atoms.js';

/** Request header carrying the sender's Unix time, seconds. */
export const WEBHOOK_TIMESTAMP_HEADER = 'x-svc-timestamp';
/** Request header carrying `sha256=<hex>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-svc-signature';
/** Largest accepted |now - timestamp|, seconds (the replay cache keeps signatures this long, twice). */
export const WEBHOOK_WINDOW_SECONDS = 300;
/** Largest delivery body, bytes (the gateway answers 413 beyond it, domain/body-limits.ts). */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
/** Deliveries kept per hook (older ones are pruned). */
export const WEBHOOK_DELIVERIES_KEPT = 200;

/** Error codes of the webhook surfaces (spread into `AGENT_RUNTIME_ERRORS`). */
export const WEBHOOK_ERRORS = {
  /** The signature header is absent, malformed, or not the HMAC of the body under the hook's secret. */
  webhook_signature_invalid: 401,
  /** The timestamp header is absent, not an integer, or more than 300 s from now. */
  webhook_timestamp_invalid: 401,
  /** The same (hook, signature) was delivered within the window already. */
  webhook_replayed: 409,
  /** No such hook (also: a delivery without a `hook_id`). */
  webhook_not_found: 404,
} as const;

const HookId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

/** Where a delivery goes: a notification to a user, or an agent run as the hook's owner. */
export const WebhookTargetSchema = Type.Union([
  Type.Object({ kind: Type.Literal('notification'), user_id: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal('agent_run'), agent_id: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }),
]);
/** A hook's target. */
export type WebhookTarget = Static<typeof WebhookTargetSchema>;

/** `POST /v1/admin/webhooks` body. */
export const WebhookCreateSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  target: WebhookTargetSchema,
}, { additionalProperties: false });
/** A hook create. */
export type WebhookCreate = Static<typeof WebhookCreateSchema>;

/** A hook as answers carry it (never its secret). */
export const WebhookViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  target: WebhookTargetSchema,
  /** The admin who created it: an `agent_run` target runs as this user. */
  owner_id: Type.String(),
  created_at: Timestamp,
  /** When the secret was last set (create or rotate). */
  secret_set_at: Timestamp,
});
/** A hook view. */
export type WebhookView = Static<typeof WebhookViewSchema>;

/** 201 of `POST /v1/admin/webhooks`: the view plus the secret, shown this once. */
export const WebhookCreatedSchema = Type.Object({ ...WebhookViewSchema.properties, secret: Type.String() });
/** The created hook with its secret. */
export type WebhookCreated = Static<typeof WebhookCreatedSchema>;

/** `GET /v1/admin/webhooks`. */
export const WebhookListSchema = Type.Object({ webhooks: Type.Array(WebhookViewSchema) });

/** `POST /v1/admin/webhooks/{id}/rotate`: the new secret, shown this once (the old one stops at once). */
export const WebhookRotatedSchema = Type.Object({ id: Type.String(), secret: Type.String() });
/** A rotation answer. */
export type WebhookRotated = Static<typeof WebhookRotatedSchema>;

/** One recorded delivery (no body, no signature). */
export const WebhookDeliverySchema = Type.Object({
  id: Type.String(),
  received_at: Timestamp,
  outcome: StringEnum(['accepted', 'rejected'] as const),
  code: Type.Optional(Type.String()),
  turn_id: Type.Optional(Type.String()),
  notification_id: Type.Optional(Type.String()),
});
/** A recorded delivery. */
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

/** `GET /v1/admin/webhooks/{id}/deliveries`: newest first. */
export const WebhookDeliveryListSchema = Type.Object({ deliveries: Type.Array(WebhookDeliverySchema) });

/** Params of the `/v1/webhook/{hook_id}` route. */
export const WebhookHookParams = Type.Object({ hook_id: HookId });

/** 202 of a delivery. */
export const WebhookAcceptedSchema = Type.Object({
  delivery_id: Type.String(),
  accepted: Type.Literal(true),
  turn_id: Type.Optional(Type.String()),
  notification_id: Type.Optional(Type.String()),
});
/** A delivery's answer. */
export type WebhookAccepted = Static<typeof WebhookAcceptedSchema>;
