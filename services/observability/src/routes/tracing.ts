/**
 * The `obs-tracing` plugin: a server span for each request that carries a W3C `traceparent` (not
 * for span ingestion itself), ended with the answer's status and stored directly through `sink`,
 * never over HTTP to this service.
 */
import fp from 'fastify-plugin';
import { ActiveSpan, parseTraceparent } from '../client.js';
import type { SpanRecord } from '../contracts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span, when it came with a traceparent. */
    obsSpan: ActiveSpan | null;
  }
}

/** Options of the `obs-tracing` plugin. */
export interface ObsTracingOptions {
  /** Where finished spans go. */
  sink: (s: SpanRecord) => void;
}

/** Register the span hooks (after `svc-principal`). */
export const obsTracing = fp<ObsTracingOptions>(async (app, { sink }) => {
  app.decorateRequest('obsSpan', null);
  app.addHook('onRequest', async (req) => {
    const parent = parseTraceparent(req.headers.traceparent);
    if (!parent || req.url.startsWith('/v1/traces/spans')) return;
    req.obsSpan = new ActiveSpan(sink, 'observability', `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`, 'server', parent);
  });
  app.addHook('onResponse', async (req, reply) => {
    req.obsSpan?.end(reply.statusCode >= 500 ? 'error' : 'ok', { 'http.status_code': reply.statusCode });
  });
}, { name: 'obs-tracing', fastify: '5.x', dependencies: ['svc-principal'] });
