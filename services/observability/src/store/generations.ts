/**
 * `generations` table (migrations/observability/0001_init.sql): generation records, their pages and
 * aggregates. Statements with fixed text are prepared once; filters build their WHERE clause.
 */
import type { Db } from '../../../shared/db/open.js';
import type { GenerationRecord, StatsBucket } from '../contracts.js';
import type { GenerationFilter, GenerationStore, StatsGroup } from '../domain/ports.js';
import { bucketOf, recordOf, type GenRow } from './generation-rows.js';

const BUCKET_COLS = `COUNT(*) AS count, SUM(status != 'ok') AS errors, SUM(prompt_tokens) AS prompt_tokens,
  SUM(completion_tokens) AS completion_tokens, SUM(total_tokens) AS total_tokens, COALESCE(SUM(cost_usd), 0) AS cost_usd,
  AVG(latency_ms) AS avg_latency_ms, AVG(ttft_ms) AS avg_ttft_ms`;

const bucket = bucketOf;
const toRecord = recordOf;

function where(f: GenerationFilter, before?: string): { sql: string; args: unknown[] } {
  const parts = ['tenant_id = ?']; const args: unknown[] = [f.tenantId];
  const add = (col: string, op: string, v: unknown): void => { if (v !== undefined) { parts.push(`${col} ${op} ?`); args.push(v); } };
  add('model', '=', f.model); add('provider_id', '=', f.providerId); add('role', '=', f.role); add('user_id', '=', f.userId);
  add('status', '=', f.status); add('created_at', '>=', f.since); add('created_at', '<', f.until); add('event_id', '<', before);
  return { sql: parts.join(' AND '), args };
}

/** SQLite implementation of `GenerationStore`. */
export class SqliteGenerationStore implements GenerationStore {
  private readonly q;

  constructor(private readonly db: Db) {
    this.q = {
      insert: db.prepare(`INSERT OR IGNORE INTO generations (
      event_id, tenant_id, created_at, day, user_id, turn_id, trace_id, span_id, role, requested_model, model, provider_id, provider_name,
      backend, provider_version, deterministic, weight_hash, stream, status, error_code, http_status, latency_ms, ttft_ms, prompt_tokens,
      completion_tokens, total_tokens, attempts, cost_usd, price_source, ingested_at
    ) VALUES (
      @event_id, @tenant_id, @created_at, @day, @user_id, @turn_id, @trace_id, @span_id, @role, @requested_model, @model, @provider_id, @provider_name,
      @backend, @provider_version, @deterministic, @weight_hash, @stream, @status, @error_code, @http_status, @latency_ms, @ttft_ms, @prompt_tokens,
      @completion_tokens, @total_tokens, @attempts, @cost_usd, @price_source, @ingested_at
    )`),
      get: db.prepare('SELECT * FROM generations WHERE tenant_id = ? AND event_id = ?'),
      spend: db.prepare('SELECT COALESCE(SUM(cost_usd), 0) AS s FROM generations WHERE tenant_id = ? AND created_at >= ?'),
    };
  }

  insert(r: GenerationRecord): boolean {
    return this.q.insert.run({ ...r, day: r.created_at.slice(0, 10), deterministic: r.deterministic ? 1 : 0, stream: r.stream ? 1 : 0 }).changes === 1;
  }

  get(tenantId: string, eventId: string): GenerationRecord | null {
    const row = this.q.get.get(tenantId, eventId) as GenRow | undefined;
    return row ? toRecord(row) : null;
  }

  list(f: GenerationFilter, before: string | undefined, limit: number): GenerationRecord[] {
    const w = where(f, before);
    const rows = this.db.prepare(`SELECT * FROM generations WHERE ${w.sql} ORDER BY event_id DESC LIMIT ?`).all(...w.args, limit) as GenRow[];
    return rows.map(toRecord);
  }

  stats(f: GenerationFilter, by: StatsGroup | null): StatsBucket[] {
    const w = where(f);
    if (by === null) {
      const row = this.db.prepare(`SELECT 'all' AS key, ${BUCKET_COLS} FROM generations WHERE ${w.sql}`).get(...w.args) as Record<string, unknown>;
      return [bucket(row)];
    }
    const rows = this.db.prepare(`SELECT ${by} AS key, ${BUCKET_COLS} FROM generations WHERE ${w.sql} GROUP BY ${by} ORDER BY ${by === 'day' ? 'key DESC' : 'count DESC, key'} LIMIT 1000`)
      .all(...w.args) as Array<Record<string, unknown>>;
    return rows.map(bucket);
  }

  spend(tenantId: string, since: string): number { return (this.q.spend.get(tenantId, since) as { s: number }).s; }
}
