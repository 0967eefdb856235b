/**
 * What every memory use case receives (the ports, the dense index, the settings), and the
 * `memory_op` turn event they emit (spec "Events": subtypes memory_write, memory_recall,
 * memory_forget; ids, counts and scope, never content).
 */
import type { MemorySettings } from '../contracts.js';
import type { DenseIndex } from './dense.js';
import type { AsyncTransactor, EventSink, HistoryRepository, MemoryRepository, MemoryRole, VectorRepository } from './ports.js';
import type { Caller } from './scopes.js';

/** Dependencies of the memory use cases. */
export interface MemoryDeps {
  memories: MemoryRepository;
  vectors: VectorRepository;
  history: HistoryRepository;
  /** The store's transaction (`store.txAsync`): each atomic group of writes. */
  tx: AsyncTransactor;
  dense: DenseIndex;
  role: MemoryRole;
  /** Null when turn events are off (tests). */
  events: EventSink | null;
  settings: Pick<MemorySettings, 'prefetchTokenBudget' | 'duplicateSimilarity'>;
}

/** memory_op subtypes (spec "Events"). */
export type MemoryOpSubtype = 'memory_write' | 'memory_recall' | 'memory_forget';

/** How long a use case waits for its turn event to land, ms. */
const EVENT_DELIVERY_MS = 1500;

/** Emit a `memory_op` event for the caller's turn (none without a turn) and wait for it to land. */
export async function emitMemoryOp(d: Pick<MemoryDeps, 'events'>, c: Caller, subtype: MemoryOpSubtype, payload: Record<string, unknown>): Promise<void> {
  if (!c.turnId || !d.events) return;
  d.events.emit(c.turnId, c.principal.id, 'memory_op', { subtype, ...payload });
  await d.events.deliver(EVENT_DELIVERY_MS);
}
