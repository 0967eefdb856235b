/**
 * Registry administration (spec "Inference router": `/v1/admin/inference/{rest}` rewritten by the
 * gateway to `/v1/internal/{rest}`, admin role; DESIGN.md bodies). Every change appends an audit row
 * and refreshes the snapshot at once (domain/admin.ts). Shapes and status codes: contracts.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import {
  NoContent, ProviderIdParams, ProviderInputSchema, ProviderListSchema, ProviderModelsQuery, ProviderModelsSchema, ProviderPatchSchema, ProviderViewSchema,
  RoleInputSchema, RoleListSchema, RoleParams, RoleViewSchema,
} from '../contracts.js';
import type { RegistryAdmin } from '../domain/admin.js';
import type { Registry } from '../domain/registry.js';

/** Options of `adminRoutes`. */
export interface AdminRoutesOptions {
  registry: Registry;
  admin: RegistryAdmin;
}

/** Register the admin routes. */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, { registry, admin }) => {
  app.get('/v1/internal/providers', { schema: { response: { 200: ProviderListSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return { items: await registry.list(), secret_store: registry.secretStore };
  });

  app.post('/v1/internal/providers', { schema: { body: ProviderInputSchema, response: { 201: ProviderViewSchema } } }, async (req, reply) => {
    const p = requireRole(req, 'admin');
    return reply.code(201).send(await admin.createProvider(req.body, p.id));
  });

  app.get('/v1/internal/providers/:id', { schema: { params: ProviderIdParams, response: { 200: ProviderViewSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return registry.get(req.params.id);
  });

  const patch = { schema: { params: ProviderIdParams, body: ProviderPatchSchema, response: { 200: ProviderViewSchema } } };
  app.patch('/v1/internal/providers/:id', patch, async (req) => admin.updateProvider(req.params.id, req.body, requireRole(req, 'admin').id));
  app.put('/v1/internal/providers/:id', patch, async (req) => admin.updateProvider(req.params.id, req.body, requireRole(req, 'admin').id));

  app.delete('/v1/internal/providers/:id', { schema: { params: ProviderIdParams, response: { 204: NoContent } } }, async (req, reply) => {
    const p = requireRole(req, 'admin');
    await admin.deleteProvider(req.params.id, p.id);
    return reply.code(204).send();
  });

  app.get('/v1/internal/providers/:id/models', { schema: { params: ProviderIdParams, querystring: ProviderModelsQuery, response: { 200: ProviderModelsSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return { items: await registry.models(req.params.id, req.query.refresh === true) };
  });

  app.get('/v1/internal/roles', { schema: { response: { 200: RoleListSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return { items: await registry.roles() };
  });

  app.get('/v1/internal/roles/:role', { schema: { params: RoleParams, response: { 200: RoleViewSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return registry.role(req.params.role);
  });

  app.put('/v1/internal/roles/:role', { schema: { params: RoleParams, body: RoleInputSchema, response: { 200: RoleViewSchema } } }, async (req) => {
    const p = requireRole(req, 'admin');
    return admin.setRole(req.params.role, req.body, p.id);
  });

  app.delete('/v1/internal/roles/:role', { schema: { params: RoleParams, response: { 204: NoContent } } }, async (req, reply) => {
    const p = requireRole(req, 'admin');
    await admin.clearRole(req.params.role, p.id);
    return reply.code(204).send();
  });
};
