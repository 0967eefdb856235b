/**
 * Tool and tool policy routes (spec "Agent runtime surfaces": `/v1/admin/policies/*`; issue 5 item 3):
 * - `GET /v1/tools?agent_id` -> 200 `{items: [{name, description, source, policy}]}` (effective policy for the caller)
 * - `GET /v1/admin/policies/tools` (admin) -> 200 `{items: rules, tools}`
 * - `PUT /v1/admin/policies/tools/{tool}` (admin) body `{policy, agent_id?}` -> 200 rule
 * - `DELETE /v1/admin/policies/tools/{tool}?agent_id` (admin) -> 204; 404 `not_found`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import { AgentQuerySchema, NoContent, PolicyListSchema, PolicyPutSchema, SourcedRuleAnswerSchema, ToolListSchema, ToolParamsSchema } from '../contracts.js';
import type { ToolPolicies } from '../domain/policies.js';
import { ownerOf, type RouteScope } from './identity.js';

/** Options of the policy routes. */
export interface PolicyRoutesOptions extends RouteScope {
  policies: ToolPolicies;
}

/** Register the tool and policy routes. */
export const policyRoutes: FastifyPluginAsyncTypebox<PolicyRoutesOptions> = async (app, { tenantId, policies }) => {
  app.get('/v1/tools', {
    schema: { querystring: AgentQuerySchema, response: { 200: ToolListSchema } },
  }, async (req) => policies.visibleTools(ownerOf(req, tenantId).tenantId, req.query.agent_id, requirePrincipal(req)));

  app.get('/v1/admin/policies/tools', {
    schema: { response: { 200: PolicyListSchema } },
  }, async (req) => policies.view(requireRole(req, 'admin').tenant_id || tenantId));

  app.put('/v1/admin/policies/tools/:tool', {
    schema: { params: ToolParamsSchema, body: PolicyPutSchema, response: { 200: SourcedRuleAnswerSchema } },
  }, async (req) => {
    const p = requireRole(req, 'admin');
    return policies.set(p.tenant_id || tenantId, req.params.tool, req.body, p.id);
  });

  app.delete('/v1/admin/policies/tools/:tool', {
    schema: { params: ToolParamsSchema, querystring: AgentQuerySchema, response: { 204: NoContent } },
  }, async (req, reply) => {
    await policies.remove(requireRole(req, 'admin').tenant_id || tenantId, req.params.tool, req.query.agent_id);
    return reply.code(204).send(null);
  });
};
