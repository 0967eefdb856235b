/**
 * `spans` on PostgreSQL (issue 21 item 1): the twin of store/spans.ts. Trace summaries group by
 * trace, newest first, with the keyset cursor on the first span's start; the duration is the last
 * span end minus the first start in ms (epoch arithmetic where SQLite uses julianday; the two agree
 * to well under a millisecond).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { SpanRecord, TraceSummary } from '../../contracts.js';
import type { SpanStore } from '../../domain/ports.js';

type SpanRow = Omit<SpanRecord, 'attributes'> & { attributes: string };
const MS = `(extract(epoch FROM start_time::timestamptz) * 1000)::double precision`;

/** PostgreSQL implementation of `SpanStore`. */
export class PgSpanStore implements SpanStore {
  constructor(private readonly db: PgDb) {}

  async insert(spans: SpanRecord[]): Promise<number> {
    if (!spans.length) return 0;
    const cols = ['trace_id', 'span_id', 'parent_span_id', 'service', 'name', 'kind', 'start_time', 'duration_ms', 'status', 'attributes'] as const;
    const arrays = cols.map((c) => spans.map((s) => (c === 'attributes' ? JSON.stringify(s.attributes ?? {}) : s[c] ?? null)));
    return this.db.exec(`INSERT INTO spans (${cols.join(', ')})
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::text[])
      ON CONFLICT DO NOTHING`, arrays);
  }

  async trace(traceId: string): Promise<SpanRecord[]> {
    const rows = await this.db.query<SpanRow>('SELECT * FROM spans WHERE trace_id = $1 ORDER BY start_time, span_id', [traceId]);
    return rows.map((r) => ({ ...r, attributes: JSON.parse(r.attributes) as SpanRecord['attributes'] }));
  }

  async traces(limit: number, before?: string): Promise<TraceSummary[]> {
    const rows = await this.db.query<{ trace_id: string; start_time: string; span_count: number; services: string; error: number; duration_ms: number | null; root_name: string | null }>(
      `SELECT g.*, (SELECT name FROM spans f WHERE f.trace_id = g.trace_id ORDER BY (f.parent_span_id IS NOT NULL), f.start_time LIMIT 1) AS root_name
       FROM (SELECT trace_id, MIN(start_time) AS start_time, COUNT(*) AS span_count,
          string_agg(DISTINCT service, ',') AS services, MAX((status = 'error')::int) AS error,
          MAX(${MS} + duration_ms) - MIN(${MS}) AS duration_ms
        FROM spans GROUP BY trace_id ${before ? 'HAVING MIN(start_time) < $2' : ''} ORDER BY start_time DESC LIMIT $1) g
       ORDER BY g.start_time DESC`,
      before ? [limit, before] : [limit]);
    return rows.map((r) => ({
      trace_id: r.trace_id, root_name: r.root_name ?? '',
      services: r.services.split(',').sort(), span_count: r.span_count, start_time: r.start_time,
      duration_ms: Math.max(0, Math.round((r.duration_ms ?? 0) * 1000) / 1000), error: r.error === 1,
    }));
  }

  prune(before: string): Promise<number> {
    return this.db.exec('DELETE FROM spans WHERE start_time < $1', [before]);
  }
}
