/**
 * `audit_log` and `chain_head` on PostgreSQL (migrations/audit/pg/0001_chain.sql; issue 21 item 1):
 * the async implementation of the audit log's reads and of chained appends from several processes.
 *
 * Ordering per tenant: `appendLocked` takes `pg_advisory_xact_lock(<chain>, hashtext(tenant))` in
 * its transaction before it reads the newest row, and keeps it until commit, so writers of one
 * tenant (any process, any pool connection) run one after the other and each sees the row its
 * predecessor committed. The read is its own statement after the lock: under READ COMMITTED a
 * statement's snapshot is taken when it starts, so a read in the locking statement could miss the
 * previous holder's commit. Tenants whose hashes collide merely share a lock. The row and its
 * checkpoint are inserted by one statement in the same transaction.
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncAuditLogStore, LockedChain } from '../../domain/async-ports.js';
import type { ChainedRow } from '../../domain/chain-row.js';
import type { AuditRowRecord, ListFilter, RowWithHead } from '../../domain/ports.js';

/** First key of the chain lock ('audc' in ASCII); the second is the tenant's hashtext. */
export const CHAIN_LOCK_KEY = 0x61756463;

const ROW_COLS = ['id', 'tenant_id', 'seq', 'timestamp', 'user_id', 'action', 'resource_type', 'resource_id', 'detail_type', 'detail',
  'previous_hash', 'signed_payload', 'signature', 'key_version', 'agent_id', 'agent_chain', 'delegated_by'] as const;
const ROW_TYPES = ['bigint', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'];
const HEAD_COLS = ['tenant_id', 'seq', 'audit_log_id', 'signature', 'previous_hash', 'chain_hash', 'key_version'] as const;
const HEAD_TYPES = ['text', 'bigint', 'bigint', 'text', 'text', 'text', 'text'];

const unnest = (types: string[], from: number): string => `unnest(${types.map((t, i) => `$${from + i}::${t}[]`).join(', ')})`;
const INSERT = `WITH r AS (INSERT INTO audit_log (${ROW_COLS.join(', ')}) SELECT * FROM ${unnest(ROW_TYPES, 1)})
  INSERT INTO chain_head (${HEAD_COLS.join(', ')}) SELECT * FROM ${unnest(HEAD_TYPES, ROW_COLS.length + 1)}`;

function insertParams(rows: readonly ChainedRow[]): unknown[] {
  const params: unknown[] = [];
  for (const c of ROW_COLS) params.push(rows.map((x) => x.row[c]));
  for (const c of HEAD_COLS) params.push(rows.map((x) => x.head[c]));
  return params;
}

/** PostgreSQL implementation of the audit log's reads and chained appends. */
export class PgAuditLogStore implements AsyncAuditLogStore {
  constructor(private readonly db: PgDb) {}

  async appendLocked<T extends { rows: ChainedRow[] }>(tenantId: string, count: number, build: (last: AuditRowRecord | undefined, ids: number[]) => T): Promise<T> {
    return this.db.tx(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CHAIN_LOCK_KEY, tenantId]);
      const [r] = await this.db.query<AuditRowRecord & { ids: string[] | null }>(`SELECT a.*,
          (SELECT array_agg(nextval('audit_log_id_seq') ORDER BY g) FROM generate_series(1, $2::int) g) AS ids
        FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM audit_log WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1) a ON true`, [tenantId, count]);
      const ids = (r?.ids ?? []).map(Number).sort((x, y) => x - y);
      let last: AuditRowRecord | undefined;
      if (r && r.id !== null) {
        const { ids: _ids, ...row } = r;
        last = row;
      }
      const out = build(last, ids);
      if (out.rows.length) {
        await this.db.exec(INSERT, insertParams(out.rows));
      }
      return out;
    });
  }

  async withChainLock<T>(tenantId: string, fn: (chain: LockedChain) => Promise<T>): Promise<T> {
    return this.db.tx(async () => {
      await this.db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CHAIN_LOCK_KEY, tenantId]);
      // Its own statement after the lock: it sees the previous holder's commit (module header).
      const last = await this.lastRow(tenantId);
      return fn({
        last,
        ids: async (count) => {
          const [r] = await this.db.query<{ ids: string[] | null }>(
            "SELECT array_agg(nextval('audit_log_id_seq') ORDER BY g) AS ids FROM generate_series(1, $1::int) g", [count]);
          return (r?.ids ?? []).map(Number).sort((x, y) => x - y);
        },
        insert: async (rows) => { if (rows.length) await this.db.exec(INSERT, insertParams(rows)); },
        savepoint: (f) => this.db.tx(f),
      });
    });
  }

  async maxId(): Promise<number> {
    const [r] = await this.db.query<{ m: number | null }>('SELECT max(id) AS m FROM audit_log');
    return r?.m ?? 0;
  }

  async lastRow(tenantId: string): Promise<AuditRowRecord | undefined> {
    return (await this.db.query<AuditRowRecord>('SELECT * FROM audit_log WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1', [tenantId]))[0];
  }

  list(f: ListFilter): Promise<AuditRowRecord[]> {
    return this.db.query<AuditRowRecord>(`SELECT * FROM audit_log WHERE tenant_id = $1 AND ($2::text IS NULL OR user_id = $2)
      AND ($3::text IS NULL OR action = $3) ORDER BY seq DESC LIMIT $4 OFFSET $5`, [f.tenantId, f.userId ?? null, f.action ?? null, f.limit, f.offset]);
  }

  rowsWithHeads(tenantId: string, fromSeq: number, toSeq: number, limit: number): Promise<RowWithHead[]> {
    return this.db.query<RowWithHead>(`SELECT a.*, h.audit_log_id AS h_audit_log_id, h.signature AS h_signature, h.previous_hash AS h_previous_hash,
      h.chain_hash AS h_chain_hash FROM audit_log a LEFT JOIN chain_head h ON h.tenant_id = a.tenant_id AND h.seq = a.seq
      WHERE a.tenant_id = $1 AND a.seq >= $2 AND a.seq <= $3 ORDER BY a.seq LIMIT $4`, [tenantId, fromSeq, toSeq, limit]);
  }

  suffixFrom(tenantId: string, seq: number): Promise<AuditRowRecord[]> {
    return this.db.query<AuditRowRecord>('SELECT * FROM audit_log WHERE tenant_id = $1 AND seq >= $2 ORDER BY seq', [tenantId, seq]);
  }

  async rowBefore(tenantId: string, seq: number): Promise<AuditRowRecord | undefined> {
    return (await this.db.query<AuditRowRecord>('SELECT * FROM audit_log WHERE tenant_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT 1', [tenantId, seq]))[0];
  }

  async nthNewestSeq(tenantId: string, n: number): Promise<number | undefined> {
    return (await this.db.query<{ seq: number }>('SELECT seq FROM audit_log WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2', [tenantId, n]))[0]?.seq;
  }

  async logStats(tenantId: string): Promise<{ n: number; m: number | null; lo: number | null }> {
    const [r] = await this.db.query<{ n: number; m: number | null; lo: number | null }>('SELECT count(*) AS n, max(seq) AS m, min(seq) AS lo FROM audit_log WHERE tenant_id = $1', [tenantId]);
    return r!;
  }

  async headStats(tenantId: string): Promise<{ n: number; m: number | null }> {
    const [r] = await this.db.query<{ n: number; m: number | null }>('SELECT count(*) AS n, max(seq) AS m FROM chain_head WHERE tenant_id = $1', [tenantId]);
    return r!;
  }
}
