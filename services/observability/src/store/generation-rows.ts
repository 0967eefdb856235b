/** Row shapes of `generations` shared by the SQLite and PostgreSQL stores (issue 21 item 1): a stored row to a record, an aggregate row to a bucket. */
import type { GenerationRecord, StatsBucket } from '../contracts.js';

/** A stored `generations` row (flags as 0/1, plus the `day` column). */
export interface GenRow extends Omit<GenerationRecord, 'deterministic' | 'stream'> { deterministic: number; stream: number; day: string }

/** An aggregate row as a bucket: missing sums are 0, cost rounded to 1e-9 USD, means to 1e-3 ms, a NULL key is '(none)'. */
export function bucketOf(r: Record<string, unknown>): StatsBucket {
  const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return {
    key: r.key === null || r.key === undefined ? '(none)' : String(r.key),
    count: n(r.count), errors: n(r.errors), prompt_tokens: n(r.prompt_tokens), completion_tokens: n(r.completion_tokens),
    total_tokens: n(r.total_tokens), cost_usd: Math.round(n(r.cost_usd) * 1e9) / 1e9,
    avg_latency_ms: Math.round(n(r.avg_latency_ms) * 1000) / 1000,
    avg_ttft_ms: typeof r.avg_ttft_ms === 'number' ? Math.round(r.avg_ttft_ms * 1000) / 1000 : null,
  };
}

/** A stored row as the record the API answers (flags as booleans, no `day`). */
export function recordOf(r: GenRow): GenerationRecord {
  const { day: _day, ...rest } = r;
  return { ...rest, deterministic: r.deterministic === 1, stream: r.stream === 1 } as GenerationRecord;
}
