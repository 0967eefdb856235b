/**
 * Builds the guardrail's fastify instance without listening (DESIGN.md "Inside a service"): shared
 * server (error handler, principal verification, health), the store, the turn-event client, the
 * optional router classifier, and the routes.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildServer } from '../../shared/http/server.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { RouterClassifier } from './clients/classifier.js';
import type { GuardrailConfig } from './contracts.js';
import type { GuardContext } from './routes/context.js';
import { guardRoutes } from './routes/guard.js';
import { policyRoutes } from './routes/policy.js';
import { GuardStore } from './store/guard-store.js';

/** The built app and its parts. */
export interface GuardApp { app: FastifyInstance; ctx: GuardContext; close(): Promise<void> }

/** Build the guardrail app. @throws Error when the store cannot be opened or migrated. */
export function buildGuardApp(cfg: GuardrailConfig, logger: Logger): GuardApp {
  const store = GuardStore.open(cfg.dbDir, cfg.migrationsDir);
  const events = new TurnEventClient({
    service: 'guardrail', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
    onLoss: (count, reason) => logger.warn({ count, reason }, 'turn events lost'),
  });
  const classifier = new RouterClassifier({
    routerUrl: cfg.serviceUrls['inference-router'], tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
    timeoutMs: cfg.classifierTimeoutMs, negativeTtlMs: cfg.classifierRetrySeconds * 1000,
  });
  const ctx: GuardContext = { cfg, store, events, classifier, logger };
  const { app } = buildServer({
    name: 'guardrail', logger, principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys, bodyLimit: cfg.maxBodyBytes,
    ready: () => (store.db.open ? true : 'guardrail store closed'),
  });
  void app.register(guardRoutes(ctx));
  void app.register(policyRoutes(ctx));
  const purge = () => {
    try { store.purgeBefore(Date.now() - cfg.deidRetentionHours * 3_600_000); } catch (err) { logger.error({ err }, 'purge of de-identification mappings failed'); }
  };
  purge();
  const timer = setInterval(purge, 3_600_000);
  timer.unref();
  let closing: Promise<void> | null = null;
  return {
    app, ctx,
    close: () => {
      closing ??= (async () => {
        clearInterval(timer);
        events.close();
        await events.drain(cfg.deliveryTimeoutMs);
        store.close();
      })();
      return closing;
    },
  };
}
