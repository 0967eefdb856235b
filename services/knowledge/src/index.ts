/**
 * The knowledge service (spec "Services": knowledge, port 8007; "Knowledge", visibility table,
 * "Limits", "Knowledge defaults", `rag_chunks_retrieved` events): `start(cfg, runtime)` opens
 * `<dbDir>/knowledge.sqlite`, starts the embedder and listens on `cfg.host:cfg.port`; `close()`
 * drains HTTP, stops background embedding, flushes turn events and closes the store.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { knowledgeService } from './app.js';

/** Start the knowledge service. @throws Error when the store cannot be opened, or the port is taken. */
export const start = serviceStart(knowledgeService);
