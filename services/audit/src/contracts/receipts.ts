/**
 * Receipt route shapes (spec "Receipt", "States and transitions", "Audit and receipts"):
 * `GET /v1/receipts` and `POST /v1/receipts/:turn_id/verify`. Detail, proof and bundle bodies are
 * the receipt format v1 shapes of `receipt-format.ts`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, StringEnum } from './common.js';
import { CHECK_IDS, ReceiptObjectSchema, SuffixCoverageSchema } from './receipt-format.js';

/** Query of `GET /v1/receipts`: limit 1-200 (default 50) and the previous page's `next_cursor`. */
export const ReceiptListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
});
/** Query of `GET /v1/receipts`. */
export type ReceiptListQuery = Static<typeof ReceiptListQuerySchema>;

/** A list item of `GET /v1/receipts`: the receipt plus when it was sealed / verified. */
export const ReceiptListItemSchema = Type.Object({
  ...ReceiptObjectSchema.properties,
  sealed_at: Nullable(Type.String()),
  verified_at: Nullable(Type.String()),
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
