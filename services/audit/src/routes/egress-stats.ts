/**
 * `GET /v1/admin/audit/egress/stats` (issue 19 item 6; spec "Audit and receipts", Limits: `limit`
 * 1–500, default 50, outside -> 400). Admin.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { EgressStats, EgressStatsQuery } from '../contracts.js';
import { egressStats, type EgressStatsPort } from '../domain/egress-stats.js';

/** Register the stats route over `stats` for the pinned `tenantId`. */
export const egressStatsRoutes: FastifyPluginAsyncTypebox<{ tenantId: string; stats: EgressStatsPort }> = async (app, { tenantId, stats }) => {
  app.get('/v1/admin/audit/egress/stats', { schema: { querystring: EgressStatsQuery, response: { 200: EgressStats } } }, async (req) => {
    requireRole(req, 'admin');
    return egressStats(stats, tenantId, req.query);
  });
};
