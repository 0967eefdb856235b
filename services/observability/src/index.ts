/**
 * Observability service entry (spec "Services": observability, port 8009; "Observability";
 * "Other resources": generation record).
 *
 * `start(cfg)` opens `<dbDir>/observability.sqlite`, listens on `cfg.host:cfg.port` (0 = ephemeral)
 * and returns the bound port with `close()` (drains HTTP, then closes the store).
 */
import { listenBuilt } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildObservabilityApp } from './app.js';
import type { ObservabilityConfig } from './contracts.js';

/**
 * Start the observability service. Settings missing from `cfg` (e.g. a plain slice in tests) take
 * their defaults: no local prices, no pricing URL, 10 s fetch timeout, 7-day trace retention.
 */
export async function start(cfg: ObservabilityConfig): Promise<RunningService> {
  const full: ObservabilityConfig = {
    ...cfg,
    localPrices: cfg.localPrices ?? {}, pricingModelsUrl: cfg.pricingModelsUrl ?? null,
    pricingTimeoutMs: cfg.pricingTimeoutMs ?? 10_000, traceRetentionDays: cfg.traceRetentionDays ?? 7,
  };
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const built = buildObservabilityApp(full, { logger });
  return listenBuilt(built, cfg, logger);
}
