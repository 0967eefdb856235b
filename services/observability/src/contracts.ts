/**
 * Public surface of the observability service (spec "Observability", "Other resources": generation
 * record; DESIGN.md "Request bodies the spec leaves open": OBS_LOCAL_PRICE_JSON in USD per 1,000,000
 * tokens; lists answer `{items, next_cursor?}`).
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
 *   409 `pricing_url_missing`; 422 `pricing_refresh_failed`
 * - `GET /v1/admin/observability/traces?limit&cursor` (admin) -> 200 `{items: TraceSummary[], next_cursor?}`
 * - `GET /v1/admin/observability/traces/{trace_id}` (admin) -> 200 `{trace_id, spans: SpanRecord[]}`; 404
 * - `GET /v1/admin/observability/usage?since&until` (admin) -> 200 `UsageReport`
 * - `GET /v1/admin/observability/budgets` (admin) -> 200 `{items: BudgetStatus[]}`
 * - `PUT /v1/admin/observability/budgets/{tenant_id}` (admin) body `BudgetInput` -> 200 `BudgetStatus`
 * - `GET /v1/internal/budgets/{tenant_id}` (service-account or admin) -> 200 `BudgetStatus`
 * - `POST /v1/traces/spans` (service-account) body `{spans: SpanRecord[]}` -> 202 `{accepted}`
 */
import type { CommonServiceConfig } from '../../shared/config.js';

export type { SpanRecord } from './client.js';

/** A price in USD per 1,000,000 tokens (DESIGN.md pins the unit). */
export interface ModelPrice {
  /** Input (prompt) tokens, USD per 1M. */
  in: number;
  /** Output (completion) tokens, USD per 1M. */
  out: number;
}

/** Observability config slice (main/config/services/observability.ts). */
export interface ObservabilityConfig extends CommonServiceConfig {
  service: 'observability';
  /** OBS_LOCAL_PRICE_JSON, parsed: model name -> price, USD per 1M tokens. */
  localPrices: Record<string, ModelPrice>;
  /** PRICING_MODELS_URL, or null (air-gapped: refresh answers 409). */
  pricingModelsUrl: string | null;
  /** Timeout of the price-list fetch, ms (OBS_PRICING_TIMEOUT_MS, default 10000). */
  pricingTimeoutMs: number;
  /** Spans older than this are pruned, days (OBS_TRACE_RETENTION_DAYS, default 7). */
  traceRetentionDays: number;
}

/** Error codes of the observability service beyond the shared ones. */
export type ObservabilityErrorCode =
  | 'service_account_required' // 403: ingestion routes
  | 'pricing_url_missing'      // 409: POST /v1/prices/refresh with no PRICING_MODELS_URL
  | 'pricing_refresh_failed';  // 422: the list could not be fetched or parsed

/** Outcome of one generation. */
export type GenerationStatus = 'ok' | 'error' | 'aborted';

/**
 * Body of `POST /v1/generations` (the router posts one per call). Times in ms, tokens as counted by
 * the backend (or estimated when it reports none). `cost_usd` is normally left out: observability
 * prices the record from OBS_LOCAL_PRICE_JSON, then the refreshed list.
 */
export interface GenerationInput {
  /** ULID minted by the router when the call started. */
  event_id: string;
  /** RFC 3339 time the call started. */
  created_at: string;
  user_id: string | null;
  turn_id: string | null;
  trace_id: string | null;
  span_id: string | null;
  /** The role alias, when the request named one (`default`, `title`, ...). */
  role: string | null;
  /** `model` as the client sent it. */
  requested_model: string;
  /** The concrete model that served (or the last one tried). */
  model: string;
  provider_id: string;
  provider_name: string;
  /** `chat_completions`, `responses` or `local_llama_cpp`. */
  backend: string;
  /** Upstream `system_fingerprint` / `server` header, or the local engine's version. */
  provider_version: string | null;
  /** True when the backend can replay this call exactly (local engine with a seed or temperature 0). */
  deterministic: boolean;
  /** sha256 hex of the weights (local GGUF), else null. */
  weight_hash: string | null;
  stream: boolean;
  status: GenerationStatus;
  error_code: string | null;
  /** Status the router answered. */
  http_status: number;
  /** Request start to last byte, ms. */
  latency_ms: number;
  /** Request start to first content token, ms (null when no token came). */
  ttft_ms: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Backends tried (1 when the first served). */
  attempts: number;
  /** Optional caller-computed cost; observability's own price wins when it has one. */
  cost_usd?: number | null;
}

/** A stored generation record: the input plus tenant, cost and where the price came from. */
export interface GenerationRecord extends Omit<GenerationInput, 'cost_usd'> {
  tenant_id: string;
  cost_usd: number | null;
  /** `local` (OBS_LOCAL_PRICE_JSON), `list` (refreshed), `caller`, or null (no price known). */
  price_source: 'local' | 'list' | 'caller' | null;
  ingested_at: string;
}

/** One aggregate bucket of `GET /v1/generations/stats`. */
export interface StatsBucket {
  key: string;
  count: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Sum of priced records, USD. */
  cost_usd: number;
  avg_latency_ms: number;
  avg_ttft_ms: number | null;
}

/** `GET /v1/generations/stats`. */
export interface GenerationStats {
  since: string | null;
  until: string | null;
  totals: StatsBucket;
  by_model: StatsBucket[];
  by_provider: StatsBucket[];
  by_role: StatsBucket[];
  by_day: StatsBucket[];
}

/** One row of `GET /v1/prices`. */
export interface PriceView {
  model: string;
  /** USD per 1M input tokens. */
  in: number;
  /** USD per 1M output tokens. */
  out: number;
  unit: 'usd_per_1m_tokens';
  source: 'local' | 'list';
  updated_at: string | null;
}

/** Budget period: spend is summed from the start of the current UTC day or month. */
export type BudgetPeriod = 'day' | 'month';

/** Body of `PUT /v1/admin/observability/budgets/{tenant_id}`; null clears a limit. */
export interface BudgetInput {
  period: BudgetPeriod;
  /** Warn (header `x-svc-budget-warning` on router answers) at or above this spend, USD. */
  soft_limit_usd?: number | null;
  /** Refuse with `budget_exceeded` at or above this spend, USD. */
  hard_limit_usd?: number | null;
}

/** A budget with the spend of its current period. */
export interface BudgetStatus {
  tenant_id: string;
  period: BudgetPeriod;
  soft_limit_usd: number | null;
  hard_limit_usd: number | null;
  /** RFC 3339 start of the current period. */
  period_start: string;
  spend_usd: number;
  /** `ok`, `soft_exceeded` (warn only) or `hard_exceeded` (the router refuses). */
  state: 'ok' | 'soft_exceeded' | 'hard_exceeded';
  updated_at: string | null;
  updated_by: string | null;
}

/** One trace in `GET /v1/admin/observability/traces`. */
export interface TraceSummary {
  trace_id: string;
  /** Name of the earliest span (the root when it was collected). */
  root_name: string;
  services: string[];
  span_count: number;
  start_time: string;
  duration_ms: number;
  error: boolean;
}

/** `GET /v1/admin/observability/usage`: spend and tokens of the pinned tenant. */
export interface UsageReport {
  tenant_id: string;
  since: string | null;
  until: string | null;
  totals: StatsBucket;
  by_user: StatsBucket[];
  by_model: StatsBucket[];
  budget: BudgetStatus | null;
}
