/**
 * The `gateway-admission` plugin: the chain every request passes before it is proxied or answered
 * (spec: "What the service does" 1-6, "Authentication", "Limits"; the steps are in
 * admission-steps.ts). Its hooks are on the root, so they also run for the 404 handler; routes
 * whose config says `public: true` (the kit's `/healthz`, `/readyz`, `/metrics`) skip the chain.
 *
 * The rate limits are `@fastify/rate-limit` limiters (not per-route hooks), with stores sized so a
 * throttled key is not forgotten, shared through Redis when `redisUrl` is set; a store error lets
 * the request through (fail open).
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../../../shared/config.js';
import type { TurnEventClient } from '../../../shared/events/turn-events.js';
import type { ErrorResponse } from '../../../shared/kit/errors.js';
import { TURN_ID_HEADER, type BearerValidator } from '../contracts.js';
import type { IdentitySettings } from '../domain/identity.js';
import { AdmissionSteps, type GatewayState, type Limiter } from './admission-steps.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admission chain's state, null on public kit routes (`gateway-admission`). */
    gw: GatewayState | null;
  }
}

/** Options of the `gateway-admission` plugin. */
export interface AdmissionOptions {
  cfg: GatewayConfig;
  settings: IdentitySettings;
  validator: BearerValidator;
  /** Publishes `turn_started`, `turn_sealed` and `turn_failed` to audit. */
  events: TurnEventClient;
  /** Shared limiter store, or null for in-process stores. */
  redis: Redis | null;
}

/** Register the limiters, `req.gw`, the admission hook and the end-of-turn hooks (`onSend`, `onResponse`). */
export const admissionPlugin = fp<AdmissionOptions>(async (app, opts) => {
  const { cfg, validator } = opts;
  await app.register(rateLimit, {
    global: false, cache: 1_000_000, skipOnError: true, nameSpace: 'svc-rl-',
    ...(opts.redis ? { redis: opts.redis } : {}),
  });
  // `cache` sizes each limiter's LRU (the typings omit it; the plugin reads it per limiter).
  type LimiterOptions = Parameters<typeof app.createRateLimit>[0];
  const ipLimiter: Limiter = app.createRateLimit({ max: cfg.rateLimitIpPerMinute, timeWindow: 60_000, cache: 1_000_000, keyGenerator: (req: FastifyRequest) => `ip:${req.ip}` } as LimiterOptions);
  const tenantLimiter: Limiter = app.createRateLimit({ max: cfg.rateLimitTenantPerMinute, timeWindow: 60_000, cache: 10_000, keyGenerator: () => `tenant:${cfg.tenantId}` } as LimiterOptions);
  const steps = new AdmissionSteps({ cfg, settings: opts.settings, events: opts.events, counters: app.gatewayCounters, ipLimiter, tenantLimiter });

  app.decorateRequest('gw', null);

  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.public === true) return;
    const st = steps.begin(req, reply);
    steps.checkHost(req);
    steps.checkBodySize(req);
    await steps.limitIp(req);
    steps.pinTenant(req);
    const path = steps.readPath(req, st);
    const rule = steps.matchRoute(req.method, path);
    st.rule = rule;
    if (!rule || rule.public) return;
    const token = steps.bearerToken(req);
    const identity = token === null ? steps.anonymousIdentity() : steps.identify(token, await validator.validate(token));
    st.identity = identity;
    steps.guardAdmin(path, identity);
    await steps.limitTenant(req);
    steps.startTurn(req, reply, st, path, rule, identity);
  });

  // The terminal event is durable before the answer's last byte (issue 11 item 7).
  app.addHook('onSend', (req, reply, payload, done) => {
    const st = req.gw;
    if (!st) { done(null, payload); return; }
    const sealed = steps.sealBeforeSend(req, reply, st, payload);
    // PostgreSQL's outbox stores in the background: the first byte waits for it (issue 21 item 1).
    if (sealed.stored) void sealed.stored.then(() => done(null, sealed.payload), () => done(null, sealed.payload));
    else done(null, sealed.payload);
  });

  app.addHook('onResponse', async (req, reply) => {
    const st = req.gw;
    if (st) steps.endTurn(req, reply, st);
  });
}, { name: 'gateway-admission', fastify: '5.x', dependencies: ['svc-errors', 'gateway-metrics'] });

/**
 * The kit's `onErrorAnswer` hook for the gateway (`errorHooks`): before an error answer is sent,
 * count a refusal (< 500) by code in `svc_gateway_rejections_total`, and give the answer the turn
 * id when the request already had one (every authenticated request answers `X-Svc-Turn-Id`). The
 * kit's error handler logs 5xx answers itself.
 */
export function onErrorAnswer(req: FastifyRequest, reply: FastifyReply, res: ErrorResponse): void {
  if (res.status < 500) req.server.gatewayCounters.rejected.inc({ code: res.body.code });
  const turnId = req.gw?.turnId;
  if (turnId) void reply.header(TURN_ID_HEADER, turnId);
}
