/**
 * Prices and costs (spec "Observability": OBS_LOCAL_PRICE_JSON, PRICING_MODELS_URL; DESIGN.md: USD per
 * 1,000,000 tokens): parsing an external list, pricing a call, budget periods and states. Pure code.
 */
import type { BudgetPeriod, ModelPrice } from '../contracts.js';

export { validateLocalPrices } from '../contracts.js';

/**
 * Parse an external price list into USD per 1M tokens. Accepted shapes (the two lists in common use):
 * - LiteLLM `model_prices_and_context_window.json`: `{model: {input_cost_per_token, output_cost_per_token}}`
 *   (USD per token);
 * - OpenRouter `/api/v1/models`: `{data: [{id, pricing: {prompt, completion}}]}` (USD per token, as strings);
 * - our own form: `{model: {in, out}}` (USD per 1M tokens).
 * Entries without both numbers are skipped.
 * @throws Error when the document is none of these.
 */
export function parsePriceList(doc: unknown): Record<string, ModelPrice> {
  const out: Record<string, ModelPrice> = {};
  const num = (v: unknown): number | null => {
    const n = typeof v === 'string' ? Number(v) : v;
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
  };
  if (doc && typeof doc === 'object' && Array.isArray((doc as { data?: unknown }).data)) {
    for (const m of (doc as { data: Array<{ id?: unknown; pricing?: { prompt?: unknown; completion?: unknown } }> }).data) {
      const i = num(m?.pricing?.prompt); const o = num(m?.pricing?.completion);
      if (typeof m?.id === 'string' && i !== null && o !== null) out[m.id] = { in: round(i * 1e6), out: round(o * 1e6) };
    }
    return out;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('price list is not a JSON object');
  for (const [model, v] of Object.entries(doc as Record<string, unknown>)) {
    if (!v || typeof v !== 'object') continue;
    const e = v as Record<string, unknown>;
    const pi = num(e.input_cost_per_token); const po = num(e.output_cost_per_token);
    if (pi !== null && po !== null) { out[model] = { in: round(pi * 1e6), out: round(po * 1e6) }; continue; }
    const i = num(e.in); const o = num(e.out);
    if (i !== null && o !== null) out[model] = { in: i, out: o };
  }
  return out;
}

function round(n: number): number { return Math.round(n * 1e9) / 1e9; }

/** Cost in USD of a call: tokens times USD-per-1M prices. */
export function costUsd(price: ModelPrice, promptTokens: number, completionTokens: number): number {
  return round((promptTokens * price.in + completionTokens * price.out) / 1e6);
}

/**
 * Find the price of `model`: local prices first (operator-defined), then the refreshed list; each
 * tried with the exact name, then `provider/model`, then the part after the last `/`.
 */
export function lookupPrice(
  model: string, providerName: string, local: Record<string, ModelPrice>, list: (m: string) => ModelPrice | undefined,
): { price: ModelPrice; source: 'local' | 'list' } | null {
  const names = [model, `${providerName}/${model}`];
  const slash = model.lastIndexOf('/');
  if (slash >= 0) names.push(model.slice(slash + 1));
  for (const n of names) { const p = local[n]; if (p) return { price: p, source: 'local' }; }
  for (const n of names) { const p = list(n); if (p) return { price: p, source: 'list' }; }
  return null;
}

/** Start of the current budget period (UTC), as an RFC 3339 string. */
export function periodStart(period: BudgetPeriod, now: Date = new Date()): string {
  const d = period === 'day'
    ? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
    : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return new Date(d).toISOString();
}

/** Budget state for a spend. Hard wins over soft; a limit of null is off. */
export function budgetState(spend: number, soft: number | null, hard: number | null): 'ok' | 'soft_exceeded' | 'hard_exceeded' {
  if (hard !== null && spend >= hard) return 'hard_exceeded';
  if (soft !== null && spend >= soft) return 'soft_exceeded';
  return 'ok';
}
