/**
 * Egress statistics (issue 19 item 6; spec `GET /v1/admin/audit/egress/stats`): per-bucket hits,
 * allow, deny, bytes and the summary (total, allow, deny, deny rate, distinct destinations, bytes).
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { EgressStats, EgressStatsQuery } from '../contracts.js';
import type { Awaitable } from './maybe-async.js';

/** A stats bucket row (the stats port's answer). */
export interface EgressBucketRow { key: string | null; hits: number; allow: number; deny: number; bytes: number }

/** The stats port's answer: buckets and the summary. */
export interface EgressStatsRows {
  buckets: EgressBucketRow[];
  summary: { total: number; allow: number; deny: number; distinct_destinations: number; bytes: number };
}

/** The query port (store/egress-cursor.ts `SqliteEgressStats`). */
export interface EgressStatsPort {
  query(tenantId: string, groupBy: NonNullable<EgressStatsQuery['group_by']>, from: string | null, to: string | null, limit: number): Awaitable<EgressStatsRows>;
}

/** An ISO date or date-time as the stored RFC 3339 form. @throws DomainError 400 `invalid_request`. */
function isoOf(v: string | undefined, name: string): string | null {
  if (v === undefined) return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new DomainError('invalid_request', `${name} must be an ISO 8601 date or date-time`);
  return new Date(t).toISOString();
}

/** Answer the stats for `q` (group_by default `destination`, limit default 50). */
export async function egressStats(port: EgressStatsPort, tenantId: string, q: EgressStatsQuery): Promise<EgressStats> {
  const groupBy = q.group_by ?? 'destination';
  const r = await port.query(tenantId, groupBy, isoOf(q.from_date, 'from_date'), isoOf(q.to_date, 'to_date'), q.limit ?? 50);
  const s = r.summary;
  return {
    group_by: groupBy,
    buckets: r.buckets.map((b) => ({ key: b.key, hits: b.hits, allow: b.allow, deny: b.deny, bytes: b.bytes })),
    summary: { ...s, deny_rate: s.total === 0 ? 0 : s.deny / s.total },
  };
}
