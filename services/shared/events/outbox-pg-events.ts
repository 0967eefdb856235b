/**
 * A service's durable turn-event publisher on PostgreSQL (issue 21 item 1): `durableTurnEvents`
 * (outbox.ts) with the outbox in the service's schema (outbox-pg.ts) instead of
 * `<dbDir>/<service>-outbox.sqlite`. The gateway and the agent runtime pick it when `cfg.database`
 * is set. Same client, bounds and transports; rows a dead instance of the same service left are
 * claimed and sent by this one.
 */
import type { CommonServiceConfig } from '../config.js';
import type { PgSettings } from '../db/pg/settings.js';
import { OUTBOX_MAX_AGE_MS, OUTBOX_MAX_EVENTS, type OutboxLog, type OutboxSeams } from './outbox.js';
import { openPgOutbox, type PgOutboxOptions } from './outbox-pg.js';
import { TurnEventClient } from './turn-events.js';

/**
 * Open `service`'s outbox in `database`'s schema and a turn-event client over it. The pool is
 * ended by the closer registered with `onClose` (registered first, so it runs after the caller's
 * own `shutdown` closer, which the kit runs in reverse order).
 * @throws Error when the database cannot be reached or the outbox migration fails.
 */
export async function durablePgTurnEvents(
  database: PgSettings,
  cfg: Pick<CommonServiceConfig, 'migrationsDir' | 'serviceUrls' | 'tenantId' | 'principalKeys' | 'useGrpc' | 'grpcUrls'>,
  service: string, log: OutboxLog, seams: OutboxSeams, onClose: (fn: () => Promise<void>) => void,
  outboxOptions: PgOutboxOptions = {},
): Promise<TurnEventClient> {
  let client: TurnEventClient | null = null;
  const outbox = await openPgOutbox(database, cfg.migrationsDir, {
    onError: (err, what) => log.error({ err: err.message, what }, 'turn outbox (postgres) operation failed; retrying'),
    onAdopt: (n) => { log.info({ adopted: n }, 'delivering turn events a stopped instance left in the outbox'); void client?.flush(); },
    ...outboxOptions,
  });
  onClose(() => outbox.closeAsync());
  client = new TurnEventClient({
    service, auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys, queue: outbox,
    maxQueue: OUTBOX_MAX_EVENTS, maxAgeMs: OUTBOX_MAX_AGE_MS,
    auditGrpc: cfg.useGrpc === false ? null : cfg.grpcUrls?.audit ?? null,
    ...(seams.onBatch ? { onBatch: seams.onBatch } : {}),
    ...(seams.batchDelayMs !== undefined ? { batchDelayMs: seams.batchDelayMs } : {}),
    onLoss: (n, reason) => log.error({ lost: n, reason }, 'turn events lost'),
    onResume: (n) => log.info({ pending: n }, 'delivering turn events a previous run left in the outbox'),
  });
  return client;
}
