/**
 * SQLite tables of receipt format v2 (issue 22; migration 0004_receipt_signatures.sql): envelope
 * Ed25519 signatures and signed chain checkpoints, behind the ports of `domain/receipt-signing.ts`
 * and `domain/checkpoints.ts`. Both tables ignore UPDATE and DELETE.
 */
import type { Db } from '../../../shared/db/open.js';
import type { CheckpointRow, CheckpointStore } from '../domain/checkpoints.js';
import type { EnvelopeSignatureRow, EnvelopeSignatureStore } from '../domain/receipt-signing.js';

/** `envelope_signatures`. */
export class SqliteEnvelopeSignatureStore implements EnvelopeSignatureStore {
  private readonly q;

  /** @param db the audit store's connection. */
  constructor(db: Db) {
    this.q = {
      insert: db.prepare('INSERT INTO envelope_signatures (tenant_id, turn_id, alg, kid, sig) VALUES (@tenant_id, @turn_id, @alg, @kid, @sig)'),
      get: db.prepare('SELECT tenant_id, turn_id, alg, kid, sig FROM envelope_signatures WHERE tenant_id = ? AND turn_id = ?'),
    };
  }

  insert(r: EnvelopeSignatureRow): void { this.q.insert.run(r); }

  get(tenantId: string, turnId: string): EnvelopeSignatureRow | undefined {
    return this.q.get.get(tenantId, turnId) as EnvelopeSignatureRow | undefined;
  }
}

/** `receipt_checkpoints`. */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly q;

  /** @param db the audit store's connection. */
  constructor(db: Db) {
    const cols = 'tenant_id, seq, chain_hash, kid, note, created_at';
    this.q = {
      insert: db.prepare(`INSERT OR IGNORE INTO receipt_checkpoints (${cols}) VALUES (@tenant_id, @seq, @chain_hash, @kid, @note, @created_at)`),
      latest: db.prepare(`SELECT ${cols} FROM receipt_checkpoints WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1`),
      at: db.prepare(`SELECT ${cols} FROM receipt_checkpoints WHERE tenant_id = ? AND seq = ?`),
      after: db.prepare(`SELECT ${cols} FROM receipt_checkpoints WHERE tenant_id = ? AND seq >= ? ORDER BY seq ASC LIMIT 1`),
    };
  }

  insert(r: CheckpointRow): void { this.q.insert.run(r); }
  latest(tenantId: string): CheckpointRow | undefined { return this.q.latest.get(tenantId) as CheckpointRow | undefined; }
  at(tenantId: string, seq: number): CheckpointRow | undefined { return this.q.at.get(tenantId, seq) as CheckpointRow | undefined; }
  firstAtOrAfter(tenantId: string, seq: number): CheckpointRow | undefined { return this.q.after.get(tenantId, seq) as CheckpointRow | undefined; }
}
