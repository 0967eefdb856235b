/**
 * Public surface of the observability service, the one door other services and the renderer import
 * (spec "Observability", "Other resources": generation record; DESIGN.md "Request bodies the spec
 * leaves open": OBS_LOCAL_PRICE_JSON in USD per 1,000,000 tokens; lists answer `{items, next_cursor?}`).
 * Node-free: schemas, types derived from them, constants, the error table.
 *
 * Routes (all need a gateway-stamped or service principal):
 * - `POST /v1/generations` (service-account) body `GenerationInput` -> 201 `GenerationRecord`
 *   (200 with the stored record when `event_id` was already ingested); 403 `service_account_required`
 * - `GET /v1/generations?model&provider_id&role&user_id&status&since&until&limit&cursor` -> 200
 *   `{items: GenerationRecord[], next_cursor?}` newest first; non-admin users see only their own
 * - `GET /v1/generations/stats?since&until` -> 200 `GenerationStats` (by model, provider, role, day)
 * - `GET /v1/generations/{event_id}` -> 200 `GenerationRecord`; 404 `not_found`
 * - `GET /v1/prices` -> 200 `{items: PriceView[], refreshed_at, source_url}`
 * - `POST /v1/prices/refresh` (admin) -> 200 `{updated, refreshed_at, source_url}`;
 *   409 `pricing_url_missing`; 422 `pricing_refresh_failed`; 400 `url_not_allowed` (PRICING_MODELS_URL
 *   reaches the workstation's own gateway or service ports, or a link-local address: issue 11 item 8)
 * - `GET /v1/admin/observability/traces?limit&cursor` (admin) -> 200 `{items: TraceSummary[], next_cursor?}`
 * - `GET /v1/admin/observability/traces/{trace_id}` (admin) -> 200 `{trace_id, spans: SpanRecord[]}`; 404
 * - `GET /v1/admin/observability/usage?since&until` (admin) -> 200 `UsageReport`
 * - `GET /v1/admin/observability/budgets` (admin) -> 200 `{items: BudgetStatus[]}`
 * - `PUT /v1/admin/observability/budgets/{tenant_id}` (admin) body `BudgetInput` -> 200 `BudgetStatus`
 * - `GET /v1/internal/budgets/{tenant_id}` (service-account or admin) -> 200 `BudgetStatus`
 * - `POST /v1/traces/spans` (service-account) body `{spans: SpanRecord[]}` -> 202 `{accepted}`
 */
import { Type, type Static } from '../../shared/kit/typebox.js';
import { OrNull } from '../../shared/kit/schema.js';
import type { CommonServiceConfig } from '../../shared/config.js';
import type { ErrorTable } from '../../shared/kit/domain-error.js';

export * from './contracts/generations.js';
export * from './contracts/admin.js';

/**
 * Error codes of the observability service beyond the common ones, and their statuses.
 *
 * | code | status | when |
 * |---|---|---|
 * | `service_account_required` | 403 | an ingestion or internal route called by a user |
 * | `pricing_url_missing` | 409 | `POST /v1/prices/refresh` with no PRICING_MODELS_URL |
 * | `pricing_refresh_failed` | 422 | the list could not be fetched or parsed |
 * | `url_not_allowed` | 400 | PRICING_MODELS_URL reaches the workstation's own ports or a link-local address (issue 11 item 8) |
 */
export const OBSERVABILITY_ERRORS = {
  service_account_required: 403,
  pricing_url_missing: 409,
  pricing_refresh_failed: 422,
  url_not_allowed: 400,
} as const satisfies ErrorTable;

/** A code of the observability error table. */
export type ObservabilityErrorCode = keyof typeof OBSERVABILITY_ERRORS;

/** A price in USD per 1,000,000 tokens (DESIGN.md pins the unit): `in` for input (prompt), `out` for output (completion) tokens. */
export const ModelPriceSchema = Type.Object({ in: Type.Number(), out: Type.Number() });
/** A price, USD per 1M tokens. */
export type ModelPrice = Static<typeof ModelPriceSchema>;

/** One row of `GET /v1/prices` (USD per 1M tokens; `local` entries win over the refreshed `list`). */
export const PriceViewSchema = Type.Object({
  model: Type.String(),
  in: Type.Number(),
  out: Type.Number(),
  unit: Type.Literal('usd_per_1m_tokens'),
  source: Type.Unsafe<'local' | 'list'>({ type: 'string', enum: ['local', 'list'] }),
  updated_at: OrNull(Type.String()),
});
/** One price row. */
export type PriceView = Static<typeof PriceViewSchema>;

/** `GET /v1/prices`: local prices, then the refreshed list; when and from where it was refreshed. */
export const PriceListSchema = Type.Object({
  items: Type.Array(PriceViewSchema),
  refreshed_at: OrNull(Type.String()),
  source_url: OrNull(Type.String()),
});
/** The price list. */
export type PriceList = Static<typeof PriceListSchema>;

/** `POST /v1/prices/refresh`: how many prices the list gave. */
export const PriceRefreshSchema = Type.Object({ updated: Type.Number(), refreshed_at: Type.String(), source_url: Type.String() });
/** A refresh's outcome. */
export type PriceRefresh = Static<typeof PriceRefreshSchema>;

export { validateLocalPrices } from './contracts/local-prices.js';

/**
 * Observability's environment-derived settings; main/config/services/observability.ts reads them
 * (the only place with defaults).
 */
export interface ObservabilitySettings {
  /** OBS_LOCAL_PRICE_JSON, parsed: model name -> price, USD per 1M tokens (default none). */
  localPrices: Record<string, ModelPrice>;
  /** PRICING_MODELS_URL, or null (air-gapped: refresh answers 409). */
  pricingModelsUrl: string | null;
  /** Timeout of the price-list fetch, ms (OBS_PRICING_TIMEOUT_MS, default 10000). */
  pricingTimeoutMs: number;
  /** Spans older than this are pruned, days (OBS_TRACE_RETENTION_DAYS, default 7). */
  traceRetentionDays: number;
}

/** Observability's config: the common slice plus its settings. */
export type ObservabilityConfig = CommonServiceConfig & ObservabilitySettings & { service: 'observability' };
