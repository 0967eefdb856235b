/**
 * The gateway (spec: "What the service does" 1-6, "Authentication", "Errors", "Limits"), built by
 * the service kit. Wiring only:
 *
 * - `gateway-metrics`: its counters on the kit's registry;
 * - `gateway-admission`: the chain every request passes (size, per-IP limit, tenant pin, route,
 *   bearer (checked against the auth service's revocation list, polled in the background), admin
 *   guard, per-tenant limit, turn) and the end-of-turn events;
 * - `gateway-proxy`: the `/*` route, forwarding to the owning services over loopback pools, with
 *   each upstream route's body limit (domain/body-limits.ts);
 * - `gateway-login`: the password login and its second factor (issue 14 item 3), over a parking
 *   store for password-verified logins (Redis when `redisUrl` is set, else in-process);
 * - `gateway-status`, `gateway-agui`, `gateway-static`: the gateway-owned answers.
 *
 * Off loopback (`cfg.tls`) the server is HTTPS with the LAN certificate (plugins/tls.ts, issue 14 item 7).
 *
 * `/healthz`, `/readyz`, `/metrics`, the `{error, code}` handler and the 404 come from the kit; the
 * gateway stamps principals and so does not verify them (`principal: false`).
 */
import type { Redis } from 'ioredis';
import type { GatewayConfig } from '../../shared/config.js';
import { durableTurnEvents } from '../../shared/events/outbox.js';
import { durablePgTurnEvents } from '../../shared/events/outbox-pg-events.js';
import { defineService } from '../../shared/kit/service.js';
import { AuthClient } from '../../auth/src/client.js';
import { AuthLoginChallenges } from './clients/login-challenges.js';
import { startRevocationPoll } from './clients/revocation-feed.js';
import { UpstreamPools } from './clients/upstream.js';
import { GATEWAY_ERRORS, type GatewayRuntime } from './contracts.js';
import { BodyLimits } from './domain/body-limits.js';
import type { IdentitySettings } from './domain/identity.js';
import type { ChallengeParking } from './domain/ports.js';
import { SecondFactorGate } from './domain/second-factor.js';
import { RevocationCheckingValidator, RevocationList } from './domain/revocation-list.js';
import { TokenValidator } from './domain/token-validator.js';
import { admissionPlugin, onErrorAnswer } from './plugins/admission.js';
import { UpstreamProxy } from './plugins/forward.js';
import { gatewayMetricsPlugin } from './plugins/metrics.js';
import { proxyPlugin } from './plugins/proxy.js';
import { GrpcUpstream } from './clients/grpc-upstream.js';
import type { UpstreamName } from '../../shared/services.js';
import { TURN_EVENTS_ROUTE, TransportStats, installTransportStats } from './domain/transport-stats.js';
import { applyTls, httpsServerOptions } from './plugins/tls.js';
import { aguiPlugin } from './routes/agui.js';
import { backupsPlugin } from './routes/backups.js';
import { loginPlugin } from './routes/login.js';
import { WebPasswordClient } from './clients/web-password.js';
import { staticPlugin } from './routes/static.js';
import { statusPlugin } from './routes/status.js';
import { keysPlugin } from './routes/keys.js';
import { opsPlugin } from './routes/ops.js';
import { probeReadiness, probeServices } from './clients/status-probe.js';
import type { ServiceStatus } from '../../shared/runtime.js';
import type { ServiceName } from '../../shared/services.js';
import { MemoryChallengeParking } from './store/challenge-parking.js';
import { RedisChallengeParking } from './store/challenge-parking-redis.js';
import { RedisPausedRuns } from './store/paused-runs-redis.js';
import { selfUrlOf } from '../../shared/kit/self-url.js';

/** How long `close()` waits for queued turn events to reach audit, ms. */
const EVENT_DRAIN_MS = 5000;

/** The gateway service: `start(cfg, runtime)` in index.ts, `buildService(gatewayService, ...)` in tests. */
export const gatewayService = defineService<GatewayConfig, GatewayRuntime>({
  name: 'gateway',
  errors: GATEWAY_ERRORS,
  principal: false,
  serviceAuth: false,
  countRequests: false,
  bodyLimit: (cfg) => cfg.maxRequestBodyBytes,
  serverOptions: (cfg) => ({ trustProxy: cfg.trustProxy, ...httpsServerOptions(cfg) }),
  errorHooks: () => ({ onErrorAnswer }),
  async setup({ cfg, runtime, logger, app, onClose, background }) {
    await applyTls(app, cfg, logger);
    const settings: IdentitySettings = {
      tenantId: cfg.tenantId,
      principalKeys: cfg.principalKeys,
      capTokenKeys: cfg.capTokenKeys,
      adminEmailAllowlist: cfg.adminEmailAllowlist,
      groupRoleMap: cfg.groupRoleMap,
    };
    // Tokens of disabled users and revoked sessions are refused within a poll (issue 11 item 9).
    const revoked = new RevocationList();
    const validator = new RevocationCheckingValidator(runtime.validator ?? new TokenValidator(cfg.trustedIssuers, cfg.audience, cfg.tokenCacheMax), revoked);
    if (cfg.authEnabled) {
      const source = new AuthClient({ baseUrl: cfg.serviceUrls.auth, service: 'gateway', tenantId: cfg.tenantId, principalKeys: cfg.principalKeys });
      background('revocations', () => startRevocationPoll({ source, list: revoked, logger }));
    }
    // ioredis loads only when configured: it is a large share of an idle gateway's heap.
    let redis: Redis | null = null;
    if (cfg.redisUrl) {
      const r = new (await import('ioredis')).Redis(cfg.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
      r.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis error (rate limits fail open, second-factor logins fail closed)'));
      onClose(() => { r.disconnect(); });
      redis = r;
    }
    const pools = new UpstreamPools(cfg.serviceUrls);
    onClose(() => pools.close());
    // Durable: a turn's terminal event is on disk before its answer's last byte (issue 11 item 7).
    let transportStatsOf: TransportStats | null = null;
    const eventSeams = {
      batchDelayMs: runtime.turnEventBatchMs,
      // Issue 20: which transport carried each batch (metrics and topology).
      onBatch: (t: 'grpc' | 'http') => { app.gatewayCounters?.turnEventBatches?.inc({ transport: t }); transportStatsOf?.record(TURN_EVENTS_ROUTE, t); },
    };
    // Issue 21 item 1: with a database the outbox is `gateway.turn_outbox`, shared by every gateway.
    const events = cfg.database ? await durablePgTurnEvents(cfg.database, cfg, 'gateway', logger, eventSeams, onClose) : durableTurnEvents(cfg, 'gateway', logger, eventSeams);
    onClose(async () => { await events.shutdown(EVENT_DRAIN_MS); });
    const proxy = new UpstreamProxy(pools, settings);
    // The phone's device channel never ends by itself: cut it rather than wait at shutdown (issue 14).
    app.addHook('preClose', (done) => { proxy.cutEndless(); done(); });
    // Password-verified logins wait here for their second factor (issue 14 item 3).
    let parking: ChallengeParking;
    if (redis) parking = new RedisChallengeParking(redis, cfg.principalKeys);
    else {
      const memory = new MemoryChallengeParking();
      background('challenge-parking-sweep', () => memory.startSweep());
      parking = memory;
    }
    const gate = new SecondFactorGate({
      authority: new AuthLoginChallenges({ baseUrl: cfg.serviceUrls.auth, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys }),
      parking, clock: Date.now,
    });

    await app.register(gatewayMetricsPlugin);
    // Issue 20: the transport split's routes over gRPC (USE_GRPC, default true), HTTP fallback per route.
    const grpcUpstream = new GrpcUpstream(cfg.useGrpc === false ? {} : cfg.grpcUrls ?? {});
    transportStatsOf = new TransportStats((s) => grpcUpstream.has(s as UpstreamName));
    installTransportStats(transportStatsOf);
    proxy.useGrpc({ upstream: grpcUpstream, stats: transportStatsOf, counters: { transport: app.gatewayCounters.transport!, fallbacks: app.gatewayCounters.fallbacks! } });
    onClose(() => grpcUpstream.close());
    await app.register(admissionPlugin, { cfg, settings, validator, events, redis });
    await app.register(proxyPlugin, { proxy, bodyLimit: cfg.maxRequestBodyBytes, bodyLimits: new BodyLimits(cfg.upstreamBodySettings) });
    await app.register(statusPlugin, { tenantId: cfg.tenantId, authEnabled: cfg.authEnabled, serviceUrls: cfg.serviceUrls, statusSnapshot: runtime.statusSnapshot });
    await app.register(keysPlugin, { keyAdmin: runtime.keyAdmin });
    // Issue 21: paused AG-UI runs announced to the other gateways; a resume reaching the wrong one is forwarded.
    const selfUrl = (): string | null => selfUrlOf(cfg.instanceUrl, app.server, cfg.host, !!cfg.tls);
    await app.register(aguiPlugin, { proxy, directory: redis ? new RedisPausedRuns(redis, selfUrl) : null, selfUrl });
    // Issue 19 items 1, 4: topology, stack, service controls, updates, deploy.
    const statusView = async (): Promise<ServiceStatus[]> => {
      const snap = runtime.statusSnapshot?.();
      return snap ? Promise.all(snap.map(async (s) => ({ ...s, readiness: s.state === 'ready' && s.name !== 'gateway' ? await probeReadiness(cfg.serviceUrls[s.name as ServiceName] ?? s.url) : null }))) : probeServices(cfg.serviceUrls);
    };
    await app.register(opsPlugin, { dataDir: cfg.dataDir, status: statusView, control: runtime.opsControl, manifestUrl: cfg.updateManifestUrl ?? null, bundleLimit: 512 * 1024 * 1024,
      exchange: (req, service, path) => proxy.exchange(req, service, path) });
    await app.register(backupsPlugin, { cfg });
    // Issue 15 item 1: POST /v1/auth/login and /v1/auth/refresh as the realm's svc-web-password client.
    const wp = cfg.webPasswordClient;
    const webPassword = wp
      ? new WebPasswordClient(wp, cfg.principalKeys, new URL(wp.tokenUrl).origin === new URL(cfg.serviceUrls.auth).origin ? proxy.pool('auth') : undefined)
      : undefined;
    await app.register(loginPlugin, webPassword ? { proxy, gate, webPassword } : { proxy, gate });
    if (cfg.rendererDir) await app.register(staticPlugin, { dir: cfg.rendererDir });
  },
});
