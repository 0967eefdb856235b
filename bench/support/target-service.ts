/**
 * The service behind the gateway in benchmarks: a real kit-built service (principal verification,
 * metrics, error handler) with one small JSON route, plus a no-op turn-event sink so the gateway's
 * event client has somewhere to post.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { CommonServiceConfig } from '../../services/shared/config.js';
import { defineService, serviceStart } from '../../services/shared/kit/service.js';
import type { ServiceName } from '../../services/shared/services.js';

const routes: FastifyPluginAsync = async (app) => {
  app.get('/v1/bench/echo', async (req) => ({ ok: true, user: req.principal?.id ?? null }));
  app.post('/v1/turns/events', async (req) => ({ accepted: (req.body as { events: unknown[] }).events.length, duplicates: 0, rejected: [] }));
};

/** Start the benchmark target (`start(cfg)` like every service). */
export const start = serviceStart(defineService<CommonServiceConfig>({
  // Not one of the product's services: its name only labels its log and metrics.
  name: 'bench-target' as ServiceName, errors: {}, setup: async ({ app }) => { await app.register(routes); },
}));
