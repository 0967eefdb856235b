/**
 * Account routes: `GET /v1/user/me` (any principal) and the admin surface `/v1/admin/users*`
 * (principal with role `admin`, checked again here behind the gateway's admin guard, before the body
 * is parsed). DESIGN.md "Request bodies the spec leaves open".
 */
import type { FastifyPluginAsync } from 'fastify';
import { requirePrincipal, requireRole } from '../../../shared/http/server.js';
import { LIMITS, type CreateUserInput, type UpdateUserInput } from '../contracts.js';
import type { UserService } from '../domain/users.js';
import { displayNameSchema, emailSchema, passwordSchema, profileViewSchema, rolesSchema, userViewSchema } from './schemas.js';

/** Options of `userRoutes`. */
export interface UserRoutesOptions {
  users: UserService;
  /** The local issuer (`AuthConfig.issuer`), to tell local principals from others. */
  issuer: string;
}

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;

/** Register `/v1/user/me` and `/v1/admin/users*`. */
export const userRoutes: FastifyPluginAsync<UserRoutesOptions> = async (app, { users, issuer }) => {
  app.get('/v1/user/me', { schema: { response: { 200: profileViewSchema } } }, async (req) => users.profile(requirePrincipal(req), issuer));

  await app.register(async (admin) => {
    admin.addHook('onRequest', async (req) => { requireRole(req, 'admin'); });

    admin.post<{ Body: CreateUserInput }>('/v1/admin/users', {
      schema: {
        body: {
          type: 'object', required: ['email', 'display_name'], additionalProperties: false,
          properties: { email: emailSchema, display_name: displayNameSchema, password: passwordSchema, roles: rolesSchema },
        },
        response: { 201: userViewSchema },
      },
    }, async (req, reply) => reply.code(201).send(await users.create(req.body)));

    admin.get<{ Querystring: { limit: number; cursor?: string } }>('/v1/admin/users', {
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: LIMITS.pageMax, default: LIMITS.pageDefault }, cursor: { type: 'string', maxLength: 64 } },
        },
        response: { 200: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: userViewSchema }, next_cursor: { type: 'string' } } } },
      },
    }, async (req) => users.list(req.query.cursor ?? null, req.query.limit));

    admin.get<{ Params: { id: string } }>('/v1/admin/users/:id', {
      schema: { params: idParams, response: { 200: userViewSchema } },
    }, async (req) => users.get(req.params.id));

    admin.patch<{ Params: { id: string }; Body: UpdateUserInput }>('/v1/admin/users/:id', {
      schema: {
        params: idParams,
        body: {
          type: 'object', minProperties: 1, additionalProperties: false,
          properties: { display_name: displayNameSchema, roles: rolesSchema, disabled: { type: 'boolean' }, password: passwordSchema },
        },
        response: { 200: userViewSchema },
      },
    }, async (req) => users.update(requirePrincipal(req).id, req.params.id, req.body));
  });
};
