/**
 * `start(cfg)` for a service whose routes are not built yet: the shared server with `/healthz`,
 * `/readyz`, `/metrics` and a 404 `{error, code: "not_found"}` for everything else. It pretends
 * nothing: every other route answers 404 until the issue that owns it lands.
 */
import type { CommonServiceConfig } from '../config.js';
import { createLogger } from '../log.js';
import type { RunningService } from '../runtime.js';
import { buildServer } from './server.js';
import { listenService } from './listen.js';

/** Start a service that only answers its health, readiness and metrics routes. */
export async function startBasicService(cfg: CommonServiceConfig): Promise<RunningService> {
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const { app } = buildServer({ name: cfg.service, logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys });
  return listenService(app, cfg.host, cfg.port, () => logger.flush());
}
