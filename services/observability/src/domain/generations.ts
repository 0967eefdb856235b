/**
 * Generation record use cases (spec "Observability"; "Other resources": generation record): ingest
 * (services only; idempotent by `event_id`), list newest first with cursor pagination, read one, and
 * aggregate. Users without the admin role see only their own records; services (`isServicePrincipal`) see all.
 */
import { DomainError, invalidInput, notFoundError } from '../../../shared/kit/domain-error.js';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import type {
  GenerationFilterQuery, GenerationInput, GenerationListQuery, GenerationPage, GenerationRecord, GenerationStats, ObservabilityErrorCode,
} from '../contracts.js';
import { pageOf } from './pagination.js';
import type { PriceBook } from './price-book.js';
import type { Caller, GenerationFilter, GenerationStore } from './ports.js';

/** Whether `caller` may see every user's records (admin or a service). */
export function seesAll(caller: Caller): boolean {
  return caller.roles.includes('admin') || isServicePrincipal(caller);
}

/** @throws DomainError `service_account_required` unless `caller` is a service principal (issue 11 item 1: a role claim is not enough). */
export function requireService(caller: Caller, message: string): void {
  if (!isServicePrincipal(caller)) throw new DomainError<ObservabilityErrorCode>('service_account_required', message);
}

const iso = (s: string | undefined): string | undefined => (s === undefined ? undefined : new Date(s).toISOString());

/** Record filters of `tenantId` as `caller` may apply them (a user is pinned to their own records). */
export function filterFor(tenantId: string, caller: Caller, q: GenerationFilterQuery): GenerationFilter {
  return {
    tenantId, model: q.model, providerId: q.provider_id, role: q.role, status: q.status,
    userId: seesAll(caller) ? q.user_id : caller.id, since: iso(q.since), until: iso(q.until),
  };
}

/** The outcome of an ingestion: the record and whether it was new. */
export interface Ingested { record: GenerationRecord; fresh: boolean }

/** Generation records of the pinned tenant. */
export class GenerationService {
  /** `onRecorded`: called after a new record is stored (budget alerts, issue 13 item 1). */
  constructor(private readonly d: { store: GenerationStore; prices: PriceBook; tenantId: string; onRecorded?: (rec: GenerationRecord) => void }) {}

  /**
   * Store a posted record (priced); an `event_id` already stored is a no-op answering the stored record.
   * @throws DomainError `service_account_required`, `invalid_request` (created_at not a date).
   */
  async ingest(caller: Caller, input: GenerationInput): Promise<Ingested> {
    requireService(caller, 'only services post generation records');
    if (Number.isNaN(Date.parse(input.created_at))) throw invalidInput('created_at is not a date', 'body.created_at');
    const rec = this.d.prices.price(input);
    const fresh = await this.d.store.insert(rec);
    if (fresh) this.d.onRecorded?.(rec);
    return { record: fresh ? rec : (await this.d.store.get(this.d.tenantId, rec.event_id)) ?? rec, fresh };
  }

  /** A page of records, newest first (`limit` default 50; `cursor` the previous page's `next_cursor`). */
  async list(caller: Caller, q: GenerationListQuery): Promise<GenerationPage> {
    const limit = q.limit ?? 50;
    const rows = await this.d.store.list(filterFor(this.d.tenantId, caller, q), q.cursor, limit + 1);
    return pageOf(rows, limit, (r) => r.event_id);
  }

  /** One record. @throws DomainError `not_found` (also for another user's record). */
  async get(caller: Caller, eventId: string): Promise<GenerationRecord> {
    const rec = await this.d.store.get(this.d.tenantId, eventId);
    if (!rec || (!seesAll(caller) && rec.user_id !== caller.id)) throw notFoundError(`no generation ${eventId}`);
    return rec;
  }

  /** Totals and buckets by model, provider, role and day over the filter. */
  async stats(caller: Caller, q: GenerationFilterQuery): Promise<GenerationStats> {
    const f = filterFor(this.d.tenantId, caller, q);
    const s = this.d.store;
    return {
      since: f.since ?? null, until: f.until ?? null,
      totals: (await s.stats(f, null))[0]!,
      by_model: await s.stats(f, 'model'), by_provider: await s.stats(f, 'provider_name'),
      by_role: await s.stats(f, 'role'), by_day: await s.stats(f, 'day'),
    };
  }
}
