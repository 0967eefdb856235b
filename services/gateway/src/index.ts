/**
 * Gateway entry: `start(cfg, runtime)` builds the gateway and listens (spec: Gateway, port 8080).
 */
import type { GatewayConfig } from '../../shared/config.js';
import { listenService } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService, ServiceRuntime } from '../../shared/runtime.js';
import { buildGateway } from './app.js';

/**
 * Start the gateway on `cfg.host:cfg.port`.
 * @returns the bound port and `close()` (drains turn events to audit, closes upstream pools).
 */
export async function start(cfg: GatewayConfig, runtime: ServiceRuntime = {}): Promise<RunningService> {
  const logger = createLogger('gateway', cfg.logLevel, cfg.logDir);
  const { app, shutdown } = await buildGateway({ cfg, logger, runtime });
  return listenService(app, cfg.host, cfg.port, async () => {
    await shutdown();
    logger.flush();
  });
}
