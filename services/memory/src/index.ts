/**
 * Memory service entry (spec "Services": memory, port 8003; "Memory"; `memory_op` events).
 *
 * `start(cfg)` opens `<dbDir>/memory.sqlite`, starts the embedder (its own worker thread; with no
 * model, recall is keyword-only) and the consolidation timer, and listens on `cfg.host:cfg.port`.
 */
import { listenBuilt } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildMemoryApp } from './app.js';
import type { MemoryConfig } from './contracts.js';

/** Start the memory service. @throws Error when the store cannot be opened. */
export async function start(cfg: MemoryConfig): Promise<RunningService> {
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const built = buildMemoryApp(cfg, { logger });
  const running = await listenBuilt(built, cfg, logger);
  built.startTimers();
  return running;
}
