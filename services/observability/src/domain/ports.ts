/**
 * What observability's domain needs from persistence and the outside world. `store/` implements the
 * stores over SQLite (one file per table group), `clients/` the external price list; shaped so
 * another database could stand behind them.
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import type { AuthMethod } from '../../../shared/identity/principal-types.js';
import type { BudgetPeriod, GenerationRecord, ModelPrice, SpanRecord, StatsBucket, TraceSummary } from '../contracts.js';

/** Filters of a record query (times RFC 3339; `since` inclusive, `until` exclusive). */
export interface GenerationFilter {
  tenantId: string;
  model?: string | undefined;
  providerId?: string | undefined;
  role?: string | undefined;
  userId?: string | undefined;
  status?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** Columns aggregates can be grouped by (`day` is the UTC date of `created_at`). */
export type StatsGroup = 'model' | 'provider_name' | 'role' | 'day' | 'user_id';

/** Generation records. */
export interface GenerationStore {
  /** Insert a record unless its event_id exists. @returns true when inserted. */
  insert(r: GenerationRecord): Awaitable<boolean>;
  /** One record, or null. */
  get(tenantId: string, eventId: string): Awaitable<GenerationRecord | null>;
  /** Up to `limit` records newest first (event ids are ULIDs), with event_id below `before` when given. */
  list(f: GenerationFilter, before: string | undefined, limit: number): Awaitable<GenerationRecord[]>;
  /** Aggregates over the filter: one bucket keyed `all` when `by` is null, else up to 1000 buckets. */
  stats(f: GenerationFilter, by: StatsGroup | null): Awaitable<StatsBucket[]>;
  /** Sum of cost_usd of a tenant's records since `since`, USD. */
  spend(tenantId: string, since: string): Awaitable<number>;
}

/** A price of the refreshed list. */
export interface ListPrice extends ModelPrice { model: string; updated_at: string }

/** The refreshed price list and when it was refreshed. */
export interface PriceStore {
  /** Replace the list (atomically); remember when and from where. @returns how many prices. */
  replace(prices: Record<string, ModelPrice>, at: string, sourceUrl: string): Awaitable<number>;
  /** The list, by model name. */
  all(): Awaitable<ListPrice[]>;
  /** RFC 3339 time of the last refresh, or null. */
  refreshedAt(): Awaitable<string | null>;
}

/** A stored budget. */
export interface BudgetRow {
  tenant_id: string;
  period: BudgetPeriod;
  soft_limit_usd: number | null;
  hard_limit_usd: number | null;
  updated_at: string;
  updated_by: string | null;
}

/** Tenant budgets. */
export interface BudgetStore {
  /** One budget, or null. */
  get(tenantId: string): Awaitable<BudgetRow | null>;
  /** Every budget, by tenant. */
  all(): Awaitable<BudgetRow[]>;
  /** Create or replace a budget. */
  put(b: BudgetRow): Awaitable<void>;
}

/** Trace spans. */
export interface SpanStore {
  /** Insert spans (duplicates ignored, atomically). @returns how many were new. */
  insert(spans: SpanRecord[]): Awaitable<number>;
  /** Spans of one trace in start order. */
  trace(traceId: string): Awaitable<SpanRecord[]>;
  /** Up to `limit` trace summaries, most recent first, starting before `before` when given. */
  traces(limit: number, before?: string): Awaitable<TraceSummary[]>;
  /** Delete spans that started before `before`. @returns how many. */
  prune(before: string): Awaitable<number>;
}

/** Fetches an external price list (PRICING_MODELS_URL). */
export interface PriceListSource {
  /**
   * Fetch and parse the list at `url` (USD per 1M tokens).
   * @throws DomainError `url_not_allowed` (the URL reaches the workstation itself), `pricing_refresh_failed`.
   */
  fetch(url: string, timeoutMs: number): Promise<Record<string, ModelPrice>>;
}

/** The caller of a route, as the domain decides what it may see (`auth_method` tells a service principal, issue 11 item 1). */
export interface Caller { id: string; roles: readonly string[]; auth_method: AuthMethod }
