/**
 * The `gateway-proxy` plugin: the gateway's one route, `/*` for every method it serves, answering
 * each admitted request by its route-table target (spec: "What the service does" 4-5):
 *
 * - a `proxy` target is forwarded to its owning service (forward.ts), bodies as raw bytes;
 * - a `local` target is answered by the handler another gateway plugin registered for it through
 *   `app.gatewayTargets.handle(name, fn)` (`status`, `agui`, `login`, `login_2fa`); `reserved` and
 *   `unavailable` patterns answer 404 here;
 * - a request no route matched goes to the `unmatched` handler (the renderer's files when the
 *   `gateway-static` plugin is registered), else 404 `not_found`.
 *
 * Request bodies pass through untouched: every content type is buffered and forwarded byte for
 * byte, bounded by the limit of the route's owning service (domain/body-limits.ts, capped by
 * `maxRequestBodyBytes`; issue 11 item 4): a larger body answers 413 `payload_too_large` here,
 * from its Content-Length before a byte is read, or as soon as a chunked body passes the limit.
 */
import { Transform, type Readable } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, notFoundError } from '../../../shared/kit/domain-error.js';
import type { BodyLimits } from '../domain/body-limits.js';
import type { LocalTargetName } from '../domain/route-table.js';
import type { UpstreamProxy } from './forward.js';

export type { LocalTargetName } from '../domain/route-table.js';

/** A gateway-owned answer; `path` is the request path without the query. Returns what a fastify handler returns. */
export type LocalHandler = (req: FastifyRequest, reply: FastifyReply, path: string) => unknown;

/** Extension point of `gateway-proxy` (`app.gatewayTargets`). */
export interface LocalTargets {
  /** Answer requests whose route targets the local handler `name`. */
  handle(name: LocalTargetName, handler: LocalHandler): void;
  /** Answer requests no route matched (default: 404 `not_found`). */
  unmatched(handler: LocalHandler): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where gateway plugins register local route targets (`gateway-proxy`). */
    gatewayTargets: LocalTargets;
  }
}

/** Options of the `gateway-proxy` plugin. */
export interface ProxyPluginOptions {
  proxy: UpstreamProxy;
  /** Largest request body of any route, bytes (`maxRequestBodyBytes`). */
  bodyLimit: number;
  /** The body limits of the upstream routes (issue 11 item 4). */
  bodyLimits: BodyLimits;
}

const MiB = 1024 * 1024;

const noRoute: LocalHandler = (req, _reply, path) => { throw notFoundError(`no route for ${req.method} ${path}`); };

/** Register the body pass-through, `app.gatewayTargets` and the `/*` route. */
export const proxyPlugin = fp<ProxyPluginOptions>(async (app, opts) => {
  const { proxy } = opts;
  const handlers: Partial<Record<LocalTargetName, LocalHandler>> = {
    reserved: (_req, _reply, path) => { throw notFoundError(`${path} is a reserved gateway pattern with no backing route`); },
    unavailable: (_req, _reply, path) => { throw notFoundError(`${path} is not available in this build`); },
  };
  let unmatched = noRoute;
  app.decorate('gatewayTargets', {
    handle: (name, handler) => { handlers[name] = handler; },
    unmatched: (handler) => { unmatched = handler; },
  } satisfies LocalTargets);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: opts.bodyLimit }, (_req, body, done) => done(null, body));
  const limitOf = (req: FastifyRequest): number => {
    const own = routeBodyLimit(req, opts.bodyLimits);
    // Offline update bundles (issue 19 item 4) are streamed to disk, not buffered: their own, larger limit.
    const t = req.gw?.rule?.target;
    if (own !== null && t?.kind === 'local' && t.handler === 'ops') return own;
    // Backup archives sent as application/vnd.svc.backup stream to disk too (issue 19 item 2, routes/backups.ts).
    if (own !== null && t?.kind === 'local' && t.handler === 'backups' && req.headers['content-type'] === 'application/vnd.svc.backup') return own;
    return Math.min(opts.bodyLimit, own ?? opts.bodyLimit);
  };
  // A callback hook (no promise per request): this runs on the hot path of every request.
  app.addHook('preParsing', (req, reply, payload, done) => {
    const length = req.headers['content-length'];
    if (!req.gw || (length === undefined && req.headers['transfer-encoding'] === undefined)) { done(null, payload); return; }
    const limit = limitOf(req);
    if (length !== undefined && Number(length) > limit) {
      // Close rather than read and discard the unread body.
      void reply.header('connection', 'close');
      done(tooLarge(limit));
      return;
    }
    done(null, length === undefined ? capped(payload, limit) : payload);
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/*',
    handler: async (req, reply) => {
      // The path admission normalised, routed and guarded: forward exactly that one.
      const path = req.gw!.path;
      const rule = req.gw!.rule;
      if (!rule) return unmatched(req, reply, path);
      const t = rule.target;
      if (t.kind === 'proxy') return proxy.forward(req, reply, t.service, t.rewrite ? t.rewrite(path) : path, rule.endless === true, rule.credentials === true);
      return (handlers[t.handler] ?? noRoute)(req, reply, path);
    },
  });
}, { name: 'gateway-proxy', fastify: '5.x', dependencies: ['gateway-admission'] });

/**
 * The body limit of the service a request goes to (`req.gw` set by admission), bytes, or null for
 * the gateway's own answers other than AG-UI and the login (status, reserved patterns, renderer files).
 */
function routeBodyLimit(req: FastifyRequest, limits: BodyLimits): number | null {
  const rule = req.gw?.rule;
  if (!rule) return null;
  const t = rule.target;
  if (t.kind === 'proxy') return limits.upstream(t.service, req.method, t.rewrite ? t.rewrite(req.gw!.path) : req.gw!.path);
  // The AG-UI stream is the runtime's chat stream underneath.
  return t.handler === 'agui' ? limits.upstream('agent-runtime', 'POST', '/v1/chat/stream') : limits.local(t.handler);
}

/** 413 `payload_too_large` naming the route's limit (`limit_bytes`, and in words: "1 MiB"). */
function tooLarge(limit: number): DomainError<'payload_too_large'> {
  const words = limit % MiB === 0 ? `${limit / MiB} MiB` : limit % 1024 === 0 ? `${limit / 1024} KiB` : `${limit} bytes`;
  return new DomainError('payload_too_large', `request body exceeds the ${words} limit of this route`, { extra: { limit_bytes: limit } });
}

/** A chunked body, failing with 413 as soon as more than `limit` bytes arrived. */
function capped(payload: Readable, limit: number): Readable {
  let seen = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > limit) cb(tooLarge(limit));
      else cb(null, chunk);
    },
  });
  payload.on('error', (err) => out.destroy(err));
  return payload.pipe(out);
}
