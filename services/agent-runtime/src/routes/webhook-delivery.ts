/**
 * Signed webhook deliveries (spec "Agent runtime surfaces": `/v1/webhook`, `/v1/webhook/*`; issue 18
 * item 2). Public: the gateway bypasses the bearer chain for these paths and the request is
 * authenticated by its signature (docs/webhooks.md). The body is read as raw bytes (every content
 * type, at most `WEBHOOK_BODY_LIMIT`), since the HMAC covers exactly the bytes sent.
 * - `POST /v1/webhook/{hook_id}` and `POST /v1/webhook` (JSON body with `hook_id`) -> 202
 *   `{delivery_id, accepted: true, turn_id?, notification_id?}`; 401 `webhook_signature_invalid`,
 *   401 `webhook_timestamp_invalid`, 409 `webhook_replayed`, 404 `webhook_not_found`; 413
 *   `payload_too_large`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  WEBHOOK_BODY_LIMIT, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, WebhookAcceptedSchema, WebhookHookParams,
} from '../contracts/webhooks.js';
import type { DeliveryInput, WebhookService } from '../domain/webhooks/service.js';
import type { RouteScope } from './identity.js';

/** Options of the delivery routes. */
export interface WebhookDeliveryRoutesOptions extends RouteScope {
  webhooks: WebhookService;
}

const pub = { public: true } as const;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function rawOf(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/** The `hook_id` of a body-addressed delivery, or null (not JSON, no string `hook_id`). */
function hookIdOf(raw: Buffer): string | null {
  try {
    const v = JSON.parse(raw.toString('utf8')) as { hook_id?: unknown } | null;
    return v && typeof v.hook_id === 'string' && v.hook_id.length > 0 && v.hook_id.length <= 64 ? v.hook_id : null;
  } catch { return null; }
}

/** Register the delivery routes (in their own context: its body parser keeps bytes raw). */
export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<WebhookDeliveryRoutesOptions> = async (app, { tenantId, webhooks }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  const input = (req: FastifyRequest, hookId: string | null): DeliveryInput => ({
    tenantId, hookId, timestamp: header(req, WEBHOOK_TIMESTAMP_HEADER), signature: header(req, WEBHOOK_SIGNATURE_HEADER), rawBody: rawOf(req),
  });

  app.post('/v1/webhook/:hook_id', { bodyLimit: WEBHOOK_BODY_LIMIT, config: pub, schema: { params: WebhookHookParams, response: { 202: WebhookAcceptedSchema } } },
    async (req, reply) => reply.code(202).send(await webhooks.deliver(input(req, req.params.hook_id))));

  app.post('/v1/webhook', { bodyLimit: WEBHOOK_BODY_LIMIT, config: pub, schema: { response: { 202: WebhookAcceptedSchema } } },
    async (req, reply) => reply.code(202).send(await webhooks.deliver(input(req, hookIdOf(rawOf(req))))));
};
