/**
 * `turns`, `turn_events` and `envelopes` on PostgreSQL (migrations/audit/pg/0002_turns_receipts.sql;
 * issue 21 item 1): the async twins of store/turns.ts, same statements, ordering and conflicts.
 * Writes run inside the writer's locked transaction (the `PgDb` carries it), reads on the pool.
 * `sealedPage`'s search is `ILIKE` (SQLite's LIKE ignores ASCII case); text orderings are
 * `COLLATE "C"` (SQLite's BINARY).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncPort } from '../../domain/async-ports.js';
import type { EnvelopeRow, EnvelopeStore, SealedTurnQuery, TurnEventRecord, TurnEventStore, TurnRecord, TurnStore } from '../../domain/ports.js';
import type { TurnHistory } from '../../domain/receipt-history.js';

/** PostgreSQL implementation of `TurnStore`. */
export class PgTurnStore implements AsyncPort<TurnStore> {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, turnId: string): Promise<TurnRecord | undefined> {
    return (await this.db.query<TurnRecord>('SELECT * FROM turns WHERE tenant_id = $1 AND turn_id = $2', [tenantId, turnId]))[0];
  }

  async insert(tenantId: string, turnId: string, receiptId: string, principalId: string, createdMs: number): Promise<void> {
    await this.db.exec('INSERT INTO turns (tenant_id, turn_id, receipt_id, principal_id, created_ms) VALUES ($1, $2, $3, $4, $5)',
      [tenantId, turnId, receiptId, principalId, createdMs]);
  }

  async setTerminal(tenantId: string, turnId: string, payloadType: string): Promise<void> {
    await this.db.exec('UPDATE turns SET terminal = $1 WHERE tenant_id = $2 AND turn_id = $3 AND terminal IS NULL', [payloadType, tenantId, turnId]);
  }

  async markSealed(tenantId: string, turnId: string, sealedAt: string, sealedSeq: number): Promise<boolean> {
    return (await this.db.exec(`UPDATE turns SET status = 'sealed', sealed_at = $1, sealed_seq = $2 WHERE tenant_id = $3 AND turn_id = $4
      AND status = 'pending'`, [sealedAt, sealedSeq, tenantId, turnId])) === 1;
  }

  async markVerified(tenantId: string, turnId: string, at: string, by: string): Promise<boolean> {
    return (await this.db.exec(`UPDATE turns SET status = 'verified', verified_at = $1, verified_by = $2 WHERE tenant_id = $3 AND turn_id = $4
      AND status <> 'pending'`, [at, by, tenantId, turnId])) === 1;
  }

  stalled(beforeMs: number, limit: number): Promise<Array<{ tenant_id: string; turn_id: string }>> {
    return this.db.query(`SELECT tenant_id, turn_id FROM turns WHERE status = 'pending' AND created_ms < $1
      ORDER BY created_ms, tenant_id COLLATE "C", turn_id COLLATE "C" LIMIT $2`, [beforeMs, limit]);
  }

  sealed(tenantId: string, beforeSeq: number, limit: number, principalId: string | null): Promise<TurnRecord[]> {
    return this.db.query<TurnRecord>(`SELECT * FROM turns WHERE tenant_id = $1 AND sealed_seq IS NOT NULL AND sealed_seq < $2
      AND ($3::text IS NULL OR principal_id = $3) ORDER BY sealed_seq DESC LIMIT $4`, [tenantId, beforeSeq, principalId, limit]);
  }

  async setHistory(tenantId: string, turnId: string, h: TurnHistory): Promise<void> {
    await this.db.exec(`UPDATE turns SET kind = $1, summary = $2, method = $3, route = $4, outcome = $5, http_status = $6, started_at = $7
      WHERE tenant_id = $8 AND turn_id = $9`, [h.kind, h.summary, h.method, h.route, h.outcome, h.http_status, h.started_at, tenantId, turnId]);
  }

  sealedPage(tenantId: string, q: SealedTurnQuery): Promise<TurnRecord[]> {
    const params: unknown[] = [tenantId, q.beforeSeq];
    const where = ['tenant_id = $1', 'sealed_seq IS NOT NULL', 'sealed_seq < $2'];
    if (q.principalId !== null) { params.push(q.principalId); where.push(`principal_id = $${params.length}`); }
    if (q.kind !== null) { params.push(q.kind); where.push(`kind = $${params.length}`); }
    if (q.like !== null) {
      params.push(q.like);
      const p = `$${params.length}`;
      where.push(`(summary ILIKE ${p} ESCAPE '\\' OR route ILIKE ${p} ESCAPE '\\' OR method ILIKE ${p} ESCAPE '\\' OR turn_id ILIKE ${p} ESCAPE '\\')`);
    }
    params.push(q.limit);
    return this.db.query<TurnRecord>(`SELECT * FROM turns WHERE ${where.join(' AND ')} ORDER BY sealed_seq DESC LIMIT $${params.length}`, params);
  }
}

/** PostgreSQL implementation of `TurnEventStore`. */
export class PgTurnEventStore implements AsyncPort<TurnEventStore> {
  constructor(private readonly db: PgDb) {}

  async exists(tenantId: string, turnId: string, eventId: string): Promise<boolean> {
    return (await this.db.query('SELECT 1 FROM turn_events WHERE tenant_id = $1 AND turn_id = $2 AND event_id = $3', [tenantId, turnId, eventId])).length === 1;
  }

  async insert(e: TurnEventRecord): Promise<void> {
    await this.db.exec(`INSERT INTO turn_events (tenant_id, turn_id, event_id, principal_id, emitter_service, emitter_instance, occurred_at,
      sequence_in_service, payload_type, payload_json, received_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
      e.tenant_id, e.turn_id, e.event_id, e.principal_id, e.emitter_service, e.emitter_instance, e.occurred_at, e.sequence_in_service,
      e.payload_type, e.payload_json, e.received_ms,
    ]);
  }

  ofTurn(tenantId: string, turnId: string): Promise<TurnEventRecord[]> {
    return this.db.query<TurnEventRecord>('SELECT * FROM turn_events WHERE tenant_id = $1 AND turn_id = $2', [tenantId, turnId]);
  }
}

/** PostgreSQL implementation of `EnvelopeStore`. */
export class PgEnvelopeStore implements AsyncPort<EnvelopeStore> {
  constructor(private readonly db: PgDb) {}

  async insert(e: EnvelopeRow): Promise<void> {
    await this.db.exec(`INSERT INTO envelopes (tenant_id, turn_id, payload, signature, key_version, audit_log_id, audit_seq, audit_previous_hash,
      audit_signature, audit_chain_hash, sealed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
      e.tenant_id, e.turn_id, e.payload, e.signature, e.key_version, e.audit_log_id, e.audit_seq, e.audit_previous_hash, e.audit_signature,
      e.audit_chain_hash, e.sealed_at,
    ]);
  }

  async get(tenantId: string, turnId: string): Promise<EnvelopeRow | undefined> {
    return (await this.db.query<EnvelopeRow>('SELECT * FROM envelopes WHERE tenant_id = $1 AND turn_id = $2', [tenantId, turnId]))[0];
  }
}
