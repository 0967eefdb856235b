/**
 * Sealing passes as jobs (issue 19 item 5), admin only, reached through the gateway's
 * `GET /v1/admin/jobs`:
 *
 * - `GET /v1/admin/audit/seal-passes` -> 200 `{passes, totals}` (domain/seal-jobs.ts);
 * - `POST /v1/admin/audit/seal-passes/{id}/cancel` -> 200 the pass (cancelled before its next batch);
 *   404 `not_found` (unknown id), 409 `conflict` (the pass has finished).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '../../../shared/kit/typebox.js';
import { requireRole } from '../../../shared/kit/principal.js';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import type { SealPassTracker } from '../domain/seal-jobs.js';

/** Register the seal-pass routes over `tracker`. */
export const sealJobRoutes: FastifyPluginAsyncTypebox<{ tracker: SealPassTracker }> = async (app, { tracker }) => {
  app.get('/v1/admin/audit/seal-passes', async (req) => {
    requireRole(req, 'admin');
    return tracker.list();
  });
  app.post('/v1/admin/audit/seal-passes/:id/cancel', { schema: { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }) } }, async (req) => {
    requireRole(req, 'admin');
    const p = tracker.cancel(req.params.id);
    if (p) return p;
    const done = tracker.finished(req.params.id);
    if (done) throw new DomainError('conflict', `seal pass ${done.id} has finished (${done.state})`);
    throw notFoundError(`no seal pass ${req.params.id}`);
  });
};
