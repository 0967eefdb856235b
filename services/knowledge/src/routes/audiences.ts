/**
 * Audience routes (spec "Knowledge"): list (any user: the upload form offers them), upsert and
 * member changes and lists (admin roles, checked by the domain). Bodies: contracts/audiences.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  AudienceListSchema, AudienceMembersRequestSchema, AudienceMembersSchema, AudienceSchema, AudienceTagParamsSchema, AudienceUpsertRequestSchema,
  AudienceWithMembersSchema, TenantQuerySchema,
} from '../contracts.js';
import type { Audiences } from '../domain/audiences.js';

/** Options of `audienceRoutes`. */
export interface AudienceRoutesOptions { audiences: Audiences }

const byTag = { params: AudienceTagParamsSchema, querystring: TenantQuerySchema } as const;

/** Register the audience routes. */
export const audienceRoutes: FastifyPluginAsyncTypebox<AudienceRoutesOptions> = async (app, { audiences }) => {
  /** `GET /v1/knowledge/admin/audiences` -> 200 `{items}` (any user). */
  app.get('/v1/knowledge/admin/audiences', { schema: { querystring: TenantQuerySchema, response: { 200: AudienceListSchema } } }, async (req) => {
    requirePrincipal(req);
    return audiences.list();
  });

  /** `PUT /v1/knowledge/admin/audiences/:tag` `{description?}` (admin) -> 200 the audience. */
  app.put('/v1/knowledge/admin/audiences/:audience_tag', { schema: { ...byTag, body: AudienceUpsertRequestSchema, response: { 200: AudienceSchema } } },
    async (req) => audiences.upsert(requirePrincipal(req), req.params.audience_tag, req.body?.description ?? null));

  /** `PUT /v1/knowledge/admin/audiences/:tag/members` `{user_ids}` (admin) -> 200 the audience with its members. */
  app.put('/v1/knowledge/admin/audiences/:audience_tag/members', {
    schema: { ...byTag, body: AudienceMembersRequestSchema, response: { 200: AudienceWithMembersSchema } },
  }, async (req) => audiences.setMembers(requirePrincipal(req), req.params.audience_tag, req.body.user_ids));

  /** `GET /v1/knowledge/admin/audiences/:tag/members` (admin) -> 200 `{tag, user_ids}`. */
  app.get('/v1/knowledge/admin/audiences/:audience_tag/members', { schema: { ...byTag, response: { 200: AudienceMembersSchema } } },
    async (req) => audiences.members(requirePrincipal(req), req.params.audience_tag));
};
