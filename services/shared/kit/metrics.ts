/**
 * The `svc-metrics` plugin: a Prometheus registry per service at `GET /metrics` (public), labelled
 * with the service name, with Node's default metrics and a request counter
 * `svc_http_requests_total{method,status}`. Services add their own collectors to `app.metrics`.
 */
import fp from 'fastify-plugin';
import client from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's Prometheus registry (`svc-metrics`). */
    metrics: client.Registry;
  }
}

/** Options of the `svc-metrics` plugin. */
export interface MetricsPluginOptions {
  /** Service name, the `service` label of every series. */
  name: string;
  /** Collect Node default metrics (memory, event loop). Default true. */
  defaultMetrics?: boolean;
  /** Count answered requests in `svc_http_requests_total`. Default true. */
  countRequests?: boolean;
}

/** Register the registry decorator and `GET /metrics`. */
export const metricsPlugin = fp<MetricsPluginOptions>(async (app, opts) => {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service: opts.name });
  if (opts.defaultMetrics !== false) client.collectDefaultMetrics({ register: registry });
  app.decorate('metrics', registry);
  if (opts.countRequests !== false) {
    const requests = new client.Counter({
      name: 'svc_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'status'], registers: [registry],
    });
    app.addHook('onResponse', async (req, reply) => {
      requests.inc({ method: req.method, status: String(reply.statusCode) });
    });
  }
  app.get('/metrics', { config: { public: true } }, async (_req, reply) => {
    void reply.type(registry.contentType);
    return registry.metrics();
  });
}, { name: 'svc-metrics', fastify: '5.x' });
