/** `spans` table (migrations/observability/0001_init.sql): trace spans, trace summaries and pruning. */
import type { Db } from '../../../shared/db/open.js';
import type { SpanRecord, TraceSummary } from '../contracts.js';
import type { SpanStore } from '../domain/ports.js';

/** SQLite implementation of `SpanStore`. */
export class SqliteSpanStore implements SpanStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      insert: db.prepare(`INSERT OR IGNORE INTO spans (trace_id, span_id, parent_span_id, service, name, kind, start_time, duration_ms, status, attributes)
      VALUES (@trace_id, @span_id, @parent_span_id, @service, @name, @kind, @start_time, @duration_ms, @status, @attributes)`),
      of: db.prepare('SELECT * FROM spans WHERE trace_id = ? ORDER BY start_time, span_id'),
      prune: db.prepare('DELETE FROM spans WHERE start_time < ?'),
    };
  }

  insert(spans: SpanRecord[]): number {
    let n = 0;
    const tx = this.db.transaction(() => {
      for (const s of spans) n += this.q.insert.run({ ...s, attributes: JSON.stringify(s.attributes ?? {}) }).changes;
    });
    tx();
    return n;
  }

  trace(traceId: string): SpanRecord[] {
    return (this.q.of.all(traceId) as Array<Omit<SpanRecord, 'attributes'> & { attributes: string }>)
      .map((r) => ({ ...r, attributes: JSON.parse(r.attributes) as SpanRecord['attributes'] }));
  }

  traces(limit: number, before?: string): TraceSummary[] {
    const rows = this.db.prepare(`SELECT trace_id, MIN(start_time) AS start_time, COUNT(*) AS span_count,
        group_concat(DISTINCT service) AS services, MAX(status = 'error') AS error,
        MAX(julianday(start_time) * 86400000.0 + duration_ms) - MIN(julianday(start_time) * 86400000.0) AS duration_ms
      FROM spans GROUP BY trace_id ${before ? 'HAVING MIN(start_time) < ?' : ''} ORDER BY start_time DESC LIMIT ?`)
      .all(...(before ? [before, limit] : [limit])) as Array<{ trace_id: string; start_time: string; span_count: number; services: string; error: number; duration_ms: number | null }>;
    const first = this.db.prepare('SELECT name FROM spans WHERE trace_id = ? ORDER BY (parent_span_id IS NOT NULL), start_time LIMIT 1');
    return rows.map((r) => ({
      trace_id: r.trace_id, root_name: (first.get(r.trace_id) as { name: string } | undefined)?.name ?? '',
      services: r.services.split(',').sort(), span_count: r.span_count, start_time: r.start_time,
      duration_ms: Math.max(0, Math.round((r.duration_ms ?? 0) * 1000) / 1000), error: r.error === 1,
    }));
  }

  prune(before: string): number { return this.q.prune.run(before).changes; }
}
