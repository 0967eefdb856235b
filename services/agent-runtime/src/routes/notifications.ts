/**
 * Notification routes (spec "Agent runtime surfaces": notifications; "Limits": notification payload
 * size and depth, NOTIFICATIONS_MAX_PER_USER; issue 13 item 1). The user routes are scoped to the
 * caller; another user's notification is 404.
 * - `GET /v1/notifications?limit&cursor` -> 200 `{items: NotificationView[], next_cursor?}`, newest first
 *   (`limit` 1-100, default 50); 400 `invalid_request` for a malformed cursor
 * - `GET /v1/notifications/unread-count` -> 200 `{count}`
 * - `POST /v1/notifications/{id}/read` -> 200 `NotificationView`; 404 `notification_not_found`
 * - `POST /v1/notifications/read-all` -> 200 `{marked}`
 * - `GET /v1/notifications/stream` -> 200 `text/event-stream`: `unread_count` `{count}` first, then
 *   `notification` (a new one) and `unread_count` after every change; `: keep-alive` every 15 s; the
 *   server ends a stream after 10 minutes (the client reconnects), or when the user opens a ninth
 * - `POST /v1/internal/notifications` (services) body `NotificationCreate` -> 201 `NotificationView`
 *   (new), 200 with the original for a repeated `idempotency_key`; 403 `service_account_required`
 *   (not a service principal), `producer_not_allowed` (not in NOTIFICATIONS_PRODUCERS); 413
 *   `payload_too_large` (payload over 8 KiB serialised); 400 `payload_too_deep` (over 8 levels: the
 *   body is refused by an iterative scan before it is parsed), `invalid_request`
 */
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { jsonNestingDepth } from '../../../shared/kit/json-depth.js';
import {
  NOTIFICATION_BODY_LIMIT, NOTIFICATION_PAYLOAD_MAX_DEPTH, NotificationCreateSchema, NotificationPageSchema, NotificationParams, NotificationQuerySchema,
  NotificationStreamSchema, NotificationViewSchema, ReadAllResultSchema, UnreadCountSchema,
} from '../contracts.js';
import { runtimeError } from '../domain/errors.js';
import type { Notifications } from '../domain/notifications/inbox.js';
import { producerOf } from '../domain/notifications/payload.js';
import { sseRecord } from './chat.js';
import { ownerOf, type RouteScope } from './identity.js';

/** Options of the notification routes. */
export interface NotificationRoutesOptions extends RouteScope {
  notifications: Notifications;
  /** NOTIFICATIONS_PRODUCERS (checked before the body is read). */
  producers: readonly string[];
  /** Interval of the `: keep-alive` comment, ms (default 15,000). */
  keepAliveMs?: number;
  /** The server ends a stream after this long, ms (default 600,000). */
  streamLifetimeMs?: number;
}

/** Register the notification routes. */
export const notificationRoutes: FastifyPluginAsyncTypebox<NotificationRoutesOptions> = async (app, opts) => {
  const { tenantId, notifications } = opts;
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  const lifetimeMs = opts.streamLifetimeMs ?? 600_000;
  const producers = new Set(opts.producers);
  // Live streams hold their connections open: end them before the server waits for requests.
  app.addHook('preClose', async () => { notifications.closeStreams(); });

  app.get('/v1/notifications', {
    schema: { querystring: NotificationQuerySchema, response: { 200: NotificationPageSchema } },
  }, async (req) => notifications.list(ownerOf(req, tenantId), req.query));

  app.get('/v1/notifications/unread-count', {
    schema: { response: { 200: UnreadCountSchema } },
  }, async (req) => ({ count: await notifications.unreadCount(ownerOf(req, tenantId)) }));

  app.post('/v1/notifications/:id/read', {
    schema: { params: NotificationParams, response: { 200: NotificationViewSchema } },
  }, async (req) => notifications.markRead(ownerOf(req, tenantId), req.params.id));

  app.post('/v1/notifications/read-all', {
    schema: { response: { 200: ReadAllResultSchema } },
  }, async (req) => ({ marked: await notifications.markAllRead(ownerOf(req, tenantId)) }));

  app.get('/v1/notifications/stream', {
    schema: { response: { 200: NotificationStreamSchema } },
  }, async (req, reply) => {
    const owner = ownerOf(req, tenantId);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const write = (text: string): void => { if (!res.destroyed && !res.writableEnded) res.write(text); };
    let stop = (): void => {};
    const end = (): void => {
      clearInterval(keepAlive);
      clearTimeout(lifetime);
      stop();
      if (!res.writableEnded) res.end();
    };
    const keepAlive = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
    const lifetime = setTimeout(end, lifetimeMs);
    keepAlive.unref();
    lifetime.unref();
    res.once('close', end);
    stop = notifications.follow(owner, { send: (name, data) => write(sseRecord(name, data)), close: end });
  });

  // The producer entry, in its own context: its JSON parser refuses a body nested deeper than the
  // payload may be (one level for the body object) with `payload_too_deep`, before parsing.
  await app.register(async (child) => {
    const internal = child.withTypeProvider<TypeBoxTypeProvider>();
    const { onProtoPoisoning, onConstructorPoisoning } = internal.initialConfig;
    const parse = internal.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
    const maxBodyDepth = NOTIFICATION_PAYLOAD_MAX_DEPTH + 1;
    internal.removeContentTypeParser('application/json');
    internal.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      if (jsonNestingDepth(body as string, maxBodyDepth) > maxBodyDepth) {
        done(runtimeError('payload_too_deep', `payload nests deeper than ${NOTIFICATION_PAYLOAD_MAX_DEPTH} levels`, { extra: { max_depth: NOTIFICATION_PAYLOAD_MAX_DEPTH } }), undefined);
        return;
      }
      parse(req, body as string, done);
    });
    internal.post('/v1/internal/notifications', {
      bodyLimit: NOTIFICATION_BODY_LIMIT,
      schema: { body: NotificationCreateSchema, response: { 200: NotificationViewSchema, 201: NotificationViewSchema } },
      // Refuse a caller before its body is read.
      onRequest: async (req) => { producerOf(requirePrincipal(req), producers); },
    }, async (req, reply) => {
      const out = await notifications.post(requirePrincipal(req), req.body);
      return reply.code(out.fresh ? 201 : 200).send(out.notification);
    });
  });
};
