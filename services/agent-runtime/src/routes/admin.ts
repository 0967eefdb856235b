/**
 * Admin surfaces (issue 13 item 8; spec "Agent runtime surfaces": `/v1/admin/mission-control`,
 * `/v1/admin/onboarding/*`, `/v1/admin/policies/*`, `/v1/admin/agentops/*`). Every route needs the
 * `admin` role: a user gets 403 `admin_required`.
 * - `GET /v1/admin/mission-control` -> 200 `MissionControl`
 * - `GET /v1/admin/onboarding/checklist` -> 200 `OnboardingChecklist`
 * - `GET /v1/admin/policies` -> 200 `PoliciesSummary` (tool policies + the guardrail's effective policy)
 * - `GET /v1/admin/policies/guardrail?agent_id` -> 200 the guardrail's policy view; 503 `service_unavailable`
 * - `PUT /v1/admin/policies/guardrail` body `{agent_id?, policy}` -> 200 the policy view; 400 `invalid_request` (field)
 * - `DELETE /v1/admin/policies/guardrail?agent_id` -> 204
 * - `GET /v1/admin/agentops/agents?days` -> 200 `AgentOps`
 * (`/v1/admin/policies/tools` stays in routes/policies.ts.)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requireRole } from '../../../shared/kit/principal.js';
import {
  AgentOpsQuerySchema, AgentOpsSchema, GuardPolicyPutSchema, GuardPolicyQuerySchema, GuardPolicyViewSchema, MissionControlSchema, NoContent,
  OnboardingChecklistSchema, PoliciesSummarySchema,
} from '../contracts.js';
import type { AgentOpsService } from '../domain/admin/agentops.js';
import type { MissionControlService } from '../domain/admin/mission-control.js';
import type { OnboardingChecklistService } from '../domain/admin/onboarding.js';
import type { PolicyHub } from '../domain/admin/policy-hub.js';
import type { RouteScope } from './identity.js';

/** Options of the admin routes. */
export interface AdminRoutesOptions extends RouteScope {
  missionControl: MissionControlService;
  onboarding: OnboardingChecklistService;
  policyHub: PolicyHub;
  agentOps: AgentOpsService;
}

const FORWARD = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id'] as const;

/** The admin's stamped identity headers, to forward where a peer needs the admin role. */
function asAdmin(req: FastifyRequest): Record<string, string> {
  const h: Record<string, string> = {};
  for (const k of FORWARD) {
    const v = req.headers[k];
    if (typeof v === 'string') h[k] = v;
  }
  return h;
}

/** Register the admin routes. */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, o) => {
  // Before validation: a user learns nothing about bodies or queries, only 403 `admin_required`.
  app.addHook('preValidation', async (req) => { requireRole(req, 'admin'); });
  const tenantOf = (req: FastifyRequest): string => requireRole(req, 'admin').tenant_id || o.tenantId;

  /** Mission control: the live state of the workstation. */
  app.get('/v1/admin/mission-control', { schema: { response: { 200: MissionControlSchema } } },
    async (req) => o.missionControl.snapshot(tenantOf(req), asAdmin(req)));

  /** The first-run checklist with each item's live state. */
  app.get('/v1/admin/onboarding/checklist', { schema: { response: { 200: OnboardingChecklistSchema } } }, async (req) => {
    const p = requireRole(req, 'admin');
    return o.onboarding.checklist({ id: p.id, ...(p.email ? { email: p.email } : {}), ...(p.display_name ? { display_name: p.display_name } : {}) }, asAdmin(req));
  });

  /** Tool and guardrail policies in one place. */
  app.get('/v1/admin/policies', { schema: { response: { 200: PoliciesSummarySchema } } },
    async (req) => o.policyHub.summary(tenantOf(req)));

  app.get('/v1/admin/policies/guardrail', { schema: { querystring: GuardPolicyQuerySchema, response: { 200: GuardPolicyViewSchema } } }, async (req) => {
    tenantOf(req);
    return o.policyHub.guardrail(req.query.agent_id);
  });

  app.put('/v1/admin/policies/guardrail', { schema: { body: GuardPolicyPutSchema, response: { 200: GuardPolicyViewSchema } } }, async (req) => {
    tenantOf(req);
    return o.policyHub.putGuardrail(asAdmin(req), req.body);
  });

  app.delete('/v1/admin/policies/guardrail', { schema: { querystring: GuardPolicyQuerySchema, response: { 204: NoContent } } }, async (req, reply) => {
    tenantOf(req);
    await o.policyHub.deleteGuardrail(asAdmin(req), req.query.agent_id);
    return reply.code(204).send(null);
  });

  /** Per-agent runs, failures, tool error rates, latency and cost by day. */
  app.get('/v1/admin/agentops/agents', { schema: { querystring: AgentOpsQuerySchema, response: { 200: AgentOpsSchema } } },
    async (req) => o.agentOps.agents(tenantOf(req), req.query.days ?? 14));
};
