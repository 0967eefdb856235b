/**
 * Webhook administration (issue 18 item 2; under `/v1/admin/*`, which the gateway guards with the
 * admin role; the routes check it again):
 * - `POST /v1/admin/webhooks` body `WebhookCreate` -> 201 `WebhookCreated` (the secret, shown this once);
 *   404 `agent_not_found` (an agent_run target the caller cannot use)
 * - `GET /v1/admin/webhooks` -> 200 `{webhooks}`; `GET /v1/admin/webhooks/{id}` -> 200 `WebhookView` (never the secret)
 * - `DELETE /v1/admin/webhooks/{id}` -> 204
 * - `POST /v1/admin/webhooks/{id}/rotate` -> 200 `{id, secret}` (the old secret fails from now on)
 * - `GET /v1/admin/webhooks/{id}/deliveries` -> 200 `{deliveries}` (newest first)
 * 403 `forbidden` without the admin role; 404 `webhook_not_found`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { IdParams, NoContent } from '../contracts.js';
import {
  WebhookCreateSchema, WebhookCreatedSchema, WebhookDeliveryListSchema, WebhookListSchema, WebhookRotatedSchema, WebhookViewSchema,
} from '../contracts/webhooks.js';
import { runtimeError } from '../domain/errors.js';
import type { WebhookCaller, WebhookService } from '../domain/webhooks/service.js';
import { turnIdentity, type RouteScope } from './identity.js';

/** Options of the webhook admin routes. */
export interface WebhookAdminRoutesOptions extends RouteScope {
  webhooks: WebhookService;
}

function adminCaller(req: FastifyRequest, tenantId: string): WebhookCaller {
  const who = turnIdentity(req, tenantId);
  const roles = who.roles ?? [];
  if (!roles.includes('admin')) throw runtimeError('forbidden', 'webhooks are managed by admins');
  return { tenantId: who.tenantId, userId: who.userId, roles, groups: who.groups ?? [] };
}

/** Register the webhook admin routes. */
export const webhookAdminRoutes: FastifyPluginAsyncTypebox<WebhookAdminRoutesOptions> = async (app, { tenantId, webhooks }) => {
  app.post('/v1/admin/webhooks', { schema: { body: WebhookCreateSchema, response: { 201: WebhookCreatedSchema } } },
    async (req, reply) => reply.code(201).send(await webhooks.create(adminCaller(req, tenantId), req.body)));

  app.get('/v1/admin/webhooks', { schema: { response: { 200: WebhookListSchema } } },
    async (req) => ({ webhooks: await webhooks.list(adminCaller(req, tenantId).tenantId) }));

  app.get('/v1/admin/webhooks/:id', { schema: { params: IdParams, response: { 200: WebhookViewSchema } } },
    async (req) => webhooks.get(adminCaller(req, tenantId).tenantId, req.params.id));

  app.delete('/v1/admin/webhooks/:id', { schema: { params: IdParams, response: { 204: NoContent } } }, async (req, reply) => {
    await webhooks.delete(adminCaller(req, tenantId).tenantId, req.params.id);
    return reply.code(204).send(null);
  });

  app.post('/v1/admin/webhooks/:id/rotate', { schema: { params: IdParams, response: { 200: WebhookRotatedSchema } } },
    async (req) => webhooks.rotate(adminCaller(req, tenantId).tenantId, req.params.id));

  app.get('/v1/admin/webhooks/:id/deliveries', { schema: { params: IdParams, response: { 200: WebhookDeliveryListSchema } } },
    async (req) => ({ deliveries: await webhooks.deliveries(adminCaller(req, tenantId).tenantId, req.params.id) }));
};
