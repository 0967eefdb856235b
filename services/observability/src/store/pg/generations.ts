/**
 * `generations` on PostgreSQL (issue 21 item 1): the twin of store/generations.ts. Same filters,
 * same newest-first keyset page (`event_id < cursor`), same aggregate buckets and their order
 * (NULL keys sort as SQLite sorts them: first ascending, last descending).
 */
import type { PgDb } from '../../../../shared/db/pg/db.js';
import type { GenerationRecord, StatsBucket } from '../../contracts.js';
import type { GenerationFilter, GenerationStore, StatsGroup } from '../../domain/ports.js';
import { bucketOf, recordOf, type GenRow } from '../generation-rows.js';

const COLS = ['event_id', 'tenant_id', 'created_at', 'day', 'user_id', 'turn_id', 'trace_id', 'span_id', 'role', 'requested_model', 'model', 'provider_id',
  'provider_name', 'backend', 'provider_version', 'deterministic', 'weight_hash', 'stream', 'status', 'error_code', 'http_status', 'latency_ms', 'ttft_ms',
  'prompt_tokens', 'completion_tokens', 'total_tokens', 'attempts', 'cost_usd', 'price_source', 'ingested_at'] as const;

const INSERT = `INSERT INTO generations (${COLS.join(', ')}) VALUES (${COLS.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT DO NOTHING`;

const BUCKET_COLS = `COUNT(*) AS count, SUM((status <> 'ok')::int) AS errors, SUM(prompt_tokens) AS prompt_tokens,
  SUM(completion_tokens) AS completion_tokens, SUM(total_tokens) AS total_tokens, COALESCE(SUM(cost_usd), 0) AS cost_usd,
  AVG(latency_ms) AS avg_latency_ms, AVG(ttft_ms) AS avg_ttft_ms`;

function where(f: GenerationFilter, before?: string): { sql: string; args: unknown[] } {
  const parts = ['tenant_id = $1']; const args: unknown[] = [f.tenantId];
  const add = (col: string, op: string, v: unknown): void => { if (v !== undefined) { args.push(v); parts.push(`${col} ${op} $${args.length}`); } };
  add('model', '=', f.model); add('provider_id', '=', f.providerId); add('role', '=', f.role); add('user_id', '=', f.userId);
  add('status', '=', f.status); add('created_at', '>=', f.since); add('created_at', '<', f.until); add('event_id', '<', before);
  return { sql: parts.join(' AND '), args };
}

/** PostgreSQL implementation of `GenerationStore`. */
export class PgGenerationStore implements GenerationStore {
  constructor(private readonly db: PgDb) {}

  async insert(r: GenerationRecord): Promise<boolean> {
    const row: Record<string, unknown> = { ...r, day: r.created_at.slice(0, 10), deterministic: r.deterministic ? 1 : 0, stream: r.stream ? 1 : 0 };
    return (await this.db.exec(INSERT, COLS.map((c) => row[c] ?? null))) === 1;
  }

  async get(tenantId: string, eventId: string): Promise<GenerationRecord | null> {
    const [row] = await this.db.query<GenRow>('SELECT * FROM generations WHERE tenant_id = $1 AND event_id = $2', [tenantId, eventId]);
    return row ? recordOf(row) : null;
  }

  async list(f: GenerationFilter, before: string | undefined, limit: number): Promise<GenerationRecord[]> {
    const w = where(f, before);
    const rows = await this.db.query<GenRow>(`SELECT * FROM generations WHERE ${w.sql} ORDER BY event_id DESC LIMIT $${w.args.length + 1}`, [...w.args, limit]);
    return rows.map(recordOf);
  }

  async stats(f: GenerationFilter, by: StatsGroup | null): Promise<StatsBucket[]> {
    const w = where(f);
    if (by === null) {
      const [row] = await this.db.query(`SELECT 'all' AS key, ${BUCKET_COLS} FROM generations WHERE ${w.sql}`, w.args);
      return [bucketOf(row!)];
    }
    const order = by === 'day' ? 'key DESC NULLS LAST' : 'count DESC, key ASC NULLS FIRST';
    const rows = await this.db.query(`SELECT ${by} AS key, ${BUCKET_COLS} FROM generations WHERE ${w.sql} GROUP BY ${by} ORDER BY ${order} LIMIT 1000`, w.args);
    return rows.map(bucketOf);
  }

  async spend(tenantId: string, since: string): Promise<number> {
    const [r] = await this.db.query<{ s: number }>('SELECT COALESCE(SUM(cost_usd), 0) AS s FROM generations WHERE tenant_id = $1 AND created_at >= $2', [tenantId, since]);
    return r!.s;
  }
}
