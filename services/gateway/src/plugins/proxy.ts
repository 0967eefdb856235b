/**
 * The `gateway-proxy` plugin: the gateway's one route, `/*` for every method it serves, answering
 * each admitted request by its route-table target (spec: "What the service does" 4-5):
 *
 * - a `proxy` target is forwarded to its owning service (forward.ts), bodies as raw bytes;
 * - a `local` target is answered by the handler another gateway plugin registered for it through
 *   `app.gatewayTargets.handle(name, fn)` (`status`, `agui`); `reserved` and `unavailable`
 *   patterns answer 404 here;
 * - a request no route matched goes to the `unmatched` handler (the renderer's files when the
 *   `gateway-static` plugin is registered), else 404 `not_found`.
 *
 * Request bodies pass through untouched: every content type is buffered (bounded by
 * `maxRequestBodyBytes`) and forwarded byte for byte.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFoundError } from '../../../shared/kit/domain-error.js';
import type { RouteTarget } from '../domain/route-table.js';
import type { UpstreamProxy } from './forward.js';

/** Names of the gateway-owned route targets. */
export type LocalTargetName = Extract<RouteTarget, { kind: 'local' }>['handler'];

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
  /** Largest request body, bytes (`maxRequestBodyBytes`). */
  bodyLimit: number;
}

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

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/*',
    handler: async (req, reply) => {
      // The path admission normalised, routed and guarded: forward exactly that one.
      const path = req.gw!.path;
      const rule = req.gw!.rule;
      if (!rule) return unmatched(req, reply, path);
      const t = rule.target;
      if (t.kind === 'proxy') return proxy.forward(req, reply, t.service, t.rewrite ? t.rewrite(path) : path);
      return (handlers[t.handler] ?? noRoute)(req, reply, path);
    },
  });
}, { name: 'gateway-proxy', fastify: '5.x', dependencies: ['gateway-admission'] });
