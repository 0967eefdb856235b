/**
 * Skill routes (spec "Agent runtime surfaces": `/v1/skills`; issue 17 item 2):
 * - `GET /v1/skills` -> 200 `{items: SkillView[]}` (the tenant's and the caller's own)
 * - `POST /v1/skills` body `SkillCreate` -> 201 `SkillView` (version 1); 403 `forbidden` (tenant scope
 *   without the admin role); 409 `skill_name_taken`
 * - `GET /v1/skills/{id}` -> 200; 404 `skill_not_found` (absent, or another user's personal skill)
 * - `PUT /v1/skills/{id}` body `SkillUpdate` -> 200 (a change makes the next version); 403, 404, 409
 * - `DELETE /v1/skills/{id}` -> 204 (with its versions); 403, 404
 * - `GET /v1/skills/{id}/versions` -> 200 `{items: SkillVersion[]}` newest first; 404
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdParams, NoContent, SkillCreateSchema, SkillListSchema, SkillUpdateSchema, SkillVersionListSchema, SkillViewSchema } from '../contracts.js';
import type { SkillLibrary } from '../domain/skills/library.js';
import { catalogCaller } from './agents.js';
import type { RouteScope } from './identity.js';

/** Options of the skill routes. */
export interface SkillRoutesOptions extends RouteScope {
  skills: SkillLibrary;
}

/** Register the skill routes. */
export const skillRoutes: FastifyPluginAsyncTypebox<SkillRoutesOptions> = async (app, { tenantId, skills }) => {
  app.get('/v1/skills', { schema: { response: { 200: SkillListSchema } } }, async (req) => ({ items: await skills.list(catalogCaller(req, tenantId)) }));

  app.post('/v1/skills', { schema: { body: SkillCreateSchema, response: { 201: SkillViewSchema } } },
    async (req, reply) => reply.code(201).send(await skills.create(catalogCaller(req, tenantId), req.body)));

  app.get('/v1/skills/:id', { schema: { params: IdParams, response: { 200: SkillViewSchema } } },
    async (req) => skills.get(catalogCaller(req, tenantId), req.params.id));

  app.get('/v1/skills/:id/versions', { schema: { params: IdParams, response: { 200: SkillVersionListSchema } } },
    async (req) => ({ items: await skills.versions(catalogCaller(req, tenantId), req.params.id) }));

  app.put('/v1/skills/:id', { schema: { params: IdParams, body: SkillUpdateSchema, response: { 200: SkillViewSchema } } },
    async (req) => skills.update(catalogCaller(req, tenantId), req.params.id, req.body));

  app.delete('/v1/skills/:id', { schema: { params: IdParams, response: { 204: NoContent } } }, async (req, reply) => {
    await skills.delete(catalogCaller(req, tenantId), req.params.id);
    return reply.code(204).send(null);
  });
};
