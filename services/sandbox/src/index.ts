/**
 * The code sandbox service (spec "Services": sandbox, port 8006; "Code sandbox", the sandbox rows of
 * "Limits", "Sandbox backends"; issue 12): `start(cfg, runtime)` probes the Docker engine, removes
 * containers a previous process left, and listens on `cfg.host:cfg.port`; `close()` drains HTTP and
 * removes every session and warm container.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { sandboxService } from './app.js';

export type { SandboxRuntime } from './app.js';

/** Start the sandbox service. @throws Error when the port is taken or the backend is not `docker`. */
export const start = serviceStart(sandboxService);
