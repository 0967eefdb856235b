/**
 * Agent runtime service entry (spec "Services": agent runtime, port 8001; issue 5: chat, SSE,
 * sessions and folders, tool loop with approvals, turn events and capture, live replay).
 *
 * `start(cfg, hooks?)` opens `<dbDir>/agent-runtime.sqlite`, builds the app (app.ts) and listens on
 * `cfg.host:cfg.port` (0 = ephemeral). `close()` cancels parked approvals, drains HTTP, delivers
 * queued turn events and closes the store.
 */
import { listenBuilt } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildRuntimeApp, type AgentRuntimeHooks } from './app.js';
import type { AgentRuntimeConfig } from './contracts.js';

/**
 * Start the agent runtime.
 * @param cfg the runtime's config slice (main/config + main/config/services/agent-runtime.ts); unset settings take defaults.
 * @param hooks optional host hooks (extra tools, plug-in sources); a supervisor's ServiceRuntime is accepted and ignored.
 * @returns the bound port and `close()`.
 * @throws Error when the store cannot be opened or the port is taken.
 */
export async function start(cfg: AgentRuntimeConfig, hooks: AgentRuntimeHooks = {}): Promise<RunningService> {
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const built = await buildRuntimeApp(cfg, logger, hooks);
  return listenBuilt(built, cfg, logger);
}
