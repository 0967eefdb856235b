/**
 * `audit_log` and `chain_head` (migrations/audit/0001_init.sql; both append-only by trigger): the
 * signed hash chain of each tenant and its checkpoints. SQLite implementation of `AuditLogStore`.
 */
import type { Db } from '../../../shared/db/open.js';
import type { AuditLogStore, AuditRowRecord, ChainHeadRecord, ListFilter, RowWithHead } from '../domain/ports.js';

/** SQLite implementation of `AuditLogStore`; statements are prepared once. */
export class SqliteAuditLogStore implements AuditLogStore {
  private readonly q;

  constructor(db: Db) {
    this.q = {
      maxId: db.prepare('SELECT max(id) AS m FROM audit_log').pluck(),
      lastRow: db.prepare('SELECT * FROM audit_log WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1'),
      insertRow: db.prepare(`INSERT INTO audit_log (id, tenant_id, seq, timestamp, user_id, action, resource_type, resource_id, detail_type,
        detail, previous_hash, signed_payload, signature, key_version, agent_id, agent_chain, delegated_by)
        VALUES (@id, @tenant_id, @seq, @timestamp, @user_id, @action, @resource_type, @resource_id, @detail_type, @detail, @previous_hash,
        @signed_payload, @signature, @key_version, @agent_id, @agent_chain, @delegated_by)`),
      insertHead: db.prepare(`INSERT INTO chain_head (tenant_id, seq, audit_log_id, signature, previous_hash, chain_hash, key_version)
        VALUES (@tenant_id, @seq, @audit_log_id, @signature, @previous_hash, @chain_hash, @key_version)`),
      list: db.prepare(`SELECT * FROM audit_log WHERE tenant_id = @tenantId AND (@userId IS NULL OR user_id = @userId)
        AND (@action IS NULL OR action = @action) ORDER BY seq DESC LIMIT @limit OFFSET @offset`),
      rowsFrom: db.prepare(`SELECT a.*, h.audit_log_id AS h_audit_log_id, h.signature AS h_signature, h.previous_hash AS h_previous_hash,
        h.chain_hash AS h_chain_hash FROM audit_log a LEFT JOIN chain_head h ON h.tenant_id = a.tenant_id AND h.seq = a.seq
        WHERE a.tenant_id = ? AND a.seq >= ? AND a.seq <= ? ORDER BY a.seq LIMIT ?`),
      suffix: db.prepare('SELECT * FROM audit_log WHERE tenant_id = ? AND seq >= ? ORDER BY seq'),
      rowBefore: db.prepare('SELECT * FROM audit_log WHERE tenant_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1'),
      nthNewestSeq: db.prepare('SELECT seq FROM audit_log WHERE tenant_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').pluck(),
      logStats: db.prepare('SELECT count(*) AS n, max(seq) AS m, min(seq) AS lo FROM audit_log WHERE tenant_id = ?'),
      headStats: db.prepare('SELECT count(*) AS n, max(seq) AS m FROM chain_head WHERE tenant_id = ?'),
    };
  }

  maxId(): number {
    return (this.q.maxId.get() as number | null) ?? 0;
  }

  lastRow(tenantId: string): AuditRowRecord | undefined {
    return this.q.lastRow.get(tenantId) as AuditRowRecord | undefined;
  }

  insertRowAndHead(row: AuditRowRecord, head: ChainHeadRecord): void {
    this.q.insertRow.run(row);
    this.q.insertHead.run(head);
  }

  list(f: ListFilter): AuditRowRecord[] {
    return this.q.list.all({ tenantId: f.tenantId, userId: f.userId ?? null, action: f.action ?? null, limit: f.limit, offset: f.offset }) as AuditRowRecord[];
  }

  rowsWithHeads(tenantId: string, fromSeq: number, toSeq: number, limit: number): RowWithHead[] {
    return this.q.rowsFrom.all(tenantId, fromSeq, toSeq, limit) as RowWithHead[];
  }

  suffixFrom(tenantId: string, seq: number): AuditRowRecord[] {
    return this.q.suffix.all(tenantId, seq) as AuditRowRecord[];
  }

  rowBefore(tenantId: string, seq: number): AuditRowRecord | undefined {
    return this.q.rowBefore.get(tenantId, seq) as AuditRowRecord | undefined;
  }

  nthNewestSeq(tenantId: string, n: number): number | undefined {
    return this.q.nthNewestSeq.get(tenantId, n) as number | undefined;
  }

  logStats(tenantId: string): { n: number; m: number | null; lo: number | null } {
    return this.q.logStats.get(tenantId) as { n: number; m: number | null; lo: number | null };
  }

  headStats(tenantId: string): { n: number; m: number | null } {
    return this.q.headStats.get(tenantId) as { n: number; m: number | null };
  }
}
