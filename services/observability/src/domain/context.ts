/**
 * What the observability routes share: the store, the prices in force and budget evaluation.
 */
import type { BudgetStatus, GenerationInput, GenerationRecord, ModelPrice, ObservabilityConfig } from '../contracts.js';
import type { ObsStore } from '../store/obs-store.js';
import { budgetState, costUsd, lookupPrice, periodStart } from './prices.js';

/** Shared state of the routes. */
export class ObsContext {
  /** Refreshed list, cached in memory (model -> price). */
  private list = new Map<string, ModelPrice>();

  constructor(readonly cfg: ObservabilityConfig, readonly store: ObsStore) {
    this.reloadList();
  }

  /** Re-read the refreshed list from the store. */
  reloadList(): void {
    this.list = new Map(this.store.prices().map((p) => [p.model, { in: p.in, out: p.out }]));
  }

  /**
   * Turn an ingested record into a stored one: tenant pinned, created_at normalised, cost from
   * OBS_LOCAL_PRICE_JSON, then the refreshed list, else the caller's figure, else null.
   */
  price(input: GenerationInput): GenerationRecord {
    const { cost_usd: callerCost, ...rest } = input;
    const found = lookupPrice(input.model, input.provider_name, this.cfg.localPrices, (m) => this.list.get(m));
    let cost: number | null = null;
    let source: GenerationRecord['price_source'] = null;
    if (found) { cost = costUsd(found.price, input.prompt_tokens, input.completion_tokens); source = found.source; }
    else if (typeof callerCost === 'number') { cost = callerCost; source = 'caller'; }
    return {
      ...rest, tenant_id: this.cfg.tenantId, created_at: new Date(input.created_at).toISOString(),
      cost_usd: cost, price_source: source, ingested_at: new Date().toISOString(),
    };
  }

  /** Budget of `tenantId` with the spend of its current period; a tenant with none is `ok` with no limits. */
  budgetStatus(tenantId: string, now: Date = new Date()): BudgetStatus {
    const b = this.store.budget(tenantId);
    const period = b?.period ?? 'month';
    const start = periodStart(period, now);
    const spend = Math.round(this.store.spend(tenantId, start) * 1e9) / 1e9;
    const soft = b?.soft_limit_usd ?? null; const hard = b?.hard_limit_usd ?? null;
    return {
      tenant_id: tenantId, period, soft_limit_usd: soft, hard_limit_usd: hard, period_start: start, spend_usd: spend,
      state: budgetState(spend, soft, hard), updated_at: b?.updated_at ?? null, updated_by: b?.updated_by ?? null,
    };
  }
}
