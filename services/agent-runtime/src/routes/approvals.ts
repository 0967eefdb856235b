/**
 * Approval inbox routes (spec "Agent runtime surfaces": `/v1/user/approvals`, `GET /v1/admin/approvals`
 * list only; issue 5 item 3):
 * - `GET /v1/user/approvals?status&limit` -> 200 `{items: ApprovalView[]}` (the caller's)
 * - `POST /v1/user/approvals/{id}/approve|reject` body `{reason?}` (optional) -> 200 `ApprovalView`;
 *   404 `approval_not_found` (absent or another user's); 409 `approval_decided`
 * - `GET /v1/admin/approvals?status&limit` (admin) -> 200 `{items}` of the whole tenant
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { ApprovalListSchema, ApprovalQuerySchema, ApprovalViewSchema, DecisionSchema, IdParams } from '../contracts.js';
import type { ApprovalCenter } from '../domain/approvals.js';
import { ownerOf, type RouteScope } from './identity.js';

/** Options of the approval routes. */
export interface ApprovalRoutesOptions extends RouteScope {
  approvals: ApprovalCenter;
}

/** Most approvals a list answers by default. */
const DEFAULT_LIMIT = 100;

/** Register the approval routes. */
export const approvalRoutes: FastifyPluginAsyncTypebox<ApprovalRoutesOptions> = async (app, { tenantId, approvals }) => {
  app.get('/v1/user/approvals', {
    schema: { querystring: ApprovalQuerySchema, response: { 200: ApprovalListSchema } },
  }, async (req) => {
    const o = ownerOf(req, tenantId);
    return { items: await approvals.list(o.tenantId, o.userId, req.query.status ?? null, req.query.limit ?? DEFAULT_LIMIT) };
  });

  for (const [verb, status] of [['approve', 'approved'], ['reject', 'rejected']] as const) {
    app.post(`/v1/user/approvals/:id/${verb}`, {
      schema: { params: IdParams, body: DecisionSchema, response: { 200: ApprovalViewSchema } },
    }, async (req) => {
      const o = ownerOf(req, tenantId);
      return approvals.decide(req.params.id, o.tenantId, o.userId, status, req.body?.reason ?? null);
    });
  }

  app.get('/v1/admin/approvals', {
    schema: { querystring: ApprovalQuerySchema, response: { 200: ApprovalListSchema } },
  }, async (req) => {
    const p = requireRole(req, 'admin');
    return { items: await approvals.list(p.tenant_id || tenantId, null, req.query.status ?? null, req.query.limit ?? DEFAULT_LIMIT) };
  });
};
