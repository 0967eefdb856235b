/**
 * Account routes: `GET /v1/user/me` (any principal) and the admin surface `/v1/admin/users*`
 * (principal with role `admin`, checked again here behind the gateway's admin guard, before the body
 * is parsed). DESIGN.md "Request bodies the spec leaves open".
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import {
  CreateUserSchema, ProfileViewSchema, UpdateUserSchema, UserIdParamsSchema, UserListQuerySchema, UserPageSchema, UserViewSchema,
} from '../contracts.js';
import type { UserService } from '../domain/users.js';

/** Options of `userRoutes`. */
export interface UserRoutesOptions {
  users: UserService;
  /** The local issuer (`AuthConfig.issuer`), to tell local principals from others. */
  issuer: string;
}

/** The admin surface `/v1/admin/users*`: every route requires the `admin` role before the body is parsed. */
const adminUserRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (admin, { users }) => {
  admin.addHook('onRequest', async (req) => { requireRole(req, 'admin'); });

  admin.post('/v1/admin/users', { schema: { body: CreateUserSchema, response: { 201: UserViewSchema } } },
    async (req, reply) => reply.code(201).send(await users.create(req.body)));

  admin.get('/v1/admin/users', { schema: { querystring: UserListQuerySchema, response: { 200: UserPageSchema } } },
    async (req) => users.list(req.query.cursor ?? null, req.query.limit));

  admin.get('/v1/admin/users/:id', { schema: { params: UserIdParamsSchema, response: { 200: UserViewSchema } } },
    async (req) => users.get(req.params.id));

  admin.patch('/v1/admin/users/:id', { schema: { params: UserIdParamsSchema, body: UpdateUserSchema, response: { 200: UserViewSchema } } },
    async (req) => users.update(requirePrincipal(req).id, req.params.id, req.body));
};

/** Register `/v1/user/me` and `/v1/admin/users*`. */
export const userRoutes: FastifyPluginAsyncTypebox<UserRoutesOptions> = async (app, { users, issuer }) => {
  app.get('/v1/user/me', { schema: { response: { 200: ProfileViewSchema } } }, async (req) => users.profile(requirePrincipal(req), issuer));
  await app.register(adminUserRoutes, { users });
};
