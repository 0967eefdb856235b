/**
 * Approval inbox and tool policy routes (spec "Agent runtime surfaces": `/v1/user/approvals`,
 * `GET /v1/admin/approvals` list only, `/v1/admin/policies/*`; issue 5 item 3):
 * - `GET /v1/user/approvals?status&limit` -> 200 `{items: ApprovalView[]}` (the caller's)
 * - `POST /v1/user/approvals/{id}/approve|reject` body `{reason?}` (optional) -> 200 `ApprovalView`;
 *   404 `approval_not_found` (absent or another user's); 409 `approval_decided`
 * - `GET /v1/admin/approvals?status&limit` (admin) -> 200 `{items}` of the whole tenant
 * - `GET /v1/tools?agent_id` -> 200 `{items: [{name, description, source, policy}]}` (effective policy for the caller)
 * - `GET /v1/admin/policies/tools` (admin) -> 200 `{items: rules, tools}`
 * - `PUT /v1/admin/policies/tools/{tool}` (admin) body `{policy, agent_id?}` -> 200 rule
 * - `DELETE /v1/admin/policies/tools/{tool}?agent_id` (admin) -> 204; 404 `not_found`
 */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../../shared/http/errors.js';
import { requireRole } from '../../../shared/http/server.js';
import { resolvePolicy } from '../domain/tool-policy.js';
import { turnIdentity, type RuntimeContext } from './context.js';
import { AGENT_ID, APPROVAL_STATUS, ID_PARAM, POLICY } from './schemas.js';

const LIST_QUERY = { type: 'object', properties: { status: APPROVAL_STATUS, limit: { type: 'integer', minimum: 1, maximum: 500 } } } as const;
const DECISION_BODY = { type: ['object', 'null'], properties: { reason: { type: 'string', maxLength: 2000 } } } as const;
const TOOL_PARAM = { type: 'object', required: ['tool'], properties: { tool: { type: 'string', pattern: '^([A-Za-z0-9_-]{1,64}|\\*)$' } } } as const;

/** Register the approval and policy routes. */
export function approvalRoutes(ctx: RuntimeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { status?: string; limit?: number } }>('/v1/user/approvals', { schema: { querystring: LIST_QUERY } }, async (req) => {
      const who = turnIdentity(req, ctx.tenantId);
      return { items: ctx.approvals.list(who.tenantId, who.userId, req.query.status ?? null, req.query.limit ?? 100) };
    });

    for (const [verb, status] of [['approve', 'approved'], ['reject', 'rejected']] as const) {
      app.post<{ Params: { id: string }; Body: { reason?: string } | null | undefined }>(`/v1/user/approvals/:id/${verb}`, {
        schema: { params: ID_PARAM, body: DECISION_BODY },
      }, async (req) => {
        const who = turnIdentity(req, ctx.tenantId);
        return ctx.approvals.decide(req.params.id, who.tenantId, who.userId, status, req.body?.reason ?? null);
      });
    }

    app.get<{ Querystring: { status?: string; limit?: number } }>('/v1/admin/approvals', { schema: { querystring: LIST_QUERY } }, async (req) => {
      const p = requireRole(req, 'admin');
      return { items: ctx.approvals.list(p.tenant_id || ctx.tenantId, null, req.query.status ?? null, req.query.limit ?? 100) };
    });

    app.get<{ Querystring: { agent_id?: string } }>('/v1/tools', { schema: { querystring: { type: 'object', properties: { agent_id: AGENT_ID } } } }, async (req) => {
      const who = turnIdentity(req, ctx.tenantId);
      const agent = req.query.agent_id ?? ctx.settings.defaultAgentId;
      const rules = ctx.policyRules(who.tenantId);
      return {
        items: ctx.tools.list().map((t) => ({
          name: t.definition.function.name, description: t.definition.function.description, source: t.source,
          policy: resolvePolicy(rules, who.tenantId, agent, t.definition.function.name, t.defaultPolicy ?? 'auto').policy,
        })),
      };
    });

    app.get('/v1/admin/policies/tools', async (req) => {
      const p = requireRole(req, 'admin');
      return {
        items: ctx.policyRules(p.tenant_id || ctx.tenantId),
        tools: ctx.tools.list().map((t) => ({ name: t.definition.function.name, source: t.source, default_policy: t.defaultPolicy ?? 'auto' })),
      };
    });

    app.put<{ Params: { tool: string }; Body: { policy: 'auto' | 'ask' | 'deny'; agent_id?: string } }>('/v1/admin/policies/tools/:tool', {
      schema: { params: TOOL_PARAM, body: { type: 'object', required: ['policy'], properties: { policy: POLICY, agent_id: AGENT_ID } } },
    }, async (req) => {
      const p = requireRole(req, 'admin');
      const tenant = p.tenant_id || ctx.tenantId;
      ctx.store.upsertPolicy(tenant, req.body.agent_id ?? '', req.params.tool, req.body.policy, new Date().toISOString(), p.id);
      return { tool: req.params.tool, policy: req.body.policy, tenant_id: tenant, ...(req.body.agent_id ? { agent_id: req.body.agent_id } : {}), origin: 'admin' };
    });

    app.delete<{ Params: { tool: string }; Querystring: { agent_id?: string } }>('/v1/admin/policies/tools/:tool', {
      schema: { params: TOOL_PARAM, querystring: { type: 'object', properties: { agent_id: AGENT_ID } } },
    }, async (req, reply) => {
      const p = requireRole(req, 'admin');
      if (!ctx.store.deletePolicy(p.tenant_id || ctx.tenantId, req.query.agent_id ?? '', req.params.tool)) throw notFound('no such policy rule');
      return reply.code(204).send();
    });
  };
}
