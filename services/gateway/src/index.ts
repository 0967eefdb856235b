/**
 * Gateway entry (spec: Gateway, port 8080): `start(cfg, runtime)` builds the gateway with the
 * service kit and listens on `cfg.host:cfg.port`. `close()` drains requests, then the turn events
 * to audit, then closes the upstream pools and the Redis client.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { gatewayService } from './app.js';

/** Start the gateway. @returns the bound port and `close()`. */
export const start = serviceStart(gatewayService);
