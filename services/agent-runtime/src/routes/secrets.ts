/**
 * Secret routes (spec "Agent runtime surfaces": `/v1/user/secrets`, admin `/v1/admin/tenant-secrets/*`;
 * issue 13 item 3). Values go in and never come out: every answer carries name, description and
 * times only. A user's secrets are the caller's; tenant secrets need the `admin` role (403
 * `admin_required` before the body is looked at).
 * - `GET /v1/user/secrets` -> 200 `{items: SecretView[]}` (by name)
 * - `PUT /v1/user/secrets/{name}` body `{value, description?}` -> 201 `SecretView` (created) or 200
 *   (replaced); 400 `invalid_request` (name not `^[A-Za-z0-9_.-]{1,64}$`, body); 413
 *   `payload_too_large` (value over 16 KiB of UTF-8); 503 `secret_store_unavailable`
 * - `DELETE /v1/user/secrets/{name}` -> 204; 404 `secret_not_found`
 * - the same three under `/v1/admin/tenant-secrets` (`GET`, `PUT /{name}`, `DELETE /{name}`) for the tenant
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { requireRole } from '../../../shared/kit/principal.js';
import { NoContent, SecretListSchema, SecretParams, SecretPutSchema, SecretViewSchema, type SecretPut } from '../contracts.js';
import type { SecretScope, SecretVault } from '../domain/secrets.js';
import { ownerOf, type RouteScope } from './identity.js';

/** Options of the secret routes. */
export interface SecretRoutesOptions extends RouteScope {
  vault: SecretVault;
}

/** The routes of one kind of scope under `prefix`. */
function scoped(prefix: string, scopeOf: (req: FastifyRequest) => SecretScope): FastifyPluginAsyncTypebox<{ vault: SecretVault }> {
  return async (app, { vault }) => {
    app.get(prefix, {
      schema: { response: { 200: SecretListSchema } },
    }, async (req) => ({ items: await vault.list(scopeOf(req)) }));

    app.put(`${prefix}/:name`, {
      schema: { params: SecretParams, body: SecretPutSchema, response: { 200: SecretViewSchema, 201: SecretViewSchema } },
    }, async (req, reply) => {
      const { secret, created } = await vault.put(scopeOf(req), req.params.name, req.body as SecretPut);
      return reply.code(created ? 201 : 200).send(secret);
    });

    app.delete(`${prefix}/:name`, {
      schema: { params: SecretParams, response: { 204: NoContent } },
    }, async (req, reply) => {
      await vault.delete(scopeOf(req), req.params.name);
      return reply.code(204).send(null);
    });
  };
}

/** Register the user and tenant secret routes. */
export const secretRoutes: FastifyPluginAsyncTypebox<SecretRoutesOptions> = async (app, { tenantId, vault }) => {
  await app.register(scoped('/v1/user/secrets', (req) => ({ ...ownerOf(req, tenantId) })), { vault });
  await app.register(async (admin) => {
    // Before validation: a user learns nothing about bodies or names, only 403 `admin_required`.
    admin.addHook('preValidation', async (req) => { requireRole(req, 'admin'); });
    await admin.register(scoped('/v1/admin/tenant-secrets', (req) => ({ tenantId: requireRole(req, 'admin').tenant_id || tenantId, userId: null })), { vault });
  });
};
