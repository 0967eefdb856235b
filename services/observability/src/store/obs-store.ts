/**
 * The observability store (`<dbDir>/observability.sqlite`): generation records, the refreshed price
 * list, budgets and trace spans. The only code of this service that touches SQLite; statements are
 * prepared once.
 */
import { openDb, type Db } from '../../../shared/db/open.js';
import type {
  BudgetPeriod, GenerationRecord, ModelPrice, StatsBucket, TraceSummary,
} from '../contracts.js';
import type { SpanRecord } from '../client.js';

/** Filters of `listGenerations`. */
export interface GenerationFilter {
  tenantId: string;
  model?: string;
  providerId?: string;
  role?: string;
  userId?: string;
  status?: string;
  /** RFC 3339 inclusive lower bound of created_at. */
  since?: string;
  /** RFC 3339 exclusive upper bound of created_at. */
  until?: string;
  /** Return records with event_id below this (the previous page's last id). */
  before?: string;
  limit: number;
}

/** A stored budget row. */
export interface BudgetRow {
  tenant_id: string;
  period: BudgetPeriod;
  soft_limit_usd: number | null;
  hard_limit_usd: number | null;
  updated_at: string;
  updated_by: string | null;
}

interface GenRow extends Omit<GenerationRecord, 'deterministic' | 'stream'> { deterministic: number; stream: number; day: string }

const BUCKET_COLS = `COUNT(*) AS count, SUM(status != 'ok') AS errors, SUM(prompt_tokens) AS prompt_tokens,
  SUM(completion_tokens) AS completion_tokens, SUM(total_tokens) AS total_tokens, COALESCE(SUM(cost_usd), 0) AS cost_usd,
  AVG(latency_ms) AS avg_latency_ms, AVG(ttft_ms) AS avg_ttft_ms`;

function bucket(r: Record<string, unknown>): StatsBucket {
  const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return {
    key: r.key === null || r.key === undefined ? '(none)' : String(r.key),
    count: n(r.count), errors: n(r.errors), prompt_tokens: n(r.prompt_tokens), completion_tokens: n(r.completion_tokens),
    total_tokens: n(r.total_tokens), cost_usd: Math.round(n(r.cost_usd) * 1e9) / 1e9,
    avg_latency_ms: Math.round(n(r.avg_latency_ms) * 1000) / 1000,
    avg_ttft_ms: typeof r.avg_ttft_ms === 'number' ? Math.round(r.avg_ttft_ms * 1000) / 1000 : null,
  };
}

/** SQLite access for observability. */
export class ObsStore {
  private readonly db: Db;
  private readonly insertGen;
  private readonly getGen;
  private readonly upsertPrice;
  private readonly allPrices;
  private readonly getMeta;
  private readonly setMeta;
  private readonly getBudget;
  private readonly allBudgets;
  private readonly putBudget;
  private readonly spendSince;
  private readonly insertSpan;
  private readonly spansOf;
  private readonly pruneSpans;

  constructor(dbDir: string, migrationsDir: string) {
    this.db = openDb({ dbDir, store: 'observability', migrationsDir, vec: false });
    this.insertGen = this.db.prepare(`INSERT OR IGNORE INTO generations (
      event_id, tenant_id, created_at, day, user_id, turn_id, trace_id, span_id, role, requested_model, model, provider_id, provider_name,
      backend, provider_version, deterministic, weight_hash, stream, status, error_code, http_status, latency_ms, ttft_ms, prompt_tokens,
      completion_tokens, total_tokens, attempts, cost_usd, price_source, ingested_at
    ) VALUES (
      @event_id, @tenant_id, @created_at, @day, @user_id, @turn_id, @trace_id, @span_id, @role, @requested_model, @model, @provider_id, @provider_name,
      @backend, @provider_version, @deterministic, @weight_hash, @stream, @status, @error_code, @http_status, @latency_ms, @ttft_ms, @prompt_tokens,
      @completion_tokens, @total_tokens, @attempts, @cost_usd, @price_source, @ingested_at
    )`);
    this.getGen = this.db.prepare('SELECT * FROM generations WHERE tenant_id = ? AND event_id = ?');
    this.upsertPrice = this.db.prepare(`INSERT INTO prices (model, input_usd_per_mtok, output_usd_per_mtok, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(model) DO UPDATE SET input_usd_per_mtok = excluded.input_usd_per_mtok, output_usd_per_mtok = excluded.output_usd_per_mtok, updated_at = excluded.updated_at`);
    this.allPrices = this.db.prepare('SELECT model, input_usd_per_mtok, output_usd_per_mtok, updated_at FROM prices ORDER BY model');
    this.getMeta = this.db.prepare('SELECT v FROM meta WHERE k = ?');
    this.setMeta = this.db.prepare('INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v');
    this.getBudget = this.db.prepare('SELECT * FROM budgets WHERE tenant_id = ?');
    this.allBudgets = this.db.prepare('SELECT * FROM budgets ORDER BY tenant_id');
    this.putBudget = this.db.prepare(`INSERT INTO budgets (tenant_id, period, soft_limit_usd, hard_limit_usd, updated_at, updated_by)
      VALUES (@tenant_id, @period, @soft_limit_usd, @hard_limit_usd, @updated_at, @updated_by)
      ON CONFLICT(tenant_id) DO UPDATE SET period = excluded.period, soft_limit_usd = excluded.soft_limit_usd,
        hard_limit_usd = excluded.hard_limit_usd, updated_at = excluded.updated_at, updated_by = excluded.updated_by`);
    this.spendSince = this.db.prepare('SELECT COALESCE(SUM(cost_usd), 0) AS s FROM generations WHERE tenant_id = ? AND created_at >= ?');
    this.insertSpan = this.db.prepare(`INSERT OR IGNORE INTO spans (trace_id, span_id, parent_span_id, service, name, kind, start_time, duration_ms, status, attributes)
      VALUES (@trace_id, @span_id, @parent_span_id, @service, @name, @kind, @start_time, @duration_ms, @status, @attributes)`);
    this.spansOf = this.db.prepare('SELECT * FROM spans WHERE trace_id = ? ORDER BY start_time, span_id');
    this.pruneSpans = this.db.prepare('DELETE FROM spans WHERE start_time < ?');
  }

  /** Insert a record unless its event_id exists. @returns true when inserted. */
  insertGeneration(r: GenerationRecord): boolean {
    return this.insertGen.run({ ...r, day: r.created_at.slice(0, 10), deterministic: r.deterministic ? 1 : 0, stream: r.stream ? 1 : 0 }).changes === 1;
  }

  /** One record, or null. */
  generation(tenantId: string, eventId: string): GenerationRecord | null {
    const row = this.getGen.get(tenantId, eventId) as GenRow | undefined;
    return row ? toRecord(row) : null;
  }

  private where(f: Omit<GenerationFilter, 'limit' | 'before'> & { before?: string }): { sql: string; args: unknown[] } {
    const parts = ['tenant_id = ?']; const args: unknown[] = [f.tenantId];
    const add = (col: string, op: string, v: unknown): void => { if (v !== undefined) { parts.push(`${col} ${op} ?`); args.push(v); } };
    add('model', '=', f.model); add('provider_id', '=', f.providerId); add('role', '=', f.role); add('user_id', '=', f.userId);
    add('status', '=', f.status); add('created_at', '>=', f.since); add('created_at', '<', f.until); add('event_id', '<', f.before);
    return { sql: parts.join(' AND '), args };
  }

  /** A page of records, newest first (event ids are ULIDs, so id order is time order). */
  listGenerations(f: GenerationFilter): GenerationRecord[] {
    const w = this.where(f);
    const rows = this.db.prepare(`SELECT * FROM generations WHERE ${w.sql} ORDER BY event_id DESC LIMIT ?`).all(...w.args, f.limit) as GenRow[];
    return rows.map(toRecord);
  }

  /** Aggregates over the filter, grouped by a column (or all together when `by` is null). */
  stats(f: Omit<GenerationFilter, 'limit' | 'before'>, by: 'model' | 'provider_name' | 'role' | 'day' | 'user_id' | null): StatsBucket[] {
    const w = this.where(f);
    if (by === null) {
      const row = this.db.prepare(`SELECT 'all' AS key, ${BUCKET_COLS} FROM generations WHERE ${w.sql}`).get(...w.args) as Record<string, unknown>;
      return [bucket(row)];
    }
    const rows = this.db.prepare(`SELECT ${by} AS key, ${BUCKET_COLS} FROM generations WHERE ${w.sql} GROUP BY ${by} ORDER BY ${by === 'day' ? 'key DESC' : 'count DESC, key'} LIMIT 1000`)
      .all(...w.args) as Array<Record<string, unknown>>;
    return rows.map(bucket);
  }

  /** Replace the refreshed price list (one transaction). */
  replacePrices(prices: Record<string, ModelPrice>, at: string, sourceUrl: string): number {
    const tx = this.db.transaction(() => {
      this.db.prepare('DELETE FROM prices').run();
      for (const [model, p] of Object.entries(prices)) this.upsertPrice.run(model, p.in, p.out, at);
      this.setMeta.run('prices_refreshed_at', at);
      this.setMeta.run('prices_source_url', sourceUrl);
    });
    tx();
    return Object.keys(prices).length;
  }

  /** The refreshed list. */
  prices(): Array<{ model: string; in: number; out: number; updated_at: string }> {
    return (this.allPrices.all() as Array<{ model: string; input_usd_per_mtok: number; output_usd_per_mtok: number; updated_at: string }>)
      .map((r) => ({ model: r.model, in: r.input_usd_per_mtok, out: r.output_usd_per_mtok, updated_at: r.updated_at }));
  }

  /** A meta value, or null. */
  meta(k: string): string | null {
    return (this.getMeta.get(k) as { v: string } | undefined)?.v ?? null;
  }

  /** One budget, or null. */
  budget(tenantId: string): BudgetRow | null { return (this.getBudget.get(tenantId) as BudgetRow | undefined) ?? null; }

  /** Every budget. */
  budgets(): BudgetRow[] { return this.allBudgets.all() as BudgetRow[]; }

  /** Create or replace a budget. */
  setBudget(b: BudgetRow): void { this.putBudget.run(b); }

  /** Sum of cost_usd since `since` (RFC 3339), USD. */
  spend(tenantId: string, since: string): number { return (this.spendSince.get(tenantId, since) as { s: number }).s; }

  /** Insert spans (duplicates ignored). */
  insertSpans(spans: SpanRecord[]): number {
    let n = 0;
    const tx = this.db.transaction(() => {
      for (const s of spans) n += this.insertSpan.run({ ...s, attributes: JSON.stringify(s.attributes ?? {}) }).changes;
    });
    tx();
    return n;
  }

  /** Spans of one trace in start order. */
  trace(traceId: string): SpanRecord[] {
    return (this.spansOf.all(traceId) as Array<Omit<SpanRecord, 'attributes'> & { attributes: string }>)
      .map((r) => ({ ...r, attributes: JSON.parse(r.attributes) as SpanRecord['attributes'] }));
  }

  /** Trace summaries, most recent first; `before` is the previous page's last start_time. */
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

  /** Delete spans that started before `before`. */
  prune(before: string): number { return this.pruneSpans.run(before).changes; }

  close(): void { this.db.close(); }
}

function toRecord(r: GenRow): GenerationRecord {
  const { day: _day, ...rest } = r;
  return { ...rest, deterministic: r.deterministic === 1, stream: r.stream === 1 } as GenerationRecord;
}
