/**
 * Generation record shapes (spec "Other resources": generation record; "Observability"): the body
 * the router posts, the stored record, list filters and aggregates. TypeBox schemas, types derived.
 *
 * Request schemas emit exactly the JSON schemas the routes validated with before issue 10. Answer
 * schemas list their properties in the order the answers have always had: a stored record in the
 * order of its table's columns, a freshly posted one in the order it was posted in.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, OrNull, StringEnum } from '../../../shared/kit/schema.js';


/** A ULID (Crockford base32, 26 characters). */
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$';

const str = (max = 256) => Type.String({ maxLength: max });
const nstr = (max = 256) => Nullable(Type.String({ maxLength: max }));
const count = Type.Integer({ minimum: 0 });

/** Outcome of one generation. */
export const GenerationStatusSchema = StringEnum(['ok', 'error', 'aborted'] as const);
/** `ok`, `error` or `aborted`. */
export type GenerationStatus = Static<typeof GenerationStatusSchema>;

/**
 * Body of `POST /v1/generations` (the router posts one per call). Times in ms, tokens as counted by
 * the backend. `cost_usd` is normally left out: observability prices the record from
 * OBS_LOCAL_PRICE_JSON, then the refreshed list. Fields: `event_id` (ULID minted when the call
 * started), `created_at` (RFC 3339 start), `role` (the alias, when the request named one),
 * `requested_model` (as sent), `model` (what served, or the last one tried), `backend`
 * (`chat_completions`, `responses` or `local_llama_cpp`), `provider_version` (upstream fingerprint or
 * server header, or the local engine's version), `deterministic` (the backend can replay the call),
 * `weight_hash` (sha256 of local weights), `http_status` (what the router answered), `latency_ms`
 * (start to last byte), `ttft_ms` (start to first content token), `attempts` (backends tried).
 */
export const GenerationInputSchema = Type.Object({
  event_id: Type.String({ pattern: ULID_PATTERN }),
  created_at: Type.String({ format: 'date-time' }),
  user_id: Type.Optional(nstr()),
  turn_id: Type.Optional(nstr(64)),
  trace_id: Type.Optional(Nullable(Type.String({ pattern: '^[0-9a-f]{32}$' }))),
  span_id: Type.Optional(Nullable(Type.String({ pattern: '^[0-9a-f]{16}$' }))),
  role: Type.Optional(nstr(64)),
  requested_model: str(512),
  model: str(512),
  provider_id: str(128),
  provider_name: str(256),
  backend: str(64),
  provider_version: Type.Optional(nstr(256)),
  deterministic: Type.Optional(Type.Boolean({ default: false })),
  weight_hash: Type.Optional(Nullable(Type.String({ pattern: '^[0-9a-f]{64}$' }))),
  stream: Type.Optional(Type.Boolean({ default: false })),
  status: GenerationStatusSchema,
  error_code: Type.Optional(nstr(64)),
  http_status: Type.Integer({ minimum: 100, maximum: 599 }),
  latency_ms: Type.Number({ minimum: 0 }),
  ttft_ms: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  attempts: Type.Optional(Type.Integer({ minimum: 0, default: 1 })),
  cost_usd: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
}, { additionalProperties: false });
/** A generation record as posted. */
export type GenerationInput = Static<typeof GenerationInputSchema>;

const NullableString = OrNull(Type.String());
const NullableNumber = OrNull(Type.Number());
/** `local` (OBS_LOCAL_PRICE_JSON), `list` (refreshed), `caller`, or null (no price known). */
const PriceSource = Type.Union([StringEnum(['local', 'list', 'caller'] as const), Type.Null()]);

/** Every field of a stored record, as answered. */
const recordFields = {
  event_id: Type.String(),
  tenant_id: Type.String(),
  created_at: Type.String(),
  user_id: NullableString,
  turn_id: NullableString,
  trace_id: NullableString,
  span_id: NullableString,
  role: NullableString,
  requested_model: Type.String(),
  model: Type.String(),
  provider_id: Type.String(),
  provider_name: Type.String(),
  backend: Type.String(),
  provider_version: NullableString,
  deterministic: Type.Boolean(),
  weight_hash: NullableString,
  stream: Type.Boolean(),
  status: GenerationStatusSchema,
  error_code: NullableString,
  http_status: Type.Number(),
  latency_ms: Type.Number(),
  ttft_ms: NullableNumber,
  prompt_tokens: Type.Number(),
  completion_tokens: Type.Number(),
  total_tokens: Type.Number(),
  attempts: Type.Number(),
  cost_usd: NullableNumber,
  price_source: PriceSource,
  ingested_at: Type.String(),
};

/** A stored generation record: the input plus tenant, cost and where the price came from (table column order). */
export const GenerationRecordSchema = Type.Object(recordFields);
/** A stored generation record. */
export type GenerationRecord = Static<typeof GenerationRecordSchema>;

/**
 * A record as `POST /v1/generations` answers it when it was new (201): the fields of
 * `GenerationRecordSchema`, in the order they were posted (fields the body left out and that have
 * defaults last), then `tenant_id`, `cost_usd`, `price_source`, `ingested_at`. Declared open so the
 * answer keeps that order.
 */
export const PostedGenerationSchema = Type.Unsafe<GenerationRecord>({ type: 'object', additionalProperties: true });

/** Filters of `GET /v1/generations` and `GET /v1/generations/stats` (times RFC 3339; `until` exclusive). */
const filterFields = {
  model: Type.Optional(str(512)),
  provider_id: Type.Optional(str(128)),
  role: Type.Optional(str(64)),
  user_id: Type.Optional(str(256)),
  status: Type.Optional(GenerationStatusSchema),
  since: Type.Optional(Type.String({ format: 'date-time' })),
  until: Type.Optional(Type.String({ format: 'date-time' })),
};

/** Query of `GET /v1/generations/stats`. */
export const GenerationFilterQuery = Type.Object(filterFields);
/** Record filters as queried. */
export type GenerationFilterQuery = Static<typeof GenerationFilterQuery>;

/** Query of `GET /v1/generations`: filters, `limit` (1-500, default 50), `cursor` (the previous page's `next_cursor`). */
export const GenerationListQuery = Type.Object({
  ...filterFields,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ pattern: ULID_PATTERN })),
});
/** A list query. */
export type GenerationListQuery = Static<typeof GenerationListQuery>;

/** Params of `GET /v1/generations/{event_id}`. */
export const GenerationParams = Type.Object({ event_id: Type.String({ maxLength: 64 }) });

/** `GET /v1/generations`: newest first. */
export const GenerationPageSchema = Type.Object({ items: Type.Array(GenerationRecordSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of records. */
export type GenerationPage = Static<typeof GenerationPageSchema>;

/** One aggregate bucket: calls, errors, tokens, priced spend (USD), mean latency and time to first token (ms). */
export const StatsBucketSchema = Type.Object({
  key: Type.String(),
  count: Type.Number(),
  errors: Type.Number(),
  prompt_tokens: Type.Number(),
  completion_tokens: Type.Number(),
  total_tokens: Type.Number(),
  /** Sum of priced records, USD. */
  cost_usd: Type.Number(),
  avg_latency_ms: Type.Number(),
  avg_ttft_ms: NullableNumber,
});
/** One aggregate bucket. */
export type StatsBucket = Static<typeof StatsBucketSchema>;

/** `GET /v1/generations/stats`: totals and buckets by model, provider, role and day. */
export const GenerationStatsSchema = Type.Object({
  since: NullableString,
  until: NullableString,
  totals: StatsBucketSchema,
  by_model: Type.Array(StatsBucketSchema),
  by_provider: Type.Array(StatsBucketSchema),
  by_role: Type.Array(StatsBucketSchema),
  by_day: Type.Array(StatsBucketSchema),
});
/** Generation aggregates. */
export type GenerationStats = Static<typeof GenerationStatsSchema>;
