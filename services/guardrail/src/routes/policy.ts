/**
 * Policy routes: `GET /v1/guard/policy?tenant_id&agent_id` (effective policy: defaults <- tenant <-
 * agent), `PUT /v1/guard/policy` (admin; partial override at tenant or agent level),
 * `DELETE /v1/guard/policy?tenant_id&agent_id` (admin; remove an override).
 */
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../../shared/http/errors.js';
import { requireRole } from '../../../shared/http/server.js';
import type { PolicyPutRequest, PolicyView } from '../contracts.js';
import { DEFAULT_POLICY, resolvePolicy, validateOverride, type GuardPolicy } from '../domain/policy.js';
import type { GuardStore } from '../store/guard-store.js';
import type { GuardContext } from './context.js';
import { principalFor } from './scope.js';

const ID = { type: 'string', minLength: 1, maxLength: 256 } as const;
const QUERY = { type: 'object', properties: { tenant_id: ID, agent_id: ID } } as const;
const ACTION = { type: 'string', enum: ['block', 'redact', 'flag', 'off'] } as const;
const SCANNER = { type: 'object', properties: { input: ACTION, output: ACTION, threshold: { type: 'number' } } } as const;
const POLICY_SCHEMA = {
  type: 'object',
  properties: {
    prompt_injection: SCANNER, harmful_content: SCANNER, secrets: SCANNER, system_prompt_leak: SCANNER,
    pii: { type: 'object', properties: { ...SCANNER.properties, entities: { type: 'array', items: { type: 'string' } }, nlp_in_checks: { type: 'boolean' } } },
    model_classifier: { type: 'object', properties: { mode: { type: 'string' }, threshold: { type: 'number' } } },
  },
} as const;
const VIEW_RESPONSE = {
  200: {
    type: 'object',
    properties: {
      tenant_id: { type: 'string' }, agent_id: { type: ['string', 'null'] }, policy: POLICY_SCHEMA,
      overrides: { type: 'object', properties: { tenant: { anyOf: [POLICY_SCHEMA, { type: 'null' }] }, agent: { anyOf: [POLICY_SCHEMA, { type: 'null' }] } } },
    },
  },
} as const;

/** Effective policy for (tenant, agent). */
export function effectivePolicy(store: GuardStore, tenantId: string, agentId: string | null | undefined): PolicyView {
  const tenant = store.getPolicy(tenantId, '')?.policy ?? null;
  const agent = agentId ? store.getPolicy(tenantId, agentId)?.policy ?? null : null;
  const policy: GuardPolicy = resolvePolicy(DEFAULT_POLICY, tenant, agent);
  return { tenant_id: tenantId, agent_id: agentId ?? null, policy, overrides: { tenant, agent } };
}

export function policyRoutes(ctx: GuardContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { tenant_id?: string; agent_id?: string } }>('/v1/guard/policy', { schema: { querystring: QUERY, response: VIEW_RESPONSE } }, async (req) => {
      const p = principalFor(req, req.query.tenant_id);
      return effectivePolicy(ctx.store, p.tenant_id || ctx.cfg.tenantId, req.query.agent_id);
    });

    app.put<{ Body: PolicyPutRequest }>('/v1/guard/policy', {
      schema: {
        body: { type: 'object', required: ['policy'], properties: { tenant_id: ID, agent_id: { type: ['string', 'null'], maxLength: 256 }, policy: { type: 'object' } } },
        response: VIEW_RESPONSE,
      },
    }, async (req) => {
      // The gateway admin-guards only /v1/admin/*: this route checks the role itself.
      const p = requireRole(req, 'admin');
      principalFor(req, req.body.tenant_id);
      const v = validateOverride(req.body.policy);
      if (!v.ok) throw invalidRequest(v.error, `body.${v.field}`);
      const tenantId = p.tenant_id || ctx.cfg.tenantId;
      const agentId = req.body.agent_id ?? '';
      const existing = ctx.store.getPolicy(tenantId, agentId)?.policy ?? {};
      const merged: Record<string, object> = { ...(existing as Record<string, object>) };
      for (const [k, val] of Object.entries(v.value)) merged[k] = { ...(merged[k] ?? {}), ...(val as object) };
      ctx.store.putPolicy(tenantId, agentId, merged, p.id);
      return effectivePolicy(ctx.store, tenantId, agentId || null);
    });

    app.delete<{ Querystring: { tenant_id?: string; agent_id?: string } }>('/v1/guard/policy', { schema: { querystring: QUERY } }, async (req, reply) => {
      const p = requireRole(req, 'admin');
      principalFor(req, req.query.tenant_id);
      ctx.store.deletePolicy(p.tenant_id || ctx.cfg.tenantId, req.query.agent_id ?? '');
      return reply.code(204).send();
    });
  };
}
