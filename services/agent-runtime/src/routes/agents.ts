/**
 * Agent catalog routes (spec "Agent runtime surfaces": `/v1/agents`, `/v1/agents/*`; issue 17 item 1):
 * - `GET /v1/agents` -> 200 `{items: AgentView[]}` (the default agent, the tenant's, the caller's own)
 * - `POST /v1/agents` body `AgentCreate` -> 201 `AgentView`; 403 `forbidden` (`scope: "tenant"` without the admin role)
 * - `GET /v1/agents/{id}` -> 200 `AgentView`; 404 `agent_not_found` (absent, or another user's personal agent)
 * - `PUT /v1/agents/{id}` body `AgentCreate` -> 200 (replace); `PATCH` body `AgentPatch` -> 200; 403 `forbidden`
 *   (a tenant agent without the admin role), 404 `agent_not_found`
 * - `DELETE /v1/agents/{id}` -> 204; 403 `forbidden` (the default agent, a tenant agent without the admin role), 404
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AgentCreateSchema, AgentListSchema, AgentPatchSchema, AgentViewSchema, IdParams, NoContent } from '../contracts.js';
import type { AgentCatalog } from '../domain/agents/catalog.js';
import type { CatalogCaller } from '../domain/agents/ports.js';
import { turnIdentity, type RouteScope } from './identity.js';

/** Options of the agent routes. */
export interface AgentRoutesOptions extends RouteScope {
  agents: AgentCatalog;
}

/** The caller of a catalog route (agents, skills). */
export function catalogCaller(req: FastifyRequest, tenantId: string): CatalogCaller {
  const who = turnIdentity(req, tenantId);
  return { tenantId: who.tenantId, userId: who.userId, isAdmin: (who.roles ?? []).includes('admin') };
}

/** Register the agent routes. */
export const agentRoutes: FastifyPluginAsyncTypebox<AgentRoutesOptions> = async (app, { tenantId, agents }) => {
  app.get('/v1/agents', { schema: { response: { 200: AgentListSchema } } }, async (req) => ({ items: await agents.list(catalogCaller(req, tenantId)) }));

  app.post('/v1/agents', { schema: { body: AgentCreateSchema, response: { 201: AgentViewSchema } } },
    async (req, reply) => reply.code(201).send(await agents.create(catalogCaller(req, tenantId), req.body)));

  app.get('/v1/agents/:id', { schema: { params: IdParams, response: { 200: AgentViewSchema } } },
    async (req) => agents.get(catalogCaller(req, tenantId), req.params.id));

  app.put('/v1/agents/:id', { schema: { params: IdParams, body: AgentCreateSchema, response: { 200: AgentViewSchema } } },
    async (req) => agents.replace(catalogCaller(req, tenantId), req.params.id, req.body));

  app.patch('/v1/agents/:id', { schema: { params: IdParams, body: AgentPatchSchema, response: { 200: AgentViewSchema } } },
    async (req) => agents.patch(catalogCaller(req, tenantId), req.params.id, req.body));

  app.delete('/v1/agents/:id', { schema: { params: IdParams, response: { 204: NoContent } } }, async (req, reply) => {
    await agents.delete(catalogCaller(req, tenantId), req.params.id);
    return reply.code(204).send(null);
  });
};
