/**
 * Environment settings of the observability service, merged into its config slice by main/config.
 * It returns `ObservabilitySettings` (services/observability/src/contracts.ts); the defaults live here only.
 *
 * - `OBS_LOCAL_PRICE_JSON`: `{"model": {"in": 0.15, "out": 0.6}}`, USD per 1,000,000 tokens (DESIGN.md)
 * - `PRICING_MODELS_URL`: external price list for `POST /v1/prices/refresh` (unset: refresh answers 409)
 * - `OBS_PRICING_TIMEOUT_MS` (default 10000), `OBS_TRACE_RETENTION_DAYS` (default 7)
 */
import type { ObservabilitySettings } from '../../../services/observability/src/contracts.js';
import { validateLocalPrices } from '../../../services/observability/src/contracts/local-prices.js';
import { ConfigError, int, str } from '../env.js';
import type { ExtrasContext, Env } from './types.js';

/**
 * Read the observability settings from `env`.
 * @throws ConfigError naming the variable to set.
 */
export function observabilitySettings(env: Env, _ctx: ExtrasContext): ObservabilitySettings {
  let localPrices: ObservabilitySettings['localPrices'] = {};
  const raw = str(env, 'OBS_LOCAL_PRICE_JSON');
  if (raw) {
    let parsed: unknown;
    try { parsed = JSON.parse(raw); } catch { throw new ConfigError('OBS_LOCAL_PRICE_JSON must be JSON like {"model": {"in": 0.15, "out": 0.6}} (USD per 1M tokens)'); }
    try { localPrices = validateLocalPrices(parsed); } catch (err) { throw new ConfigError(`OBS_LOCAL_PRICE_JSON: ${(err as Error).message}`); }
  }
  const url = str(env, 'PRICING_MODELS_URL') || null;
  if (url !== null) {
    let u: URL;
    try { u = new URL(url); } catch { throw new ConfigError(`PRICING_MODELS_URL must be an http(s) URL, got "${url}"`); }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError('PRICING_MODELS_URL must be an http(s) URL');
  }
  return {
    localPrices,
    pricingModelsUrl: url,
    pricingTimeoutMs: int(env, 'OBS_PRICING_TIMEOUT_MS', 10_000, 100, 600_000),
    traceRetentionDays: int(env, 'OBS_TRACE_RETENTION_DAYS', 7, 1, 3650),
  };
}
