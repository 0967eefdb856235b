/**
 * Knowledge service entry (spec "Services": knowledge, port 8007; "Knowledge", visibility table,
 * "Limits", "Knowledge defaults", `rag_chunks_retrieved` events).
 *
 * `start(cfg)` opens `<dbDir>/knowledge.sqlite`, starts the embedder (its own worker thread; with no
 * model, dense retrieval is off and BM25 carries on) and listens on `cfg.host:cfg.port`.
 * `close()` drains HTTP, stops background embedding, flushes turn events and closes the store.
 */
import { listenBuilt } from '../../shared/http/listen.js';
import { createLogger } from '../../shared/log.js';
import type { RunningService } from '../../shared/runtime.js';
import { buildKnowledgeApp } from './app.js';
import type { KnowledgeConfig } from './contracts.js';

/** Start the knowledge service. @throws Error when the store cannot be opened. */
export async function start(cfg: KnowledgeConfig): Promise<RunningService> {
  const logger = createLogger(cfg.service, cfg.logLevel, cfg.logDir);
  const built = buildKnowledgeApp(cfg, { logger });
  return listenBuilt(built, cfg, logger);
}
