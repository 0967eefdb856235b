/**
 * The check of `OBS_LOCAL_PRICE_JSON` (DESIGN.md: USD per 1,000,000 tokens), in its own contracts
 * file with no schema library, so main/config can read the variable without loading TypeBox into
 * the supervisor's thread.
 */
import type { ModelPrice } from '../contracts.js';

/**
 * Validate OBS_LOCAL_PRICE_JSON's parsed value: `{model: {in, out}}`, non-negative numbers
 * (main/config reads the variable with it).
 * @throws Error naming the bad entry.
 */
export function validateLocalPrices(doc: unknown): Record<string, ModelPrice> {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('must be a JSON object keyed by model name');
  const out: Record<string, ModelPrice> = {};
  for (const [model, v] of Object.entries(doc as Record<string, unknown>)) {
    const e = v as { in?: unknown; out?: unknown } | null;
    if (!e || typeof e.in !== 'number' || typeof e.out !== 'number' || !(e.in >= 0) || !(e.out >= 0)) {
      throw new Error(`entry "${model}" must be {"in": number >= 0, "out": number >= 0} (USD per 1M tokens)`);
    }
    out[model] = { in: e.in, out: e.out };
  }
  return out;
}
