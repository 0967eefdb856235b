/**
 * A service's durable turn-event publisher (issue 11 item 7): the turn-event client over the
 * service's outbox (`<dbDir>/<service>-outbox.sqlite`, outbox-store.ts). Used by the gateway and
 * the agent runtime, whose events must outlive a crash: an event is on disk when `emit` returns,
 * before the answer it describes completes, and a restarted service delivers what the killed one
 * left, so an answered turn still seals `completed`.
 *
 * Bounds: at most `OUTBOX_MAX_EVENTS` events and `OUTBOX_MAX_AGE_MS` of age wait for audit; beyond
 * that the oldest are dropped with an error log (`turn events lost`), and their turns seal by the
 * watermark as `failed`, as they did before the outbox.
 */
import type { CommonServiceConfig } from '../config.js';
import { openTurnOutbox } from './outbox-store.js';
import { TurnEventClient } from './turn-events.js';

/** Most events an outbox holds while audit is unreachable (the in-memory queue's old bound). */
export const OUTBOX_MAX_EVENTS = 200_000;

/**
 * Oldest event an outbox still sends, ms (24 h). Audit seals a turn by the watermark (300 s by
 * default) and then refuses its late events, so older events would only be refused.
 */
export const OUTBOX_MAX_AGE_MS = 24 * 3600 * 1000;

/** The log lines of the publisher (the service's pino logger fits). */
export interface OutboxLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Test seams of `durableTurnEvents`. */
export interface OutboxSeams {
  /** How long a new event waits to share a POST, ms (default 20). */
  batchDelayMs?: number;
  /** Told the transport of each delivered batch (issue 20). */
  onBatch?: (transport: 'grpc' | 'http', events: number) => void;
}

/**
 * Open `service`'s outbox and a turn-event client over it, delivering at once whatever a previous
 * process left. Stop it with `shutdown(ms)` (drain, then close the database).
 * @throws Error when the outbox database cannot be opened or migrated.
 */
export function durableTurnEvents(
  cfg: Pick<CommonServiceConfig, 'dbDir' | 'migrationsDir' | 'serviceUrls' | 'tenantId' | 'principalKeys' | 'useGrpc' | 'grpcUrls'>,
  service: string, log: OutboxLog, seams: OutboxSeams = {},
): TurnEventClient {
  const queue = openTurnOutbox({ dbDir: cfg.dbDir, migrationsDir: cfg.migrationsDir, service });
  return new TurnEventClient({
    service, auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, queue,
    maxQueue: OUTBOX_MAX_EVENTS, maxAgeMs: OUTBOX_MAX_AGE_MS,
    // Issue 20 item 3: over audit's gRPC stream when USE_GRPC and audit runs one, HTTP otherwise.
    auditGrpc: cfg.useGrpc === false ? null : cfg.grpcUrls?.audit ?? null,
    ...(seams.onBatch ? { onBatch: seams.onBatch } : {}),
    ...(seams.batchDelayMs !== undefined ? { batchDelayMs: seams.batchDelayMs } : {}),
    onLoss: (n, reason) => log.error({ lost: n, reason }, 'turn events lost'),
    onResume: (n) => log.info({ pending: n }, 'delivering turn events a previous run left in the outbox'),
  });
}
