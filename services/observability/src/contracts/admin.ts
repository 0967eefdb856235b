/**
 * Budget, usage and trace shapes of observability (spec "Observability"; issue 4 budgets): TypeBox
 * schemas, types derived. Request schemas emit exactly the JSON schemas the routes validated with
 * before issue 10; answer schemas list properties in the order the answers have always had.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, OrNull, StringEnum } from '../../../shared/kit/schema.js';
import { StatsBucketSchema } from './generations.js';

const NullableString = OrNull(Type.String());
const NullableNumber = OrNull(Type.Number());

/** Budget period: spend is summed from the start of the current UTC day or month. */
export const BudgetPeriodSchema = StringEnum(['day', 'month'] as const);
/** `day` or `month`. */
export type BudgetPeriod = Static<typeof BudgetPeriodSchema>;

/** Params `{tenant_id}` of the budget routes. */
export const TenantParams = Type.Object({ tenant_id: Type.String({ minLength: 1, maxLength: 256 }) });

const limitUsd = Type.Optional(Nullable(Type.Number({ minimum: 0 })));

/**
 * Body of `PUT /v1/admin/observability/budgets/{tenant_id}`; null clears a limit. At or above
 * `soft_limit_usd` the router warns (header `x-svc-budget-warning`); at or above `hard_limit_usd` it
 * refuses with `budget_exceeded`. USD.
 */
export const BudgetInputSchema = Type.Object({
  period: BudgetPeriodSchema,
  soft_limit_usd: limitUsd,
  hard_limit_usd: limitUsd,
}, { additionalProperties: false });
/** A budget to set. */
export type BudgetInput = Static<typeof BudgetInputSchema>;

/** A budget with the spend of its current period (`state`: `ok`, `soft_exceeded` warns, `hard_exceeded` refuses). */
export const BudgetStatusSchema = Type.Object({
  tenant_id: Type.String(),
  period: BudgetPeriodSchema,
  soft_limit_usd: NullableNumber,
  hard_limit_usd: NullableNumber,
  /** RFC 3339 start of the current period. */
  period_start: Type.String(),
  spend_usd: Type.Number(),
  state: StringEnum(['ok', 'soft_exceeded', 'hard_exceeded'] as const),
  updated_at: NullableString,
  updated_by: NullableString,
});
/** A budget's status. */
export type BudgetStatus = Static<typeof BudgetStatusSchema>;

/** `GET /v1/admin/observability/budgets`: the pinned tenant and every tenant with a budget. */
export const BudgetListSchema = Type.Object({ items: Type.Array(BudgetStatusSchema) });

/** Query of `GET /v1/admin/observability/usage` (RFC 3339; `until` exclusive). */
export const UsageQuery = Type.Object({
  since: Type.Optional(Type.String({ format: 'date-time' })),
  until: Type.Optional(Type.String({ format: 'date-time' })),
});
/** A usage query. */
export type UsageQuery = Static<typeof UsageQuery>;

/** `GET /v1/admin/observability/usage`: spend and tokens of the pinned tenant. */
export const UsageReportSchema = Type.Object({
  tenant_id: Type.String(),
  since: NullableString,
  until: NullableString,
  totals: StatsBucketSchema,
  by_user: Type.Array(StatsBucketSchema),
  by_model: Type.Array(StatsBucketSchema),
  budget: Type.Union([BudgetStatusSchema, Type.Null()]),
});
/** A usage report. */
export type UsageReport = Static<typeof UsageReportSchema>;

const attributeValue = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] };

/** One finished span, as stored by observability (an OpenTelemetry span, flattened; as posted to `POST /v1/traces/spans`). */
export const SpanRecordSchema = Type.Object({
  trace_id: Type.String({ pattern: '^[0-9a-f]{32}$' }),
  span_id: Type.String({ pattern: '^[0-9a-f]{16}$' }),
  parent_span_id: Type.Optional(Nullable(Type.String({ pattern: '^[0-9a-f]{16}$' }))),
  service: Type.String({ maxLength: 64 }),
  name: Type.String({ maxLength: 256 }),
  kind: StringEnum(['server', 'client', 'internal'] as const),
  /** RFC 3339 start time. */
  start_time: Type.String({ format: 'date-time' }),
  duration_ms: Type.Number({ minimum: 0 }),
  status: StringEnum(['ok', 'error'] as const),
  attributes: Type.Optional(Type.Unsafe<Record<string, string | number | boolean | null>>({ type: 'object', maxProperties: 64, additionalProperties: attributeValue })),
});
/** A span as posted (parent and attributes may be left out). */
export type SpanInput = Static<typeof SpanRecordSchema>;
/** A stored span. */
export type SpanRecord = Required<SpanInput> & { parent_span_id: string | null };

/** Body of `POST /v1/traces/spans`: at most 1000 spans. */
export const SpanBatchSchema = Type.Object({ spans: Type.Array(SpanRecordSchema, { maxItems: 1000 }) });
/** A batch of spans. */
export type SpanBatch = Static<typeof SpanBatchSchema>;

/** `POST /v1/traces/spans` -> 202: how many spans were new. */
export const SpanBatchAnswerSchema = Type.Object({ accepted: Type.Number() });

/** A stored span as answered (table column order). */
export const StoredSpanSchema = Type.Object({
  trace_id: Type.String(),
  span_id: Type.String(),
  parent_span_id: NullableString,
  service: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  start_time: Type.String(),
  duration_ms: Type.Number(),
  status: Type.String(),
  attributes: Type.Object({}, { additionalProperties: true }),
});

/** One trace in `GET /v1/admin/observability/traces`. */
export const TraceSummarySchema = Type.Object({
  trace_id: Type.String(),
  /** Name of the earliest span (the root when it was collected). */
  root_name: Type.String(),
  services: Type.Array(Type.String()),
  span_count: Type.Number(),
  start_time: Type.String(),
  duration_ms: Type.Number(),
  error: Type.Boolean(),
});
/** One trace summary. */
export type TraceSummary = Static<typeof TraceSummarySchema>;

/** Query of `GET /v1/admin/observability/traces`: `limit` (1-500, default 50), `cursor` (the previous page's `next_cursor`). */
export const TraceListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ format: 'date-time' })),
});

/** `GET /v1/admin/observability/traces`: most recent first. */
export const TracePageSchema = Type.Object({ items: Type.Array(TraceSummarySchema), next_cursor: Type.Optional(Type.String()) });

/** Params of `GET /v1/admin/observability/traces/{trace_id}`. */
export const TraceParams = Type.Object({ trace_id: Type.String({ pattern: '^[0-9a-f]{32}$' }) });

/** `GET /v1/admin/observability/traces/{trace_id}`: the trace's spans in start order. */
export const TraceSchema = Type.Object({ trace_id: Type.String(), spans: Type.Array(StoredSpanSchema) });
