/**
 * Upstream SSO admin surface (issue 15 item 2; spec "Gateway-owned admin" `/v1/admin/sso/idps`):
 * `GET|POST /v1/admin/sso/idps`, `GET|PUT|DELETE /v1/admin/sso/idps/{alias}`,
 * `POST /v1/admin/sso/idps/{alias}/test`. Every route requires the `admin` role (checked here again
 * behind the gateway's admin guard, before the body is parsed). No answer carries a client secret.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import {
  CreateUpstreamIdpSchema, IdpAliasParamsSchema, UpdateUpstreamIdpSchema, UpstreamIdpListSchema, UpstreamIdpTestResultSchema,
  UpstreamIdpViewSchema,
} from '../contracts/upstream-sso.js';
import type { UpstreamBroker } from '../domain/upstream-broker.js';

/** Options of `ssoAdminRoutes`. */
export interface SsoAdminRoutesOptions {
  broker: UpstreamBroker;
}

/** Register `/v1/admin/sso/idps*`. */
export const ssoAdminRoutes: FastifyPluginAsyncTypebox<SsoAdminRoutesOptions> = async (admin, { broker }) => {
  admin.addHook('onRequest', async (req) => { requireRole(req, 'admin'); });

  admin.get('/v1/admin/sso/idps', { schema: { response: { 200: UpstreamIdpListSchema } } }, async () => ({ items: await broker.adminList() }));

  admin.post('/v1/admin/sso/idps', { schema: { body: CreateUpstreamIdpSchema, response: { 201: UpstreamIdpViewSchema } } },
    async (req, reply) => reply.code(201).send(await broker.create(req.body)));

  admin.get('/v1/admin/sso/idps/:alias', { schema: { params: IdpAliasParamsSchema, response: { 200: UpstreamIdpViewSchema } } },
    async (req) => broker.adminGet(req.params.alias));

  admin.put('/v1/admin/sso/idps/:alias', { schema: { params: IdpAliasParamsSchema, body: UpdateUpstreamIdpSchema, response: { 200: UpstreamIdpViewSchema } } },
    async (req) => broker.update(req.params.alias, req.body));

  admin.delete('/v1/admin/sso/idps/:alias', { schema: { params: IdpAliasParamsSchema } }, async (req, reply) => {
    await broker.remove(req.params.alias);
    return reply.code(204).send();
  });

  admin.post('/v1/admin/sso/idps/:alias/test', { schema: { params: IdpAliasParamsSchema, response: { 200: UpstreamIdpTestResultSchema } } },
    async (req) => broker.test(req.params.alias));
};
