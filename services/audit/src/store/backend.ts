/**
 * The audit store facade both engines satisfy (issue 21 item 1): every table group behind its
 * (possibly async) port, the writer that fits the engine, readiness and close. `app.ts` opens
 * `sqliteAuditBackend(AuditStore.open(...))` or `openPgAuditStore(...)` (store/pg/audit-store.ts)
 * and wires the domain the same way over either.
 */
import type { AsyncPort } from '../domain/async-ports.js';
import type { AuditLogReads } from '../domain/audit-log.js';
import { ChainWriter } from '../domain/chain-writer.js';
import type { CheckpointStore } from '../domain/checkpoints.js';
import type { EgressCursorStore } from '../domain/egress-shipper.js';
import type { EgressStatsPort } from '../domain/egress-stats.js';
import type { KeyProvider } from '../domain/keys.js';
import type { ArtifactStore, AuditLogStore, EnvelopeStore, TurnEventStore, TurnStore } from '../domain/ports.js';
import type { EnvelopeSignatureStore } from '../domain/receipt-signing.js';
import type { AuditWriter } from '../domain/writer.js';
import type { AuditStore } from './audit-store.js';
import { SqliteEgressCursor, SqliteEgressStats } from './egress-cursor.js';
import { SqliteCheckpointStore, SqliteEnvelopeSignatureStore } from './receipt-signatures.js';

/** Every audit table group and the engine's writer (SQLite: sync answers; PostgreSQL: promises). */
export interface AuditBackend {
  readonly engine: 'sqlite' | 'postgres';
  readonly log: AuditLogReads & AsyncPort<Pick<AuditLogStore, 'lastRow' | 'suffixFrom'>>;
  readonly turns: AsyncPort<TurnStore>;
  readonly events: AsyncPort<TurnEventStore>;
  readonly envelopes: AsyncPort<EnvelopeStore>;
  readonly artifacts: AsyncPort<ArtifactStore>;
  readonly signatures: AsyncPort<EnvelopeSignatureStore>;
  readonly checkpoints: AsyncPort<CheckpointStore>;
  readonly egressCursor: EgressCursorStore;
  readonly egressStats: EgressStatsPort;
  /** The single writer over this store (SQLite `ChainWriter`, PostgreSQL `AsyncChainWriter`). */
  writer(keys: KeyProvider): AuditWriter;
  /** Readiness: the database answers. */
  ready(): Promise<boolean>;
  /** Close the database (idempotent). */
  close(): void | Promise<void>;
}

/** The SQLite facade over an open `AuditStore` (`<dbDir>/audit.sqlite`). */
export function sqliteAuditBackend(store: AuditStore): AuditBackend {
  return {
    engine: 'sqlite', log: store.log, turns: store.turns, events: store.events, envelopes: store.envelopes, artifacts: store.artifacts,
    signatures: new SqliteEnvelopeSignatureStore(store.db), checkpoints: new SqliteCheckpointStore(store.db),
    egressCursor: new SqliteEgressCursor(store.db), egressStats: new SqliteEgressStats(store.db),
    writer: (keys) => new ChainWriter(store, keys),
    ready: () => Promise.resolve(store.isOpen()),
    close: () => store.close(),
  };
}
