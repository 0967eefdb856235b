/**
 * Plugin routes (issue 17 item 4; spec "Agent runtime surfaces"):
 * - `GET /v1/user/plugins` -> 200 `{items: PluginView[]}`: the tool groups the caller sees
 * - `GET /v1/admin/plugins` (admin) -> 200 `{items}`: every group with who sees it
 * - `GET /v1/admin/plugins/{id}` -> 200 view; 404 `not_found`
 * - `PUT /v1/admin/plugins/{id}` body `{roles?, groups?}` -> 200 view (both empty: everyone)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../../shared/http/errors.js';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import { PluginListSchema, PluginParams, PluginPutSchema, PluginViewSchema } from '../contracts.js';
import type { Plugins } from '../domain/mcp/plugins.js';
import type { RouteScope } from './identity.js';

/** Options of the plugin routes. */
export interface PluginRoutesOptions extends RouteScope { plugins: Plugins }

const adminPluginRoutes: FastifyPluginAsyncTypebox<PluginRoutesOptions> = async (admin, { tenantId, plugins }) => {
  admin.addHook('preValidation', async (req) => { requireRole(req, 'admin'); });
  admin.get('/v1/admin/plugins', { schema: { response: { 200: PluginListSchema } } }, async (req) => ({ items: await plugins.list(requireRole(req, 'admin').tenant_id || tenantId, null) }));
  admin.get('/v1/admin/plugins/:id', { schema: { params: PluginParams, response: { 200: PluginViewSchema } } }, async (req) => {
    const found = (await plugins.list(requireRole(req, 'admin').tenant_id || tenantId, null)).find((p) => p.id === req.params.id);
    if (!found) throw new AppError(404, 'not_found', `no plugin ${req.params.id}`);
    return found;
  });
  admin.put('/v1/admin/plugins/:id', { schema: { params: PluginParams, body: PluginPutSchema, response: { 200: PluginViewSchema } } }, async (req) => {
    const p = requireRole(req, 'admin');
    return plugins.put(p.tenant_id || tenantId, req.params.id, req.body.roles ?? [], req.body.groups ?? [], p.id);
  });
};

/** Register the plugin routes. */
export const pluginRoutes: FastifyPluginAsyncTypebox<PluginRoutesOptions> = async (app, opts) => {
  await app.register(adminPluginRoutes, opts);
  app.get('/v1/user/plugins', { schema: { response: { 200: PluginListSchema } } }, async (req) => {
    const p = requirePrincipal(req);
    return { items: await opts.plugins.list(p.tenant_id || opts.tenantId, { userId: p.id, roles: p.roles, groups: p.groups }) };
  });
};
