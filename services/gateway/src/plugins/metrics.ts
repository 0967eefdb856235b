/**
 * The `gateway-metrics` plugin: the gateway's own Prometheus counters, on the kit's registry
 * (`app.metrics`, served at `GET /metrics`). The gateway counts answers per target instead of the
 * kit's `svc_http_requests_total`.
 *
 * - `svc_gateway_requests_total{status,target}`: every answer of the admission chain, `target` the
 *   owning service, the local handler (`status`, `agui`, ...) or `none`;
 * - `svc_gateway_rejections_total{code}`: every 4xx error answer, by error code.
 */
import fp from 'fastify-plugin';
import client from 'prom-client';

/** The gateway's counters. */
export interface GatewayCounters {
  /** Answers by status and target. */
  answered: client.Counter<'status' | 'target'>;
  /** Refusals (4xx error answers) by code. */
  rejected: client.Counter<'code'>;
  /** Issue 20: answers of the split's routes by route and transport (`grpc` / `http`). */
  transport?: client.Counter<'route' | 'transport'>;
  /** Issue 20: split routes sent over HTTP because gRPC could not carry them, by route and reason. */
  fallbacks?: client.Counter<'route' | 'reason'>;
  /** Issue 20: the gateway's turn-event batches delivered to audit, by transport. */
  turnEventBatches?: client.Counter<'transport'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's counters (`gateway-metrics`). */
    gatewayCounters: GatewayCounters;
  }
}

/** Register the counters on `app.metrics` and decorate `app.gatewayCounters`. */
export const gatewayMetricsPlugin = fp(async (app) => {
  const registers = [app.metrics];
  app.decorate('gatewayCounters', {
    answered: new client.Counter({ name: 'svc_gateway_requests_total', help: 'Requests answered by the gateway', labelNames: ['status', 'target'], registers }),
    rejected: new client.Counter({ name: 'svc_gateway_rejections_total', help: 'Requests refused by the gateway chain', labelNames: ['code'], registers }),
    transport: new client.Counter({ name: 'svc_gateway_route_transport_total', help: 'Answers of the transport split routes by transport', labelNames: ['route', 'transport'], registers }),
    turnEventBatches: new client.Counter({ name: 'svc_gateway_turn_event_batches_total', help: 'Turn-event batches delivered to audit by transport', labelNames: ['transport'], registers }),
    fallbacks: new client.Counter({ name: 'svc_gateway_grpc_fallbacks_total', help: 'Split routes sent over HTTP because gRPC could not carry them', labelNames: ['route', 'reason'], registers }),
  } satisfies GatewayCounters);
}, { name: 'gateway-metrics', fastify: '5.x', dependencies: ['svc-metrics'] });
