/**
 * The service behind the gateway in benchmarks: the real shared server (principal verification,
 * metrics, error handler) with one small JSON route, plus a no-op turn-event sink so the gateway's
 * event client has somewhere to post.
 */
import type { CommonServiceConfig } from '../../services/shared/config.js';
import { buildServer } from '../../services/shared/http/server.js';
import { listenService } from '../../services/shared/http/listen.js';
import { createLogger } from '../../services/shared/log.js';
import type { RunningService } from '../../services/shared/runtime.js';

/** Start the benchmark target. */
export async function start(cfg: CommonServiceConfig): Promise<RunningService> {
  const { app } = buildServer({ name: 'bench-target', logger: createLogger('bench-target', 'warn', null), principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys });
  app.get('/v1/bench/echo', async (req) => ({ ok: true, user: req.principal?.id ?? null }));
  app.post('/v1/turns/events', async (req) => ({ accepted: (req.body as { events: unknown[] }).events.length, duplicates: 0, rejected: [] }));
  return listenService(app, cfg.host, cfg.port);
}
