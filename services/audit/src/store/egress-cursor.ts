/**
 * The egress shipper's cursor (`egress_log_cursor`, issue 19 item 6) and the egress stats queries
 * over `audit_log` (spec `GET /v1/admin/audit/egress/stats`).
 */
import type { Db } from '../../../shared/db/open.js';
import type { EgressCursorStore, FileId } from '../domain/egress-shipper.js';
import type { EgressBucketRow } from '../domain/egress-stats.js';

export type { EgressBucketRow } from '../domain/egress-stats.js';

/** SQLite cursor on the audit store's connection (so it commits with the rows). */
export class SqliteEgressCursor implements EgressCursorStore {
  constructor(private readonly db: Db) {}

  get(): (FileId & { offset: number }) | null {
    const r = this.db.prepare("SELECT dev, ino, offset FROM egress_log_cursor WHERE name = 'squid'").get() as { dev: string; ino: string; offset: number } | undefined;
    return r ? { dev: r.dev, ino: r.ino, offset: r.offset } : null;
  }

  set(c: FileId & { offset: number }): void {
    this.db.prepare("INSERT INTO egress_log_cursor (name, dev, ino, offset) VALUES ('squid', ?, ?, ?) ON CONFLICT(name) DO UPDATE SET dev = excluded.dev, ino = excluded.ino, offset = excluded.offset").run(c.dev, c.ino, c.offset);
  }
}


/** Stats queries over the egress rows of one tenant. */
export class SqliteEgressStats {
  constructor(private readonly db: Db) {}

  /**
   * Buckets of `keyExpr` (a fixed SQL expression chosen by the domain, never user text) and the
   * summary, over rows with `from <= timestamp < to` (ISO strings, null = open).
   */
  query(tenantId: string, groupBy: 'destination' | 'service' | 'path' | 'verdict' | 'hour' | 'day', from: string | null, to: string | null, limit: number): { buckets: EgressBucketRow[]; summary: { total: number; allow: number; deny: number; distinct_destinations: number; bytes: number } } {
    const keyExpr = {
      destination: "json_extract(detail, '$.destination')", service: "json_extract(detail, '$.service')", path: "json_extract(detail, '$.path')",
      verdict: "json_extract(detail, '$.verdict')", hour: "substr(timestamp, 1, 13) || ':00:00Z'", day: 'substr(timestamp, 1, 10)',
    }[groupBy];
    const where = "tenant_id = @t AND action IN ('egress.allow', 'egress.deny') AND (@from IS NULL OR timestamp >= @from) AND (@to IS NULL OR timestamp < @to)";
    const agg = "count(*) AS hits, sum(action = 'egress.allow') AS allow, sum(action = 'egress.deny') AS deny, coalesce(sum(json_extract(detail, '$.bytes')), 0) AS bytes";
    const order = groupBy === 'hour' || groupBy === 'day' ? 'key' : 'hits DESC, key';
    const p = { t: tenantId, from, to, limit };
    const buckets = this.db.prepare(`SELECT ${keyExpr} AS key, ${agg} FROM audit_log WHERE ${where} GROUP BY key ORDER BY ${order} LIMIT @limit`).all(p) as EgressBucketRow[];
    const s = this.db.prepare(`SELECT ${agg}, count(DISTINCT resource_id) AS distinct_destinations FROM audit_log WHERE ${where}`).get({ t: tenantId, from, to }) as { hits: number; allow: number | null; deny: number | null; bytes: number; distinct_destinations: number };
    return { buckets, summary: { total: s.hits, allow: s.allow ?? 0, deny: s.deny ?? 0, bytes: s.bytes, distinct_destinations: s.distinct_destinations } };
  }
}
