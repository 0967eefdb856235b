/**
 * Audit log route shapes (spec "Audit log row", "Audit and receipts"):
 * `POST /v1/audit`, `GET /v1/admin/audit`, `GET /v1/admin/audit/verify`,
 * `POST /v1/admin/audit/turns/:turn_id/seal`.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { JsonSchema, Nullable, NullableString, StringEnum } from './common.js';

/** Body of `POST /v1/audit` (spec). `tenant_id` is ignored: rows go to the pinned tenant. */
export const AuditAppendRequestSchema = Type.Object({
  tenant_id: Type.Optional(Nullable(Type.String())),
  /** Honoured from service accounts; other callers are recorded as themselves. */
  user_id: Type.Optional(NullableString(256)),
  action: Type.String({ minLength: 1, maxLength: 200 }),
  resource_type: Type.Optional(NullableString(200)),
  resource_id: Type.Optional(NullableString(512)),
  detail_type: Type.Optional(NullableString(200)),
  /** Free-form JSON object; secret-looking keys are redacted before signing. */
  detail: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object' })),
  /** Folded into detail as `detail.result` (the signed payload has no `result` field). */
  result: Type.Optional(Type.Unknown()),
  agent_id: Type.Optional(NullableString(256)),
  agent_chain: Type.Optional(Type.Unsafe<unknown[] | null>({ type: ['array', 'null'] })),
  delegated_by: Type.Optional(NullableString(256)),
});
/** Body of `POST /v1/audit`. */
export type AuditAppendRequest = Static<typeof AuditAppendRequestSchema>;

/** 201 body of `POST /v1/audit`. */
export const AuditAppendResponseSchema = Type.Object({
  id: Type.Integer(),
  seq: Type.Integer(),
  tenant_id: Type.String(),
  /** RFC 3339 UTC with milliseconds. */
  timestamp: Type.String(),
  key_version: Type.String(),
  signature: Type.String(),
  previous_hash: Type.String(),
  chain_hash: Type.String(),
});
/** 201 body of `POST /v1/audit`. */
export type AuditAppendResponse = Static<typeof AuditAppendResponseSchema>;

/** One row of `GET /v1/admin/audit` (detail and agent_chain parsed, chain_hash recomputed). */
export const AuditRowViewSchema = Type.Object({
  id: Type.Integer(),
  seq: Type.Integer(),
  timestamp: Type.String(),
  tenant_id: Type.String(),
  user_id: Nullable(Type.String()),
  action: Type.String(),
  resource_type: Nullable(Type.String()),
  resource_id: Nullable(Type.String()),
  detail_type: Nullable(Type.String()),
  detail: JsonSchema,
  previous_hash: Type.String(),
  signed_payload: Type.String(),
  signature: Type.String(),
  key_version: Type.String(),
  chain_hash: Type.String(),
  agent_id: Nullable(Type.String()),
  agent_chain: JsonSchema,
  delegated_by: Nullable(Type.String()),
});
/** One row of the admin listing. */
export type AuditRowView = Static<typeof AuditRowViewSchema>;

/** Query of `GET /v1/admin/audit`: filters, limit 1-500 (default 50), offset (default 0). */
export const AuditListQuerySchema = Type.Object({
  user_id: Type.Optional(Type.String({ maxLength: 256 })),
  action: Type.Optional(Type.String({ maxLength: 200 })),
  /** Ignored: the pinned tenant. */
  tenant_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
/** Query of `GET /v1/admin/audit`. */
export type AuditListQuery = Static<typeof AuditListQuerySchema>;

/** 200 body of `GET /v1/admin/audit`: newest first; `next_cursor` is the next offset. */
export const AuditRowPageSchema = Type.Object({
  items: Type.Array(AuditRowViewSchema),
  next_cursor: Type.Optional(Type.String()),
});
/** A page of audit rows. */
export type AuditRowPage = Static<typeof AuditRowPageSchema>;

/** Query of `GET /v1/admin/audit/verify`: tenant_id required, limit = newest rows only. */
export const ChainVerifyQuerySchema = Type.Object({
  tenant_id: Type.String({ minLength: 1, maxLength: 256 }),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
});
/** Query of `GET /v1/admin/audit/verify`. */
export type ChainVerifyQuery = Static<typeof ChainVerifyQuerySchema>;

/** Check names of the chain report (spec: the five checks). */
export const ChainCheckSchema = StringEnum(['chain_continuity', 'hmac', 'seq_run', 'chain_head', 'counts'] as const);
/** A check name of the chain report. */
export type ChainCheck = Static<typeof ChainCheckSchema>;

/** One failure: which check, which row (id and seq; null for table-level failures), why. */
export const ChainFailureSchema = Type.Object({
  check: ChainCheckSchema,
  id: Nullable(Type.Integer()),
  seq: Nullable(Type.Integer()),
  reason: Type.String(),
});
/** One chain failure. */
export type ChainFailure = Static<typeof ChainFailureSchema>;

/** 200 body of `GET /v1/admin/audit/verify`. */
export const ChainReportSchema = Type.Object({
  ok: Type.Boolean(),
  checked: Type.Integer(),
  failures: Type.Array(ChainFailureSchema),
});
/** The chain verification report. */
export type ChainReport = Static<typeof ChainReportSchema>;

/** 200 body of `POST /v1/admin/audit/turns/:turn_id/seal`. */
export const ManualSealResponseSchema = Type.Object({
  turn_id: Type.String(),
  sealed: Type.Boolean(),
  seal_reason: Type.String(),
});
/** 200 body of a manual seal. */
export type ManualSealResponse = Static<typeof ManualSealResponseSchema>;
