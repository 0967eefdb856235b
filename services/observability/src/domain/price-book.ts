/**
 * The prices in force (spec "Observability"; prices are advisory): OBS_LOCAL_PRICE_JSON entries
 * (operator-defined, they win) and the refreshed list (PRICING_MODELS_URL, kept in the store and
 * cached in memory); pricing an ingested record; listing and refreshing the prices.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { GenerationInput, GenerationRecord, ModelPrice, ObservabilityErrorCode, PriceList, PriceRefresh, PriceView } from '../contracts.js';
import type { PriceListSource, PriceStore } from './ports.js';
import { costUsd, lookupPrice } from './prices.js';

/** What the price book needs. */
export interface PriceBookDeps {
  store: PriceStore;
  source: PriceListSource;
  tenantId: string;
  /** OBS_LOCAL_PRICE_JSON, USD per 1M tokens. */
  localPrices: Record<string, ModelPrice>;
  /** PRICING_MODELS_URL, or null. */
  pricingModelsUrl: string | null;
  pricingTimeoutMs: number;
}

/** Prices and pricing. */
export class PriceBook {
  /** Refreshed list, cached in memory (model -> price). */
  private list = new Map<string, ModelPrice>();

  /** Call `reload()` once before pricing (the service does at start). */
  constructor(private readonly d: PriceBookDeps) {}

  /** Read the refreshed list from the store into the in-memory cache. */
  async reload(): Promise<void> {
    this.list = new Map((await this.d.store.all()).map((p) => [p.model, { in: p.in, out: p.out }]));
  }

  /**
   * Turn an ingested record into a stored one: tenant pinned, created_at normalised, cost from
   * OBS_LOCAL_PRICE_JSON, then the refreshed list, else the caller's figure, else null.
   */
  price(input: GenerationInput): GenerationRecord {
    const { cost_usd: callerCost, ...rest } = input;
    const found = lookupPrice(input.model, input.provider_name, this.d.localPrices, (m) => this.list.get(m));
    let cost: number | null = null;
    let source: GenerationRecord['price_source'] = null;
    if (found) { cost = costUsd(found.price, input.prompt_tokens, input.completion_tokens); source = found.source; }
    else if (typeof callerCost === 'number') { cost = callerCost; source = 'caller'; }
    return {
      ...rest, tenant_id: this.d.tenantId, created_at: new Date(input.created_at).toISOString(),
      cost_usd: cost, price_source: source, ingested_at: new Date().toISOString(),
    } as GenerationRecord;
  }

  /** `GET /v1/prices`: local prices (`source: "local"`), then the refreshed list minus models priced locally. */
  async prices(): Promise<PriceList> {
    const items: PriceView[] = Object.entries(this.d.localPrices).map(([model, p]) => ({ model, in: p.in, out: p.out, unit: 'usd_per_1m_tokens', source: 'local', updated_at: null }));
    const local = new Set(Object.keys(this.d.localPrices));
    for (const p of await this.d.store.all()) {
      if (!local.has(p.model)) items.push({ model: p.model, in: p.in, out: p.out, unit: 'usd_per_1m_tokens', source: 'list', updated_at: p.updated_at });
    }
    return { items, refreshed_at: await this.d.store.refreshedAt(), source_url: this.d.pricingModelsUrl };
  }

  /**
   * Fetch PRICING_MODELS_URL and replace the refreshed list.
   * @throws DomainError `pricing_url_missing` (no URL set), `url_not_allowed` (the URL reaches the
   *   workstation itself, issue 11 item 8), `pricing_refresh_failed`.
   */
  async refresh(): Promise<PriceRefresh> {
    const url = this.d.pricingModelsUrl;
    if (!url) throw new DomainError<ObservabilityErrorCode>('pricing_url_missing', 'no pricing list is configured; set PRICING_MODELS_URL (local prices come from OBS_LOCAL_PRICE_JSON)');
    const list = await this.d.source.fetch(url, this.d.pricingTimeoutMs);
    const at = new Date().toISOString();
    const updated = await this.d.store.replace(list, at, url);
    await this.reload();
    return { updated, refreshed_at: at, source_url: url };
  }
}
