/**
 * The `svc-health` plugin: `GET /healthz` (liveness) and `GET /readyz` (readiness) of every
 * service, public (spec: "Health").
 *
 * `/healthz` answers `{status: "ok", service}`. `/readyz` answers `{status: "ready", service, ...}`
 * when every readiness check passes, else 503 `{error: <reason>, code: "not_ready"}`. The extension
 * point is `app.health`: `check(fn)` adds a readiness check, `detail(fn)` adds fields to the ready
 * body (knowledge and memory say whether dense retrieval is on), so nothing rewrites JSON in `onSend`.
 */
import fp from 'fastify-plugin';

/** A readiness check: `true` when ready, else the reason it is not. */
export type ReadinessCheck = () => true | string | Promise<true | string>;

/** Extra fields of the ready body. */
export type ReadinessDetail = () => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The `app.health` decorator. */
export interface HealthRegistry {
  /** Add a readiness check; checks run in the order added and the first failure answers. */
  check(fn: ReadinessCheck): void;
  /** Add fields to the 200 body of `/readyz`. */
  detail(fn: ReadinessDetail): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Readiness extension point of the `svc-health` plugin. */
    health: HealthRegistry;
  }
}

/** Options of the `svc-health` plugin. */
export interface HealthPluginOptions {
  /** Service name, echoed as `service`. */
  name: string;
}

/** Register `/healthz` and `/readyz` and the `app.health` extension point. */
export const healthPlugin = fp<HealthPluginOptions>(async (app, opts) => {
  const checks: ReadinessCheck[] = [];
  const details: ReadinessDetail[] = [];
  app.decorate('health', {
    check: (fn: ReadinessCheck) => { checks.push(fn); },
    detail: (fn: ReadinessDetail) => { details.push(fn); },
  } satisfies HealthRegistry);

  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok', service: opts.name }));
  app.get('/readyz', { config: { public: true } }, async (_req, reply) => {
    for (const check of checks) {
      const r = await check();
      if (r !== true) return reply.code(503).send({ error: r, code: 'not_ready' });
    }
    let body: Record<string, unknown> = { status: 'ready', service: opts.name };
    for (const d of details) body = { ...body, ...await d() };
    return body;
  });
}, { name: 'svc-health', fastify: '5.x', dependencies: ['svc-errors'] });
