/**
 * MCP server routes (issue 17 item 3; spec "Agent runtime surfaces"). Admin (`admin` role, 403
 * `admin_required` before the body is looked at):
 * - `GET /v1/admin/mcp-servers` -> 200 `{items}`; `POST` body `McpServerInput` -> 201 view; 400
 *   `url_not_allowed` (the workstation's own service ports, link-local), `invalid_request`
 * - `GET|PUT|DELETE /v1/admin/mcp-servers/{id}` -> 200 view | 200 view | 204; 404 `mcp_server_not_found`
 * - `POST /v1/admin/mcp-servers/{id}/health` -> 200 `McpHealth`; `GET .../tools` -> 200 `McpToolList`
 *   (503 `service_unavailable` when the server cannot be listed)
 * Users:
 * - `GET /v1/user/mcp-servers` (tenant + own, with `opted_out`); `POST` (personal, `streamable_http`
 *   only: 400 `transport_not_allowed`) -> 201 view
 * - `DELETE /v1/user/mcp-servers/{id}` (own) -> 204; `PUT .../{id}/opt-out {opted_out}` -> 200 view;
 *   `POST .../{id}/health` -> 200; `GET .../{id}/tools` -> 200
 * Env and header values are answered as written (`${secret:NAME}` stays a reference).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import { McpHealthSchema, McpOptOutSchema, McpServerInputSchema, McpServerListSchema, McpServerParams, McpServerViewSchema, McpToolListSchema, NoContent } from '../contracts.js';
import { serverView, type McpActor, type McpCatalog } from '../domain/mcp/catalog.js';
import { McpServerFailure, type McpConnections } from '../domain/mcp/connections.js';
import { runtimeError } from '../domain/errors.js';
import type { RouteScope } from './identity.js';

/** Options of the MCP routes. */
export interface McpRoutesOptions extends RouteScope {
  catalog: McpCatalog;
  connections: McpConnections;
}

function actor(req: FastifyRequest, tenantId: string): McpActor {
  const p = requirePrincipal(req);
  return { tenantId: p.tenant_id || tenantId, userId: p.id, admin: p.roles.includes('admin') };
}

/** A listing failure as 503 (its message names the server, never a secret). */
function unavailable(err: unknown): never {
  if (err instanceof McpServerFailure) throw runtimeError('service_unavailable', `the MCP server "${err.serverName}" cannot be listed: ${err.message}`);
  throw err;
}

/** The admin half (its own plugin: the admin hook runs before validation). */
const adminMcpRoutes: FastifyPluginAsyncTypebox<McpRoutesOptions> = async (admin, { tenantId, catalog, connections }) => {
    admin.addHook('preValidation', async (req) => { requireRole(req, 'admin'); });
    admin.get('/v1/admin/mcp-servers', { schema: { response: { 200: McpServerListSchema } } }, async (req) => ({ items: await catalog.listTenant(actor(req, tenantId).tenantId) }));
    admin.post('/v1/admin/mcp-servers', { schema: { body: McpServerInputSchema, response: { 201: McpServerViewSchema } } }, async (req, reply) => {
      return reply.code(201).send(await catalog.create(actor(req, tenantId), req.body, false));
    });
    admin.get('/v1/admin/mcp-servers/:id', { schema: { params: McpServerParams, response: { 200: McpServerViewSchema } } }, async (req) => serverView(await catalog.tenantServer(actor(req, tenantId).tenantId, req.params.id)));
    admin.put('/v1/admin/mcp-servers/:id', { schema: { params: McpServerParams, body: McpServerInputSchema, response: { 200: McpServerViewSchema } } }, async (req) => catalog.update(actor(req, tenantId).tenantId, req.params.id, req.body));
    admin.delete('/v1/admin/mcp-servers/:id', { schema: { params: McpServerParams, response: { 204: NoContent } } }, async (req, reply) => {
      await catalog.remove(actor(req, tenantId), req.params.id, false);
      return reply.code(204).send(null);
    });
    admin.post('/v1/admin/mcp-servers/:id/health', { schema: { params: McpServerParams, response: { 200: McpHealthSchema } } }, async (req) => {
      return connections.health(await catalog.tenantServer(actor(req, tenantId).tenantId, req.params.id), null);
    });
    admin.get('/v1/admin/mcp-servers/:id/tools', { schema: { params: McpServerParams, response: { 200: McpToolListSchema } } }, async (req) => {
      return connections.tools(await catalog.tenantServer(actor(req, tenantId).tenantId, req.params.id), null).catch(unavailable);
    });
};

/** Register the MCP server routes. */
export const mcpRoutes: FastifyPluginAsyncTypebox<McpRoutesOptions> = async (app, opts) => {
  const { tenantId, catalog, connections } = opts;
  await app.register(adminMcpRoutes, opts);

  app.get('/v1/user/mcp-servers', { schema: { response: { 200: McpServerListSchema } } }, async (req) => ({ items: await catalog.listFor(actor(req, tenantId)) }));
  app.post('/v1/user/mcp-servers', { schema: { body: McpServerInputSchema, response: { 201: McpServerViewSchema } } }, async (req, reply) => {
    return reply.code(201).send(await catalog.create(actor(req, tenantId), req.body, true));
  });
  app.delete('/v1/user/mcp-servers/:id', { schema: { params: McpServerParams, response: { 204: NoContent } } }, async (req, reply) => {
    await catalog.remove(actor(req, tenantId), req.params.id, true);
    return reply.code(204).send(null);
  });
  app.put('/v1/user/mcp-servers/:id/opt-out', { schema: { params: McpServerParams, body: McpOptOutSchema, response: { 200: McpServerViewSchema } } }, async (req) => {
    return catalog.optOut(actor(req, tenantId), req.params.id, req.body.opted_out);
  });
  app.post('/v1/user/mcp-servers/:id/health', { schema: { params: McpServerParams, response: { 200: McpHealthSchema } } }, async (req) => {
    const who = actor(req, tenantId);
    return connections.health(await catalog.get(who, req.params.id), who.userId);
  });
  app.get('/v1/user/mcp-servers/:id/tools', { schema: { params: McpServerParams, response: { 200: McpToolListSchema } } }, async (req) => {
    const who = actor(req, tenantId);
    return connections.tools(await catalog.get(who, req.params.id), who.userId).catch(unavailable);
  });
};
