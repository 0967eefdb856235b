/**
 * The audit service's SQLite store (`<dbDir>/audit.sqlite`, migrations `migrations/audit/`): the
 * only code of the service that opens the database (DESIGN.md "Inside a service"). Opens the file
 * (WAL, synchronous=NORMAL) and hands out one implementation per table group behind the
 * `domain/ports.ts` interfaces; every write runs inside `tx.transaction()` driven by the domain's
 * single writer.
 */
import type Database from 'better-sqlite3';
import { openDb, type Db } from '../../../shared/db/open.js';
import type {
  ArtifactStore, AuditLogStore, AuditPorts, EnvelopeStore, TurnEventStore, TurnStore, WriteTransactions,
} from '../domain/ports.js';
import { SqliteArtifactStore } from './artifacts.js';
import { SqliteAuditLogStore } from './audit-log.js';
import { SqliteEnvelopeStore, SqliteTurnEventStore, SqliteTurnStore } from './turns.js';

/** The audit store: every table group, the writer's transactions, and close. */
export class AuditStore implements AuditPorts {
  readonly tx: WriteTransactions;
  readonly log: AuditLogStore;
  readonly turns: TurnStore;
  readonly events: TurnEventStore;
  readonly envelopes: EnvelopeStore;
  readonly artifacts: ArtifactStore;

  /** @param db the open connection; raw access is for tests and benches (tamper checks, plain inserts). */
  private constructor(readonly db: Db) {
    const savepoint = db.prepare('SAVEPOINT audit_job');
    const release = db.prepare('RELEASE audit_job');
    const rollbackTo = db.prepare('ROLLBACK TO audit_job');
    this.tx = {
      transaction: <T>(fn: () => T): T => db.transaction(fn)(),
      savepoint: () => { savepoint.run(); },
      release: () => { release.run(); },
      rollbackToSavepoint: () => { rollbackTo.run(); release.run(); },
    };
    this.log = new SqliteAuditLogStore(db);
    this.turns = new SqliteTurnStore(db);
    this.events = new SqliteTurnEventStore(db);
    this.envelopes = new SqliteEnvelopeStore(db);
    this.artifacts = new SqliteArtifactStore(db);
  }

  /**
   * Open (creating and migrating) `<dbDir>/audit.sqlite`. WAL, synchronous=NORMAL.
   * @throws Error when the schema is newer than this build or the file cannot be opened.
   */
  static open(dbDir: string, migrationsDir: string): AuditStore {
    return new AuditStore(openDb({ dbDir, store: 'audit', migrationsDir, vec: false }));
  }

  /** Whether the connection is open (readiness). */
  isOpen(): boolean {
    return this.db.open;
  }

  /** Close the connection (checkpoints the WAL; idempotent). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Re-exported for tests that need raw access to the file (tamper tests). */
export type { Database };
