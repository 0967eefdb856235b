/**
 * The `router-tracing` plugin: a server span per request (W3C `traceparent` accepted as its
 * parent), ended with the answer's status, and the answer header `x-svc-trace-id` naming its trace.
 * Health, readiness and metrics (`/healthz`, `/readyz`, `/metrics`) are never traced. A streamed
 * chat answer ends its span itself (with the stream's outcome) and, being written outside fastify's
 * send, carries no trace header.
 */
import fp from 'fastify-plugin';
import { parseTraceparent, type ActiveSpan, type SpanExporter } from '../../../observability/src/client.js';
import { TRACE_ID_HEADER } from '../contracts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span (null on untraced paths). */
    routerSpan: ActiveSpan | null;
  }
}

/** Paths that get no span. */
export const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/** Options of the `router-tracing` plugin. */
export interface TracingOptions {
  tracer: SpanExporter;
}

/** Register the span hooks (after `svc-principal`, so a refused stamp gets no span). */
export const routerTracing = fp<TracingOptions>(async (app, { tracer }) => {
  app.decorateRequest('routerSpan', null);
  app.addHook('onRequest', async (req) => {
    const path = req.url.split('?', 1)[0]!;
    if (UNTRACED.has(path)) return;
    req.routerSpan = tracer.start(`${req.method} ${req.routeOptions.url ?? path}`, 'server', parseTraceparent(req.headers.traceparent));
  });
  app.addHook('onResponse', async (req, reply) => {
    req.routerSpan?.end(reply.statusCode >= 500 ? 'error' : 'ok', { 'http.status_code': reply.statusCode });
  });
  app.addHook('onSend', async (req, reply) => {
    if (req.routerSpan) void reply.header(TRACE_ID_HEADER, req.routerSpan.traceId);
  });
}, { name: 'router-tracing', fastify: '5.x', dependencies: ['svc-principal'] });
