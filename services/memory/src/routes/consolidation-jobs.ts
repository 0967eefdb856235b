/**
 * Consolidation passes as jobs (issue 19 item 5), admins only:
 * - `GET /v1/memory/consolidations` -> 200 `{jobs}` (domain/consolidation-jobs.ts), newest first;
 * - `POST /v1/memory/consolidations/{id}/cancel` -> 200 the pass (stops before its next cluster);
 *   404 `not_found`, 409 `conflict` (the pass has finished).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../../../shared/kit/typebox.js';
import { requireRole } from '../../../shared/kit/principal.js';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import type { ConsolidationJobs } from '../domain/consolidation-jobs.js';

/** Register the consolidation job routes over `jobs`. */
export const consolidationJobRoutes: FastifyPluginAsyncTypebox<{ jobs: ConsolidationJobs }> = async (app, { jobs }) => {
  app.get('/v1/memory/consolidations', async (req) => {
    requireRole(req, 'admin');
    return { jobs: jobs.list() };
  });
  app.post('/v1/memory/consolidations/:id/cancel', { schema: { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }) } }, async (req) => {
    requireRole(req, 'admin');
    const r = jobs.cancel(req.params.id);
    if (r === null) throw notFoundError(`no consolidation pass ${req.params.id}`);
    if (r === 'finished') throw new DomainError('conflict', `consolidation pass ${req.params.id} has finished`);
    return r;
  });
};
