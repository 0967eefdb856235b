/**
 * Memory service entry (spec "Services": memory, port 8003; "Memory"; `memory_op` events).
 *
 * `start(cfg, runtime?)` opens `<dbDir>/memory.sqlite`, starts the embedder (its own worker thread;
 * with no model, recall is keyword-only) and the consolidation timer, and listens on
 * `cfg.host:cfg.port`. @throws Error when the store cannot be opened.
 */
import { serviceStart } from '../../shared/kit/service.js';
import { memoryService } from './app.js';

export { memoryService, type MemoryRuntime } from './app.js';

/** Start the memory service. */
export const start = serviceStart(memoryService);
