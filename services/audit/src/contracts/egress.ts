/**
 * Egress audit contracts (issue 19 item 6; spec "Egress audit event detail", audit actions
 * `egress.allow` / `egress.deny`, `GET /v1/admin/audit/egress/stats`, Limits "Egress stats limit").
 * Node-free.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';

/** The spec's `proxy_access_log` detail keys, in order. */
export const EGRESS_DETAIL_KEYS = ['service', 'destination', 'path', 'verdict', 'bytes', 'method', 'client_ip', 'proxy_code', 'http_status', 'local_port', 'hierarchy', 'proxy_ts', 'username'] as const;

/** `group_by` values of the stats route. */
export const EGRESS_GROUP_BY = ['destination', 'service', 'path', 'verdict', 'hour', 'day'] as const;

/** `GET /v1/admin/audit/egress/stats` query (limit 1–500, default 50; outside -> 400). */
export const EgressStatsQuery = Type.Object({
  group_by: Type.Optional(Type.Union([Type.Literal('destination'), Type.Literal('service'), Type.Literal('path'), Type.Literal('verdict'), Type.Literal('hour'), Type.Literal('day')])),
  from_date: Type.Optional(Type.String({ minLength: 10, maxLength: 40 })),
  to_date: Type.Optional(Type.String({ minLength: 10, maxLength: 40 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
});
export type EgressStatsQuery = Static<typeof EgressStatsQuery>;

/** One bucket. */
export const EgressBucket = Type.Object({ key: Type.Union([Type.String(), Type.Null()]), hits: Type.Integer(), allow: Type.Integer(), deny: Type.Integer(), bytes: Type.Integer() });

/** The stats answer: buckets (by hits, or by time for hour/day) and the summary over the whole set. */
export const EgressStats = Type.Object({
  group_by: Type.String(),
  buckets: Type.Array(EgressBucket),
  summary: Type.Object({
    total: Type.Integer(), allow: Type.Integer(), deny: Type.Integer(), deny_rate: Type.Number(),
    distinct_destinations: Type.Integer(), bytes: Type.Integer(),
  }),
});
export type EgressStats = Static<typeof EgressStats>;
