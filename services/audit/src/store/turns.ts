/**
 * `turns`, `turn_events` and `envelopes` (migrations/audit/0001_init.sql; the history columns of
 * 0002_receipt_history.sql, issue 13 item 7): receipt state of each
 * turn, its events, and its sealed envelope. SQLite implementations of `TurnStore`,
 * `TurnEventStore` and `EnvelopeStore`.
 */
import type { Db } from '../../../shared/db/open.js';
import type {
  EnvelopeRow, EnvelopeStore, SealedTurnQuery, TurnEventRecord, TurnEventStore, TurnRecord, TurnStore,
} from '../domain/ports.js';
import type { TurnHistory } from '../domain/receipt-history.js';

/**
 * The statement of one filter combination of `sealedPage` (issue 13 item 7): only the filters in
 * use are in the WHERE clause, so each combination gets its own plan (owner or kind index).
 */
function sealedPageSql(owner: boolean, kind: boolean, like: boolean): string {
  const where = ['tenant_id = @tenantId', 'sealed_seq IS NOT NULL', 'sealed_seq < @before'];
  if (owner) where.push('principal_id = @principalId');
  if (kind) where.push('kind = @kind');
  if (like) where.push(`(summary LIKE @like ESCAPE '\\' OR route LIKE @like ESCAPE '\\' OR method LIKE @like ESCAPE '\\' OR turn_id LIKE @like ESCAPE '\\')`);
  return `SELECT * FROM turns WHERE ${where.join(' AND ')} ORDER BY sealed_seq DESC LIMIT @limit`;
}

/** SQLite implementation of `TurnStore`. */
export class SqliteTurnStore implements TurnStore {
  private readonly q;
  private readonly pages = new Map<string, ReturnType<Db['prepare']>>();

  constructor(private readonly db: Db) {
    this.q = {
      get: db.prepare('SELECT * FROM turns WHERE tenant_id = ? AND turn_id = ?'),
      insert: db.prepare('INSERT INTO turns (tenant_id, turn_id, receipt_id, principal_id, created_ms) VALUES (?, ?, ?, ?, ?)'),
      setTerminal: db.prepare('UPDATE turns SET terminal = ? WHERE tenant_id = ? AND turn_id = ? AND terminal IS NULL'),
      markSealed: db.prepare(`UPDATE turns SET status = 'sealed', sealed_at = ?, sealed_seq = ? WHERE tenant_id = ? AND turn_id = ? AND status = 'pending'`),
      markVerified: db.prepare(`UPDATE turns SET status = 'verified', verified_at = ?, verified_by = ? WHERE tenant_id = ? AND turn_id = ? AND status <> 'pending'`),
      stalled: db.prepare(`SELECT tenant_id, turn_id FROM turns WHERE status = 'pending' AND created_ms < ? ORDER BY created_ms LIMIT ?`),
      sealed: db.prepare(`SELECT * FROM turns WHERE tenant_id = @tenantId AND sealed_seq IS NOT NULL AND sealed_seq < @before
        AND (@principalId IS NULL OR principal_id = @principalId) ORDER BY sealed_seq DESC LIMIT @limit`),
      setHistory: db.prepare(`UPDATE turns SET kind = @kind, summary = @summary, method = @method, route = @route, outcome = @outcome,
        http_status = @http_status, started_at = @started_at WHERE tenant_id = @tenantId AND turn_id = @turnId`),
    };
  }

  get(tenantId: string, turnId: string): TurnRecord | undefined {
    return this.q.get.get(tenantId, turnId) as TurnRecord | undefined;
  }

  insert(tenantId: string, turnId: string, receiptId: string, principalId: string, createdMs: number): void {
    this.q.insert.run(tenantId, turnId, receiptId, principalId, createdMs);
  }

  setTerminal(tenantId: string, turnId: string, payloadType: string): void {
    this.q.setTerminal.run(payloadType, tenantId, turnId);
  }

  markSealed(tenantId: string, turnId: string, sealedAt: string, sealedSeq: number): boolean {
    return this.q.markSealed.run(sealedAt, sealedSeq, tenantId, turnId).changes === 1;
  }

  markVerified(tenantId: string, turnId: string, at: string, by: string): boolean {
    return this.q.markVerified.run(at, by, tenantId, turnId).changes === 1;
  }

  stalled(beforeMs: number, limit: number): Array<{ tenant_id: string; turn_id: string }> {
    return this.q.stalled.all(beforeMs, limit) as Array<{ tenant_id: string; turn_id: string }>;
  }

  sealed(tenantId: string, beforeSeq: number, limit: number, principalId: string | null): TurnRecord[] {
    return this.q.sealed.all({ tenantId, before: beforeSeq, limit, principalId }) as TurnRecord[];
  }

  setHistory(tenantId: string, turnId: string, h: TurnHistory): void {
    this.q.setHistory.run({ ...h, tenantId, turnId });
  }

  sealedPage(tenantId: string, q: SealedTurnQuery): TurnRecord[] {
    const key = `${q.principalId !== null ? 1 : 0}${q.kind !== null ? 1 : 0}${q.like !== null ? 1 : 0}`;
    let stmt = this.pages.get(key);
    if (!stmt) {
      stmt = this.db.prepare(sealedPageSql(q.principalId !== null, q.kind !== null, q.like !== null));
      this.pages.set(key, stmt);
    }
    const params: Record<string, unknown> = { tenantId, before: q.beforeSeq, limit: q.limit };
    if (q.principalId !== null) params.principalId = q.principalId;
    if (q.kind !== null) params.kind = q.kind;
    if (q.like !== null) params.like = q.like;
    return stmt.all(params) as TurnRecord[];
  }
}

/** SQLite implementation of `TurnEventStore`. */
export class SqliteTurnEventStore implements TurnEventStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      exists: db.prepare('SELECT 1 FROM turn_events WHERE tenant_id = ? AND turn_id = ? AND event_id = ?').pluck(),
      insert: db.prepare(`INSERT INTO turn_events (tenant_id, turn_id, event_id, principal_id, emitter_service, emitter_instance, occurred_at,
        sequence_in_service, payload_type, payload_json, received_ms) VALUES (@tenant_id, @turn_id, @event_id, @principal_id, @emitter_service,
        @emitter_instance, @occurred_at, @sequence_in_service, @payload_type, @payload_json, @received_ms)`),
      ofTurn: db.prepare('SELECT * FROM turn_events WHERE tenant_id = ? AND turn_id = ?'),
    };
  }

  exists(tenantId: string, turnId: string, eventId: string): boolean {
    return this.q.exists.get(tenantId, turnId, eventId) === 1;
  }

  insert(e: TurnEventRecord): void {
    this.q.insert.run(e);
  }

  ofTurn(tenantId: string, turnId: string): TurnEventRecord[] {
    return this.q.ofTurn.all(tenantId, turnId) as TurnEventRecord[];
  }
}

/** SQLite implementation of `EnvelopeStore`. */
export class SqliteEnvelopeStore implements EnvelopeStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      insert: db.prepare(`INSERT INTO envelopes (tenant_id, turn_id, payload, signature, key_version, audit_log_id, audit_seq,
        audit_previous_hash, audit_signature, audit_chain_hash, sealed_at) VALUES (@tenant_id, @turn_id, @payload, @signature, @key_version,
        @audit_log_id, @audit_seq, @audit_previous_hash, @audit_signature, @audit_chain_hash, @sealed_at)`),
      get: db.prepare('SELECT * FROM envelopes WHERE tenant_id = ? AND turn_id = ?'),
    };
  }

  insert(e: EnvelopeRow): void {
    this.q.insert.run(e);
  }

  get(tenantId: string, turnId: string): EnvelopeRow | undefined {
    return this.q.get.get(tenantId, turnId) as EnvelopeRow | undefined;
  }
}
