/**
 * Observability service entry (spec "Services": observability, port 8009; "Observability";
 * "Other resources": generation record).
 *
 * `start(cfg, runtime?)` opens `<dbDir>/observability.sqlite`, listens on `cfg.host:cfg.port`
 * (0 = ephemeral) and returns the bound port with `close()` (drains HTTP, writes queued spans, then
 * closes the store).
 * @throws Error when the store cannot be opened or the port is taken.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { observabilityService } from './app.js';

/** Start the observability service (see the file header for what it opens and closes). */
export const start = serviceStart(observabilityService);
