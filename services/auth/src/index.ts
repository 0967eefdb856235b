/**
 * The auth service (spec: "Public auth surface", port 8012): `start(cfg, runtime)` listens on
 * `cfg.host:cfg.port` and returns `{port, close}` (DESIGN.md "Inside a service").
 */
import { serviceStart } from '../../shared/kit/service.js';
import { authService } from './app.js';

/** Start the auth service. @throws Error when the store or the signing key file is unusable, or the port is taken. */
export const start = serviceStart(authService);
