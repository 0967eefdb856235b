/**
 * Receipt route shapes (spec "Receipt", "States and transitions", "Audit and receipts"):
 * `GET /v1/receipts` (with the history fields and filters of issue 13 item 7) and `POST /v1/receipts/:turn_id/verify`. Detail, proof and bundle bodies are
 * the receipt format v1 shapes of `receipt-format.ts`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, StringEnum } from './common.js';
import { CHECK_IDS, ReceiptObjectSchema, SuffixCoverageSchema } from './receipt-format.js';

/** What a turn was (issue 13 item 7): a chat, a tool run, an admin action, or anything else. */
export const RECEIPT_KINDS = ['chat', 'tool_run', 'admin', 'other'] as const;
/** What a turn was. */
export type ReceiptKind = (typeof RECEIPT_KINDS)[number];
/** The `kind` filter of `GET /v1/receipts`: one kind, or `all` (the default). */
export const RECEIPT_KIND_FILTERS = ['all', ...RECEIPT_KINDS] as const;
/** The `kind` filter of `GET /v1/receipts`. */
export type ReceiptKindFilter = (typeof RECEIPT_KIND_FILTERS)[number];
/** How a turn ended, as the history reads it: `blocked` when a guardrail blocked it, `failed` for a failed envelope. */
export const RECEIPT_OUTCOMES = ['completed', 'failed', 'blocked'] as const;
/** How a turn ended. */
export type ReceiptOutcome = (typeof RECEIPT_OUTCOMES)[number];
/** Longest `summary` of a list item, characters (a chat's first words). */
export const RECEIPT_SUMMARY_MAX = 120;
/** Longest `q` of `GET /v1/receipts`, characters. */
export const RECEIPT_QUERY_MAX = 200;

/**
 * Query of `GET /v1/receipts`: limit 1-200 (default 50) and the previous page's `next_cursor`;
 * issue 13 item 7 adds `kind` (default `all`: the answer before the filter existed), `q` (case-
 * insensitive substring of the summary, route, method or turn id; ASCII case folding) and
 * `user_id` (one user's receipts: admins and service accounts for anyone, a user only for
 * themselves, else 403 `admin_required`).
 */
export const ReceiptListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
  kind: Type.Optional(StringEnum(RECEIPT_KIND_FILTERS)),
  q: Type.Optional(Type.String({ maxLength: RECEIPT_QUERY_MAX })),
  user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});
/** Query of `GET /v1/receipts`. */
export type ReceiptListQuery = Static<typeof ReceiptListQuerySchema>;

/**
 * A list item of `GET /v1/receipts`: the receipt plus when it was sealed / verified, and (issue 13
 * item 7) the turn as history: `kind`; `summary` (a chat's first words after the input guardrail,
 * never for blocked input; a tool run's tool names; else null); `method` and `route` (the gateway's
 * normalised path, no query) of the request, null for turns that did not come through the gateway;
 * `user_id` (who: the turn's owner); `created_at` (its first event); `outcome` and `http_status`
 * (how it ended). `status` stays the receipt status (`sealed` / `verified`).
 */
export const ReceiptListItemSchema = Type.Object({
  ...ReceiptObjectSchema.properties,
  sealed_at: Nullable(Type.String()),
  verified_at: Nullable(Type.String()),
  kind: StringEnum(RECEIPT_KINDS),
  summary: Nullable(Type.String()),
  method: Nullable(Type.String()),
  route: Nullable(Type.String()),
  user_id: Type.String(),
  created_at: Type.String(),
  outcome: Type.Unsafe<ReceiptOutcome | null>({ type: ['string', 'null'], enum: [...RECEIPT_OUTCOMES, null] }),
  http_status: Nullable(Type.Integer()),
});
/** A list item of `GET /v1/receipts`. */
export type ReceiptListItem = Static<typeof ReceiptListItemSchema>;

/** 200 body of `GET /v1/receipts`: sealed receipts newest first; pass `next_cursor` as `cursor`. */
export const ReceiptPageSchema = Type.Object({
  items: Type.Array(ReceiptListItemSchema),
  next_cursor: Type.Optional(Type.String()),
});
/** A page of receipts. */
export type ReceiptPage = Static<typeof ReceiptPageSchema>;

/** One check of a server-side verification (`VerificationReport.checks` without the error list). */
export const CheckViewSchema = Type.Object({
  id: StringEnum(CHECK_IDS),
  title: Type.String(),
  ok: Type.Boolean(),
  detail: Type.String(),
});

/**
 * 200 body of `POST /v1/receipts/:turn_id/verify`; `receipt.status` is `verified` when every check
 * held. The server verifies the bundle the caller would export (v1.1: other principals' rows
 * redacted for non-admins), and `suffix` says how many rows it checked in full and by link only.
 */
export const ReceiptVerifyResponseSchema = Type.Object({
  ok: Type.Boolean(),
  checks: Type.Array(CheckViewSchema),
  suffix: SuffixCoverageSchema,
  receipt: ReceiptObjectSchema,
  verified_at: Nullable(Type.String()),
  verified_by: Nullable(Type.String()),
});
/** 200 body of `POST /v1/receipts/:turn_id/verify`. */
export type ReceiptVerifyResponse = Static<typeof ReceiptVerifyResponseSchema>;
