/**
 * Build the observability app without listening (spec "Observability"): the shared server, the
 * generation, price, admin and internal routes, and a server span (stored directly) for each request
 * that carries a W3C `traceparent`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildServer } from '../../shared/http/server.js';
import { ActiveSpan, parseTraceparent } from './client.js';
import type { ObservabilityConfig } from './contracts.js';
import { ObsContext } from './domain/context.js';
import { adminRoutes } from './routes/admin.js';
import { generationRoutes } from './routes/generations.js';
import { priceRoutes } from './routes/prices.js';
import { ObsStore } from './store/obs-store.js';

declare module 'fastify' {
  interface FastifyRequest { obsSpan: ActiveSpan | null }
}

/** The built app and what `close()` must stop. */
export interface BuiltObservability {
  app: FastifyInstance;
  ctx: ObsContext;
  close(): Promise<void>;
}

/** Build the app on `cfg` (opens `<dbDir>/observability.sqlite`). */
export function buildObservabilityApp(cfg: ObservabilityConfig, opts: { logger: Logger }): BuiltObservability {
  const store = new ObsStore(cfg.dbDir, cfg.migrationsDir);
  const ctx = new ObsContext(cfg, store);
  const { app } = buildServer({ name: 'observability', logger: opts.logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys });

  // Our own spans go straight to the store (a batch per tick), never over HTTP to ourselves.
  let pending: Parameters<ObsStore['insertSpans']>[0] = [];
  const sink = (s: (typeof pending)[number]): void => {
    if (pending.length === 0) setImmediate(() => { const b = pending; pending = []; try { store.insertSpans(b); } catch (err) { opts.logger.warn({ err }, 'span insert failed'); } });
    pending.push(s);
  };
  app.decorateRequest('obsSpan', null);
  app.addHook('onRequest', async (req) => {
    const parent = parseTraceparent(req.headers.traceparent);
    if (!parent || req.url.startsWith('/v1/traces/spans')) return;
    req.obsSpan = new ActiveSpan(sink, 'observability', `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]}`, 'server', parent);
  });
  app.addHook('onResponse', async (req, reply) => {
    req.obsSpan?.end(reply.statusCode >= 500 ? 'error' : 'ok', { 'http.status_code': reply.statusCode });
  });

  void app.register(generationRoutes(ctx));
  void app.register(priceRoutes(ctx));
  void app.register(adminRoutes(ctx));

  const prune = setInterval(() => {
    try { store.prune(new Date(Date.now() - cfg.traceRetentionDays * 86_400_000).toISOString()); } catch { /* next round */ }
  }, 3_600_000);
  prune.unref();

  return {
    app, ctx,
    close: async () => {
      clearInterval(prune);
      if (pending.length) { try { store.insertSpans(pending); } catch { /* closing */ } pending = []; }
      store.close();
    },
  };
}
