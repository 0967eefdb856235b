/**
 * Transitional: `buildServer()` composes the kit's plugins for code not yet defined with
 * `defineService` (DESIGN.md "Inside a service"). New code uses `services/shared/kit`.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { errorOptions } from './framework-errors.js';
import { errorsPlugin, toErrorResponse } from '../kit/errors.js';
import { healthPlugin } from '../kit/health.js';
import { metricsPlugin } from '../kit/metrics.js';
import { principalPlugin, requirePrincipal, requireRole } from '../kit/principal.js';

export { toErrorResponse, requirePrincipal, requireRole };

/** Options of `buildServer`. */
export interface BuildServerOptions {
  name: string;
  logger: Logger;
  principalKeys: readonly string[];
  capTokenKeys: readonly string[];
  bodyLimit?: number;
  ready?: () => true | string | Promise<true | string>;
  defaultMetrics?: boolean;
}

/** Build a fastify instance with the kit's plugins registered (not listening). */
export function buildServer(opts: BuildServerOptions): { app: FastifyInstance } {
  const app = Fastify({
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...errorOptions,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
  });
  void app.register(errorsPlugin, { table: {} });
  void app.register(principalPlugin, { principalKeys: opts.principalKeys, capTokenKeys: opts.capTokenKeys });
  void app.register(healthPlugin, { name: opts.name });
  void app.register(metricsPlugin, { name: opts.name, ...(opts.defaultMetrics === undefined ? {} : { defaultMetrics: opts.defaultMetrics }) });
  if (opts.ready) { const ready = opts.ready; void app.after(() => { app.health.check(ready); }); }
  return { app };
}
