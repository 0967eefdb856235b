/**
 * Guardrail service entry (spec "Services": guardrail, port 8002; "Guardrail"; "Turn events"
 * guardrail_verdict; "Audit actions" guardrail.input.blocked).
 *
 * `start(cfg, runtime?)` opens `<dbDir>/guardrail.sqlite`, listens on `cfg.host:cfg.port`
 * (0 = ephemeral) and serves the checks, policy and de-identification routes. `close()` drains HTTP,
 * delivers pending turn events and closes the store. `cfg` is complete (main/config fills defaults).
 */
import { serviceStart } from '../../shared/kit/service.js';
import { guardrailService } from './app.js';

export { guardrailService, type GuardrailRuntime } from './app.js';

/** Start the guardrail service. @throws Error when the store cannot be opened or the port is taken. */
export const start = serviceStart(guardrailService);
