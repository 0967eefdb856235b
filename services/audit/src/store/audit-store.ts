/**
 * The audit service's SQLite store: the only code of the service that touches SQLite
 * (DESIGN.md "Inside a service"). Prepared statements are built once; every write runs inside
 * `transaction()` driven by the domain's single writer.
 *
 * Tables (migrations/audit/0001_init.sql): audit_log, chain_head (both append-only by trigger),
 * turns (receipt state), turn_events, envelopes (append-only), artifacts.
 */
import type Database from 'better-sqlite3';
import { openDb, type Db } from '../../../shared/db/open.js';

/** A stored audit row (spec "Audit log row"); JSON columns are still text. */
export interface AuditRowRecord {
  id: number;
  tenant_id: string;
  seq: number;
  timestamp: string;
  user_id: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
  detail_type: string | null;
  /** JSON text. */
  detail: string;
  previous_hash: string;
  signed_payload: string;
  signature: string;
  key_version: string;
  agent_id: string | null;
  /** JSON text or null. */
  agent_chain: string | null;
  delegated_by: string | null;
}

/** A chain-head checkpoint row (spec "Audit log row", second record). */
export interface ChainHeadRecord {
  tenant_id: string;
  seq: number;
  audit_log_id: number;
  signature: string;
  previous_hash: string;
  chain_hash: string;
  key_version: string;
}

/** An audit row joined with its checkpoint (null columns when the checkpoint is missing). */
export interface RowWithHead extends AuditRowRecord {
  h_audit_log_id: number | null;
  h_signature: string | null;
  h_previous_hash: string | null;
  h_chain_hash: string | null;
}

/** A stored turn event (leaf fields plus arrival time, ms). */
export interface TurnEventRecord {
  tenant_id: string;
  turn_id: string;
  event_id: string;
  principal_id: string;
  emitter_service: string;
  emitter_instance: string | null;
  occurred_at: string;
  sequence_in_service: number;
  payload_type: string;
  payload_json: string;
  received_ms: number;
}

/** A turn row: receipt state of one turn. */
export interface TurnRecord {
  tenant_id: string;
  turn_id: string;
  receipt_id: string;
  principal_id: string;
  created_ms: number;
  terminal: string | null;
  status: 'pending' | 'sealed' | 'verified';
  sealed_at: string | null;
  sealed_seq: number | null;
  verified_at: string | null;
  verified_by: string | null;
}

/** A stored envelope (payload as JCS text). */
export interface EnvelopeRow {
  tenant_id: string;
  turn_id: string;
  payload: string;
  signature: string;
  key_version: string;
  audit_log_id: number;
  audit_seq: number;
  audit_previous_hash: string;
  audit_signature: string;
  audit_chain_hash: string;
  sealed_at: string;
}

/** Artifact metadata row. */
export interface ArtifactRecord {
  tenant_id: string;
  turn_id: string;
  event_id: string;
  kind: string;
  sha256: string;
  size: number;
  content_type: string;
  created_at: string;
}

/** Filters of the admin listing. */
export interface ListFilter { tenantId: string; userId?: string; action?: string; limit: number; offset: number }

/** The audit store. Construct with `AuditStore.open()`; `close()` when done. */
export class AuditStore {
  private readonly s: ReturnType<AuditStore['prepare']>;

  private constructor(readonly db: Db) {
    this.s = this.prepare();
  }

  /**
   * Open (creating and migrating) `<dbDir>/audit.sqlite`. WAL, synchronous=NORMAL.
   * @throws Error when the schema is newer than this build or the file cannot be opened.
   */
  static open(dbDir: string, migrationsDir: string): AuditStore {
    return new AuditStore(openDb({ dbDir, store: 'audit', migrationsDir, vec: false }));
  }

  private prepare() {
    const d = this.db;
    return {
      maxId: d.prepare('SELECT max(id) AS m FROM audit_log').pluck(),
      savepoint: d.prepare('SAVEPOINT audit_job'),
      release: d.prepare('RELEASE audit_job'),
      rollbackTo: d.prepare('ROLLBACK TO audit_job'),
      lastRow: d.prepare('SELECT * FROM audit_log WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1'),
      insertRow: d.prepare(`INSERT INTO audit_log (id, tenant_id, seq, timestamp, user_id, action, resource_type, resource_id, detail_type,
        detail, previous_hash, signed_payload, signature, key_version, agent_id, agent_chain, delegated_by)
        VALUES (@id, @tenant_id, @seq, @timestamp, @user_id, @action, @resource_type, @resource_id, @detail_type, @detail, @previous_hash,
        @signed_payload, @signature, @key_version, @agent_id, @agent_chain, @delegated_by)`),
      insertHead: d.prepare(`INSERT INTO chain_head (tenant_id, seq, audit_log_id, signature, previous_hash, chain_hash, key_version)
        VALUES (@tenant_id, @seq, @audit_log_id, @signature, @previous_hash, @chain_hash, @key_version)`),
      list: d.prepare(`SELECT * FROM audit_log WHERE tenant_id = @tenantId AND (@userId IS NULL OR user_id = @userId)
        AND (@action IS NULL OR action = @action) ORDER BY seq DESC LIMIT @limit OFFSET @offset`),
      rowsFrom: d.prepare(`SELECT a.*, h.audit_log_id AS h_audit_log_id, h.signature AS h_signature, h.previous_hash AS h_previous_hash,
        h.chain_hash AS h_chain_hash FROM audit_log a LEFT JOIN chain_head h ON h.tenant_id = a.tenant_id AND h.seq = a.seq
        WHERE a.tenant_id = ? AND a.seq >= ? AND a.seq <= ? ORDER BY a.seq LIMIT ?`),
      suffix: d.prepare('SELECT * FROM audit_log WHERE tenant_id = ? AND seq >= ? ORDER BY seq'),
      rowBefore: d.prepare('SELECT * FROM audit_log WHERE tenant_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1'),
      nthNewestSeq: d.prepare('SELECT seq FROM audit_log WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').pluck(),
      logStats: d.prepare('SELECT count(*) AS n, max(seq) AS m, min(seq) AS lo FROM audit_log WHERE tenant_id = ?'),
      headStats: d.prepare('SELECT count(*) AS n, max(seq) AS m FROM chain_head WHERE tenant_id = ?'),
      getTurn: d.prepare('SELECT * FROM turns WHERE tenant_id = ? AND turn_id = ?'),
      insertTurn: d.prepare(`INSERT INTO turns (tenant_id, turn_id, receipt_id, principal_id, created_ms) VALUES (?, ?, ?, ?, ?)`),
      setTerminal: d.prepare('UPDATE turns SET terminal = ? WHERE tenant_id = ? AND turn_id = ? AND terminal IS NULL'),
      markSealed: d.prepare(`UPDATE turns SET status = 'sealed', sealed_at = ?, sealed_seq = ? WHERE tenant_id = ? AND turn_id = ? AND status = 'pending'`),
      markVerified: d.prepare(`UPDATE turns SET status = 'verified', verified_at = ?, verified_by = ? WHERE tenant_id = ? AND turn_id = ? AND status <> 'pending'`),
      stalled: d.prepare(`SELECT tenant_id, turn_id FROM turns WHERE status = 'pending' AND created_ms < ? ORDER BY created_ms LIMIT ?`),
      eventExists: d.prepare('SELECT 1 FROM turn_events WHERE tenant_id = ? AND turn_id = ? AND event_id = ?').pluck(),
      insertEvent: d.prepare(`INSERT INTO turn_events (tenant_id, turn_id, event_id, principal_id, emitter_service, emitter_instance, occurred_at,
        sequence_in_service, payload_type, payload_json, received_ms) VALUES (@tenant_id, @turn_id, @event_id, @principal_id, @emitter_service,
        @emitter_instance, @occurred_at, @sequence_in_service, @payload_type, @payload_json, @received_ms)`),
      eventsOfTurn: d.prepare('SELECT * FROM turn_events WHERE tenant_id = ? AND turn_id = ?'),
      insertEnvelope: d.prepare(`INSERT INTO envelopes (tenant_id, turn_id, payload, signature, key_version, audit_log_id, audit_seq,
        audit_previous_hash, audit_signature, audit_chain_hash, sealed_at) VALUES (@tenant_id, @turn_id, @payload, @signature, @key_version,
        @audit_log_id, @audit_seq, @audit_previous_hash, @audit_signature, @audit_chain_hash, @sealed_at)`),
      getEnvelope: d.prepare('SELECT * FROM envelopes WHERE tenant_id = ? AND turn_id = ?'),
      sealedTurns: d.prepare(`SELECT * FROM turns WHERE tenant_id = @tenantId AND sealed_seq IS NOT NULL AND sealed_seq < @before
        AND (@principalId IS NULL OR principal_id = @principalId) ORDER BY sealed_seq DESC LIMIT @limit`),
      getArtifact: d.prepare('SELECT * FROM artifacts WHERE tenant_id = ? AND turn_id = ? AND event_id = ? AND kind = ?'),
      artifactsOfTurn: d.prepare('SELECT * FROM artifacts WHERE tenant_id = ? AND turn_id = ? ORDER BY event_id, kind'),
      insertArtifact: d.prepare(`INSERT INTO artifacts (tenant_id, turn_id, event_id, kind, sha256, size, content_type, created_at)
        VALUES (@tenant_id, @turn_id, @event_id, @kind, @sha256, @size, @content_type, @created_at)`),
    };
  }

  /** Run `fn` in a transaction (a savepoint when already inside one); rolls back when it throws. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Open the per-job savepoint (inside `transaction`). */
  savepoint(): void { this.s.savepoint.run(); }

  /** Release the per-job savepoint (its writes join the enclosing transaction). */
  release(): void { this.s.release.run(); }

  /** Undo the per-job savepoint's writes and release it. */
  rollbackToSavepoint(): void { this.s.rollbackTo.run(); this.s.release.run(); }

  /** Highest audit_log id, 0 when empty. */
  maxId(): number {
    return (this.s.maxId.get() as number | null) ?? 0;
  }

  /** The newest row of a tenant's chain, or undefined. */
  lastRow(tenantId: string): AuditRowRecord | undefined {
    return this.s.lastRow.get(tenantId) as AuditRowRecord | undefined;
  }

  /** Insert an audit row and its checkpoint (caller holds the transaction). */
  insertRowAndHead(row: AuditRowRecord, head: ChainHeadRecord): void {
    this.s.insertRow.run(row);
    this.s.insertHead.run(head);
  }

  /** Rows of the pinned tenant, newest first, filtered. */
  list(f: ListFilter): AuditRowRecord[] {
    return this.s.list.all({ tenantId: f.tenantId, userId: f.userId ?? null, action: f.action ?? null, limit: f.limit, offset: f.offset }) as AuditRowRecord[];
  }

  /** Up to `limit` rows with seq in [fromSeq, toSeq], joined with their checkpoints. */
  rowsWithHeads(tenantId: string, fromSeq: number, toSeq: number, limit: number): RowWithHead[] {
    return this.s.rowsFrom.all(tenantId, fromSeq, toSeq, limit) as RowWithHead[];
  }

  /** Every row of the tenant chain from `seq` forward (proof suffix). */
  suffixFrom(tenantId: string, seq: number): AuditRowRecord[] {
    return this.s.suffix.all(tenantId, seq) as AuditRowRecord[];
  }

  /** The row immediately before `seq` in the tenant chain. */
  rowBefore(tenantId: string, seq: number): AuditRowRecord | undefined {
    return this.s.rowBefore.get(tenantId, seq) as AuditRowRecord | undefined;
  }

  /** seq of the n-th newest row (0-based), or undefined when the chain is shorter. */
  nthNewestSeq(tenantId: string, n: number): number | undefined {
    return this.s.nthNewestSeq.get(tenantId, n) as number | undefined;
  }

  /** Row count, max seq and min seq of the tenant's audit log. */
  logStats(tenantId: string): { n: number; m: number | null; lo: number | null } {
    return this.s.logStats.get(tenantId) as { n: number; m: number | null; lo: number | null };
  }

  /** Row count and max seq of the tenant's checkpoints. */
  headStats(tenantId: string): { n: number; m: number | null } {
    return this.s.headStats.get(tenantId) as { n: number; m: number | null };
  }

  /** One turn, or undefined. */
  getTurn(tenantId: string, turnId: string): TurnRecord | undefined {
    return this.s.getTurn.get(tenantId, turnId) as TurnRecord | undefined;
  }

  /** Create a pending turn. */
  insertTurn(tenantId: string, turnId: string, receiptId: string, principalId: string, createdMs: number): void {
    this.s.insertTurn.run(tenantId, turnId, receiptId, principalId, createdMs);
  }

  /** Record the first terminal event type of a turn. */
  setTerminal(tenantId: string, turnId: string, payloadType: string): void {
    this.s.setTerminal.run(payloadType, tenantId, turnId);
  }

  /** pending -> sealed. @returns whether the turn changed. */
  markSealed(tenantId: string, turnId: string, sealedAt: string, sealedSeq: number): boolean {
    return this.s.markSealed.run(sealedAt, sealedSeq, tenantId, turnId).changes === 1;
  }

  /** sealed|verified -> verified, recording when and by whom. @returns whether a row changed. */
  markVerified(tenantId: string, turnId: string, at: string, by: string): boolean {
    return this.s.markVerified.run(at, by, tenantId, turnId).changes === 1;
  }

  /** Pending turns created before `beforeMs`, oldest first. */
  stalledTurns(beforeMs: number, limit: number): Array<{ tenant_id: string; turn_id: string }> {
    return this.s.stalled.all(beforeMs, limit) as Array<{ tenant_id: string; turn_id: string }>;
  }

  /** Whether the event is already stored. */
  eventExists(tenantId: string, turnId: string, eventId: string): boolean {
    return this.s.eventExists.get(tenantId, turnId, eventId) === 1;
  }

  /** Insert one event. */
  insertEvent(e: TurnEventRecord): void {
    this.s.insertEvent.run(e);
  }

  /** All events of a turn (unordered; the domain sorts by the leaf order). */
  eventsOfTurn(tenantId: string, turnId: string): TurnEventRecord[] {
    return this.s.eventsOfTurn.all(tenantId, turnId) as TurnEventRecord[];
  }

  /** Insert a sealed envelope. */
  insertEnvelope(e: EnvelopeRow): void {
    this.s.insertEnvelope.run(e);
  }

  /** The envelope of a turn, or undefined before the seal. */
  getEnvelope(tenantId: string, turnId: string): EnvelopeRow | undefined {
    return this.s.getEnvelope.get(tenantId, turnId) as EnvelopeRow | undefined;
  }

  /** Sealed turns newest first (by anchor seq) below `beforeSeq`, optionally of one principal. */
  sealedTurns(tenantId: string, beforeSeq: number, limit: number, principalId: string | null): TurnRecord[] {
    return this.s.sealedTurns.all({ tenantId, before: beforeSeq, limit, principalId }) as TurnRecord[];
  }

  /** One artifact's metadata. */
  getArtifact(tenantId: string, turnId: string, eventId: string, kind: string): ArtifactRecord | undefined {
    return this.s.getArtifact.get(tenantId, turnId, eventId, kind) as ArtifactRecord | undefined;
  }

  /** Artifacts of a turn. */
  artifactsOfTurn(tenantId: string, turnId: string): ArtifactRecord[] {
    return this.s.artifactsOfTurn.all(tenantId, turnId) as ArtifactRecord[];
  }

  /** Insert artifact metadata. */
  insertArtifact(a: ArtifactRecord): void {
    this.s.insertArtifact.run(a);
  }

  /** Close the connection (checkpoints the WAL). */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Re-exported for tests that need raw access to the file (tamper tests). */
export type { Database };
