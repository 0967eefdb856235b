/**
 * The smaller audit table groups on PostgreSQL (migrations/audit/pg/0002_turns_receipts.sql; issue
 * 21 item 1): artifacts, envelope signatures and checkpoints (receipt format v2, issue 22), the
 * egress shipper's cursor and the egress stats (issue 19 item 6). Async twins of store/artifacts.ts,
 * store/receipt-signatures.ts and store/egress-cursor.ts: same conflicts (a second checkpoint at a
 * seq is ignored, as `INSERT OR IGNORE`), same orderings (`COLLATE "C"` = SQLite's BINARY, NULL
 * keys first as in SQLite).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { AsyncPort } from '../../domain/async-ports.js';
import type { CheckpointRow, CheckpointStore } from '../../domain/checkpoints.js';
import type { EgressCursorStore, FileId } from '../../domain/egress-shipper.js';
import type { EgressBucketRow, EgressStatsPort, EgressStatsRows } from '../../domain/egress-stats.js';
import type { ArtifactRecord, ArtifactStore } from '../../domain/ports.js';
import type { EnvelopeSignatureRow, EnvelopeSignatureStore } from '../../domain/receipt-signing.js';

/** PostgreSQL implementation of `ArtifactStore`. */
export class PgArtifactStore implements AsyncPort<ArtifactStore> {
  constructor(private readonly db: PgDb) {}

  async get(tenantId: string, turnId: string, eventId: string, kind: string): Promise<ArtifactRecord | undefined> {
    return (await this.db.query<ArtifactRecord>('SELECT * FROM artifacts WHERE tenant_id = $1 AND turn_id = $2 AND event_id = $3 AND kind = $4',
      [tenantId, turnId, eventId, kind]))[0];
  }

  ofTurn(tenantId: string, turnId: string): Promise<ArtifactRecord[]> {
    return this.db.query<ArtifactRecord>('SELECT * FROM artifacts WHERE tenant_id = $1 AND turn_id = $2 ORDER BY event_id COLLATE "C", kind COLLATE "C"',
      [tenantId, turnId]);
  }

  async insert(a: ArtifactRecord): Promise<void> {
    await this.db.exec(`INSERT INTO artifacts (tenant_id, turn_id, event_id, kind, sha256, size, content_type, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [a.tenant_id, a.turn_id, a.event_id, a.kind, a.sha256, a.size, a.content_type, a.created_at]);
  }
}

/** PostgreSQL `envelope_signatures`. */
export class PgEnvelopeSignatureStore implements AsyncPort<EnvelopeSignatureStore> {
  constructor(private readonly db: PgDb) {}

  async insert(r: EnvelopeSignatureRow): Promise<void> {
    await this.db.exec('INSERT INTO envelope_signatures (tenant_id, turn_id, alg, kid, sig) VALUES ($1, $2, $3, $4, $5)', [r.tenant_id, r.turn_id, r.alg, r.kid, r.sig]);
  }

  async get(tenantId: string, turnId: string): Promise<EnvelopeSignatureRow | undefined> {
    return (await this.db.query<EnvelopeSignatureRow>('SELECT tenant_id, turn_id, alg, kid, sig FROM envelope_signatures WHERE tenant_id = $1 AND turn_id = $2',
      [tenantId, turnId]))[0];
  }
}

const CP_COLS = 'tenant_id, seq, chain_hash, kid, note, created_at';

/** PostgreSQL `receipt_checkpoints`. */
export class PgCheckpointStore implements AsyncPort<CheckpointStore> {
  constructor(private readonly db: PgDb) {}

  async insert(r: CheckpointRow): Promise<void> {
    await this.db.exec(`INSERT INTO receipt_checkpoints (${CP_COLS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id, seq) DO NOTHING`,
      [r.tenant_id, r.seq, r.chain_hash, r.kid, r.note, r.created_at]);
  }

  async latest(tenantId: string): Promise<CheckpointRow | undefined> {
    return (await this.db.query<CheckpointRow>(`SELECT ${CP_COLS} FROM receipt_checkpoints WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1`, [tenantId]))[0];
  }

  async at(tenantId: string, seq: number): Promise<CheckpointRow | undefined> {
    return (await this.db.query<CheckpointRow>(`SELECT ${CP_COLS} FROM receipt_checkpoints WHERE tenant_id = $1 AND seq = $2`, [tenantId, seq]))[0];
  }

  async firstAtOrAfter(tenantId: string, seq: number): Promise<CheckpointRow | undefined> {
    return (await this.db.query<CheckpointRow>(`SELECT ${CP_COLS} FROM receipt_checkpoints WHERE tenant_id = $1 AND seq >= $2 ORDER BY seq ASC LIMIT 1`,
      [tenantId, seq]))[0];
  }
}

/** PostgreSQL egress cursor (written inside the writer's locked transaction, with the rows it covers). */
export class PgEgressCursor implements EgressCursorStore {
  constructor(private readonly db: PgDb) {}

  async get(): Promise<(FileId & { offset: number }) | null> {
    const [r] = await this.db.query<{ dev: string; ino: string; offset: number }>(`SELECT dev, ino, "offset" FROM egress_log_cursor WHERE name = 'squid'`);
    return r ? { dev: r.dev, ino: r.ino, offset: r.offset } : null;
  }

  async set(c: FileId & { offset: number }): Promise<void> {
    await this.db.exec(`INSERT INTO egress_log_cursor (name, dev, ino, "offset") VALUES ('squid', $1, $2, $3)
      ON CONFLICT (name) DO UPDATE SET dev = excluded.dev, ino = excluded.ino, "offset" = excluded."offset"`, [c.dev, c.ino, c.offset]);
  }
}

const D = 'detail::jsonb';
const KEY_EXPR = {
  destination: `${D} ->> 'destination'`, service: `${D} ->> 'service'`, path: `${D} ->> 'path'`, verdict: `${D} ->> 'verdict'`,
  hour: `substr("timestamp", 1, 13) || ':00:00Z'`, day: `substr("timestamp", 1, 10)`,
} as const;
const WHERE = `tenant_id = $1 AND action IN ('egress.allow', 'egress.deny') AND ($2::text IS NULL OR "timestamp" >= $2) AND ($3::text IS NULL OR "timestamp" < $3)`;
const AGG = `count(*) AS hits, count(*) FILTER (WHERE action = 'egress.allow') AS allow, count(*) FILTER (WHERE action = 'egress.deny') AS deny,
  coalesce(sum(CASE WHEN jsonb_typeof(${D} -> 'bytes') = 'number' THEN (${D} ->> 'bytes')::float8 END), 0) AS bytes`;

/** PostgreSQL egress stats over `audit_log` (the SQL twin of `SqliteEgressStats`). */
export class PgEgressStats implements EgressStatsPort {
  constructor(private readonly db: PgDb) {}

  async query(tenantId: string, groupBy: keyof typeof KEY_EXPR, from: string | null, to: string | null, limit: number): Promise<EgressStatsRows> {
    const order = groupBy === 'hour' || groupBy === 'day' ? 'key COLLATE "C" NULLS FIRST' : 'hits DESC, key COLLATE "C" NULLS FIRST';
    const buckets = await this.db.query<EgressBucketRow>(`SELECT * FROM (SELECT ${KEY_EXPR[groupBy]} AS key, ${AGG} FROM audit_log WHERE ${WHERE}
      GROUP BY 1) b ORDER BY ${order} LIMIT $4`, [tenantId, from, to, limit]);
    const [s] = await this.db.query<{ hits: number; allow: number; deny: number; bytes: number; distinct_destinations: number }>(
      `SELECT ${AGG}, count(DISTINCT resource_id) AS distinct_destinations FROM audit_log WHERE ${WHERE}`, [tenantId, from, to]);
    return { buckets, summary: { total: s!.hits, allow: s!.allow, deny: s!.deny, bytes: s!.bytes, distinct_destinations: s!.distinct_destinations } };
  }
}
