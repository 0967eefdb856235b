/**
 * Policy routes: `GET /v1/guard/policy?tenant_id&agent_id` (effective policy: defaults <- tenant <-
 * agent), `PUT /v1/guard/policy` (admin; partial override at tenant or agent level),
 * `DELETE /v1/guard/policy?tenant_id&agent_id` (admin; remove an override) -> 204.
 * The gateway admin-guards only /v1/admin/*: the changing routes check the role themselves.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import { NoContentSchema, PolicyPutRequestSchema, PolicyQuerySchema, PolicyViewSchema } from '../contracts.js';
import type { PolicyBook } from '../domain/policies.js';

/** Options of `policyRoutes`. */
export interface PolicyRoutesOptions { policies: PolicyBook }

/** Register the policy routes. */
export const policyRoutes: FastifyPluginAsyncTypebox<PolicyRoutesOptions> = async (app, { policies }) => {
  app.get('/v1/guard/policy', {
    schema: { querystring: PolicyQuerySchema, response: { 200: PolicyViewSchema } },
  }, async (req) => policies.view(requirePrincipal(req), req.query.tenant_id, req.query.agent_id));

  app.put('/v1/guard/policy', {
    schema: { body: PolicyPutRequestSchema, response: { 200: PolicyViewSchema } },
  }, async (req) => policies.put(requireRole(req, 'admin'), req.body));

  app.delete('/v1/guard/policy', { schema: { querystring: PolicyQuerySchema, response: { 204: NoContentSchema } } }, async (req, reply) => {
    await policies.remove(requireRole(req, 'admin'), req.query.tenant_id, req.query.agent_id);
    return reply.code(204).send(null);
  });
};
