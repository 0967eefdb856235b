/**
 * Roles and permission profiles (issue 13 item 8; spec "Roles and groups", "Agent runtime surfaces":
 * `/v1/admin/roles`). Every route needs the `admin` role: a user gets 403 `admin_required`.
 * - `GET /v1/admin/roles` -> 200 `RolesView` (fixed roles, SVC_GROUP_ROLE_MAP, profiles)
 * - `GET /v1/admin/roles/effective?roles&groups` -> 200 `EffectiveAccess` of those roles and groups
 * - `GET /v1/admin/roles/profiles` -> 200 `{items: PermissionProfile[]}`
 * - `POST /v1/admin/roles/profiles` body `ProfileInput` -> 201 profile; 409 `permission_profile_name_taken`
 * - `GET /v1/admin/roles/profiles/{id}` -> 200 profile; 404 `permission_profile_not_found`
 * - `PUT /v1/admin/roles/profiles/{id}` body `ProfileInput` -> 200 profile; 404, 409
 * - `DELETE /v1/admin/roles/profiles/{id}` -> 204; 404 `permission_profile_not_found`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requireRole } from '../../../shared/kit/principal.js';
import {
  EffectiveAccessSchema, EffectiveQuerySchema, IdParams, NoContent, PermissionProfileSchema, ProfileInputSchema, ProfileListSchema, RolesViewSchema,
} from '../contracts.js';
import type { KnowledgeScopeSync } from '../domain/admin/knowledge-sync.js';
import type { PermissionProfiles } from '../domain/admin/profiles.js';
import type { RouteScope } from './identity.js';

/** Options of the role routes. */
export interface AccessRoutesOptions extends RouteScope {
  profiles: PermissionProfiles;
  /** Pushes the list to the knowledge service after each change (waited for, never throws). */
  sync?: KnowledgeScopeSync;
}

/** `a,b , c` -> `['a', 'b', 'c']`. */
const csv = (s: string | undefined): string[] => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** Register the role and permission profile routes. */
export const accessRoutes: FastifyPluginAsyncTypebox<AccessRoutesOptions> = async (app, { tenantId, profiles, sync }) => {
  // Before validation: a user learns nothing about bodies or queries, only 403 `admin_required`.
  app.addHook('preValidation', async (req) => { requireRole(req, 'admin'); });
  const tenantOf = (req: FastifyRequest): string => requireRole(req, 'admin').tenant_id || tenantId;

  app.get('/v1/admin/roles', { schema: { response: { 200: RolesViewSchema } } }, async (req) => profiles.roles(tenantOf(req)));

  app.get('/v1/admin/roles/effective', { schema: { querystring: EffectiveQuerySchema, response: { 200: EffectiveAccessSchema } } },
    async (req) => profiles.effective(tenantOf(req), { roles: csv(req.query.roles), groups: csv(req.query.groups) }));

  app.get('/v1/admin/roles/profiles', { schema: { response: { 200: ProfileListSchema } } }, async (req) => ({ items: await profiles.list(tenantOf(req)) }));

  app.post('/v1/admin/roles/profiles', { schema: { body: ProfileInputSchema, response: { 201: PermissionProfileSchema } } }, async (req, reply) => {
    const p = requireRole(req, 'admin');
    const created = await profiles.create(p.tenant_id || tenantId, req.body, p.id);
    await sync?.push(p.tenant_id || tenantId);
    return reply.code(201).send(created);
  });

  app.get('/v1/admin/roles/profiles/:id', { schema: { params: IdParams, response: { 200: PermissionProfileSchema } } },
    async (req) => profiles.get(tenantOf(req), req.params.id));

  app.put('/v1/admin/roles/profiles/:id', { schema: { params: IdParams, body: ProfileInputSchema, response: { 200: PermissionProfileSchema } } }, async (req) => {
    const p = requireRole(req, 'admin');
    const replaced = await profiles.replace(p.tenant_id || tenantId, req.params.id, req.body, p.id);
    await sync?.push(p.tenant_id || tenantId);
    return replaced;
  });

  app.delete('/v1/admin/roles/profiles/:id', { schema: { params: IdParams, response: { 204: NoContent } } }, async (req, reply) => {
    await profiles.remove(tenantOf(req), req.params.id);
    await sync?.push(tenantOf(req));
    return reply.code(204).send(null);
  });
};
