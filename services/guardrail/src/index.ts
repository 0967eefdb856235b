/**
 * Guardrail service entry (spec "Services": guardrail, port 8002; "Guardrail"; "Turn events"
 * guardrail_verdict; "Audit actions" guardrail.input.blocked).
 *
 * `start(cfg)` opens `<dbDir>/guardrail.sqlite`, listens on `cfg.host:cfg.port` (0 = ephemeral) and
 * serves the checks, policy and de-identification routes. `close()` drains HTTP, delivers pending
 * turn events and closes the store.
 */
import type { CommonServiceConfig } from '../../shared/config.js';
import { listenService } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildGuardApp } from './app.js';
import { DEFAULT_GUARDRAIL_SETTINGS, type GuardrailConfig, type GuardrailSettings } from './contracts.js';

/** Start the guardrail service. Settings missing from `cfg` take their defaults. */
export async function start(cfg: CommonServiceConfig & Partial<GuardrailSettings>): Promise<RunningService> {
  const full: GuardrailConfig = { ...DEFAULT_GUARDRAIL_SETTINGS, ...cfg };
  const logger = createLogger(full.service, full.logLevel, full.logDir);
  const built = buildGuardApp(full, logger);
  try {
    return await listenService(built.app, full.host, full.port, async () => {
      await built.close();
      await new Promise<void>((resolve) => { logger.flush(() => resolve()); });
    });
  } catch (err) {
    await built.close();
    throw err;
  }
}
