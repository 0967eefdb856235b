/**
 * The gateway (spec: "What the service does" 1-6, "Authentication", "Errors", "Limits").
 *
 * One onRequest hook runs the chain for every request: body-size check (413), per-IP rate limit
 * (429), tenant pin (403), route match (longest wins), then, unless the route bypasses the bearer
 * chain, bearer validation (401), admin guard (403), per-tenant rate limit (429), turn id, principal
 * and capability stamping and the `turn_started` event. The handler proxies to the owning service
 * over HTTP (undici pools on loopback) or answers gateway-owned routes. `turn_sealed` /
 * `turn_failed` go out when the response ends.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Pool, request as undiciRequest } from 'undici';
import { callUpstream } from './upstream.js';
import { RendererFiles, RENDERER_CSP } from './static.js';
import type { Logger } from 'pino';
import client from 'prom-client';
import type { GatewayConfig } from '../../shared/config.js';
import { AppError } from '../../shared/http/errors.js';
import { toErrorResponse } from '../../shared/http/server.js';
import { errorOptions } from '../../shared/http/framework-errors.js';
import { TurnEventClient } from '../../shared/events/turn-events.js';
import { ulidFactory } from '../../shared/identity/ulid.js';
import type { ServiceRuntime, ServiceStatus } from '../../shared/runtime.js';
import { SERVICE_NAMES, type UpstreamName } from '../../shared/services.js';
import { TokenValidator } from './token-validator.js';
import { RouteTable, type RouteRule } from './route-table.js';
import {
  anonymousIdentity, capabilityToken, refreshStamp, stampIdentity, type IdentitySettings, type StampedIdentity,
} from './identity.js';

/** The seven identity headers stripped from every inbound request (spec: "Identity headers"). */
export const IDENTITY_HEADERS = ['x-user-id', 'x-user-email', 'x-user-roles', 'x-tenant-id', 'x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token'] as const;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'expect']);
const STRIP_INBOUND = new Set<string>([...HOP_BY_HOP, ...IDENTITY_HEADERS, 'authorization', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip', 'cookie']);
const STRIP_OUTBOUND = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade']);

/** The fixed 502 body of the spec. */
export const SERVICE_UNAVAILABLE_BODY = '{"error":"service unavailable"}';

interface GatewayState {
  rule: RouteRule | null;
  identity: StampedIdentity | null;
  turnId: string | null;
  correlationId: string;
  startedAt: number;
}

declare module 'fastify' {
  interface FastifyRequest { gw: GatewayState | null }
}

/** Options of `buildGateway`. */
export interface BuildGatewayOptions {
  cfg: GatewayConfig;
  logger: Logger;
  runtime?: ServiceRuntime;
  /** Test seam: token validator with injected keys. */
  validator?: TokenValidator;
}

const nextTurnId = ulidFactory();

/** Upstream answers up to this size (with a Content-Length) are buffered rather than piped. */
const BUFFER_LIMIT = 256 * 1024;

/** Build the gateway app (not listening) plus what `close()` must stop. */
export async function buildGateway(opts: BuildGatewayOptions): Promise<{ app: FastifyInstance; events: TurnEventClient; shutdown: () => Promise<void> }> {
  const { cfg, logger } = opts;
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: cfg.maxRequestBodyBytes,
    trustProxy: cfg.trustProxy,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...errorOptions,
  });
  const validator = opts.validator ?? new TokenValidator(cfg.trustedIssuers, cfg.audience, cfg.tokenCacheMax);
  const table = new RouteTable();
  const settings: IdentitySettings = {
    tenantId: cfg.tenantId,
    principalKeys: cfg.principalKeys,
    capTokenKeys: cfg.capTokenKeys,
    adminEmailAllowlist: cfg.adminEmailAllowlist,
    groupRoleMap: cfg.groupRoleMap,
  };
  const identities = new Map<string, StampedIdentity>();
  const renderer = cfg.rendererDir ? new RendererFiles(cfg.rendererDir) : null;
  let anonymous = cfg.authEnabled ? null : anonymousIdentity(settings);
  const events = new TurnEventClient({
    service: 'gateway', auditUrl: cfg.serviceUrls.audit, tenantId: cfg.tenantId, principalKeys: cfg.principalKeys,
    onLoss: (n, reason) => logger.error({ lost: n, reason }, 'turn events lost'),
  });

  const registry = new client.Registry();
  registry.setDefaultLabels({ service: 'gateway' });
  client.collectDefaultMetrics({ register: registry });
  const proxied = new client.Counter({ name: 'svc_gateway_requests_total', help: 'Requests answered by the gateway', labelNames: ['status', 'target'], registers: [registry] });
  const rejected = new client.Counter({ name: 'svc_gateway_rejections_total', help: 'Requests refused by the gateway chain', labelNames: ['code'], registers: [registry] });

  // Upstream connection pools, one per service, kept alive on loopback.
  const pools = new Map<UpstreamName, Pool>();
  for (const name of SERVICE_NAMES) {
    if (name === 'gateway') continue;
    pools.set(name, new Pool(cfg.serviceUrls[name], { connections: 128, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 300_000, bodyTimeout: 0 }));
  }

  // Rate limits: @fastify/rate-limit stores, sized so throttled keys are not forgotten, Redis when configured.
  // ioredis and the AG-UI translator (zod schemas) load only when used: they are a large share of an
  // idle gateway's heap.
  const redis = cfg.redisUrl ? new (await import('ioredis')).Redis(cfg.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false }) : null;
  redis?.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis error (rate limits fail open)'));
  await app.register(rateLimit, {
    global: false, cache: 1_000_000, skipOnError: true, nameSpace: 'svc-rl-',
    ...(redis ? { redis } : {}),
  });
  // `cache` sizes each limiter's LRU (the typings omit it; the plugin reads it per limiter).
  type LimiterOptions = Parameters<typeof app.createRateLimit>[0];
  const ipLimiter = app.createRateLimit({ max: cfg.rateLimitIpPerMinute, timeWindow: 60_000, cache: 1_000_000, keyGenerator: (req: FastifyRequest) => `ip:${req.ip}` } as LimiterOptions);
  const tenantLimiter = app.createRateLimit({ max: cfg.rateLimitTenantPerMinute, timeWindow: 60_000, cache: 10_000, keyGenerator: () => `tenant:${cfg.tenantId}` } as LimiterOptions);

  app.decorateRequest('gw', null);
  // Bodies pass through untouched: buffer them (bounded by bodyLimit) and forward as bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: cfg.maxRequestBodyBytes }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, req, reply) => {
    const { status, body, headers } = toErrorResponse(err);
    if (status >= 500) req.log.error({ err, url: req.url.split('?')[0] }, 'gateway error');
    else rejected.inc({ code: body.code });
    if (headers) void reply.headers(headers);
    if (req.gw?.turnId) void reply.header('x-svc-turn-id', req.gw.turnId);
    void reply.code(status).type('application/json').send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: `no route for ${req.method} ${req.url.split('?')[0]}`, code: 'not_found' });
  });

  async function limit(limiter: typeof ipLimiter, req: FastifyRequest, scope: string): Promise<void> {
    const r = await limiter(req);
    if (!r.isAllowed && r.isExceeded) {
      const retry = String(Math.max(1, r.ttlInSeconds));
      throw new AppError(429, 'rate_limited', `${scope} rate limit exceeded; retry in ${retry} s`, {
        headers: { 'retry-after': retry, 'x-ratelimit-limit': String(r.max), 'x-ratelimit-remaining': '0' },
      });
    }
  }

  function identityFor(token: string, claims: Awaited<ReturnType<TokenValidator['validate']>>): StampedIdentity {
    let id = identities.get(token);
    if (id) {
      const fresh = refreshStamp(id, settings);
      if (fresh !== id) { identities.set(token, fresh); id = fresh; }
      return id;
    }
    id = stampIdentity(claims, settings);
    if (identities.size >= cfg.tokenCacheMax) identities.clear();
    identities.set(token, id);
    return id;
  }

  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.config?.public === true) return;
    const path = req.url.split('?', 1)[0]!;
    const cid = req.headers['x-correlation-id'];
    const state: GatewayState = {
      rule: null, identity: null, turnId: null, startedAt: performance.now(),
      correlationId: typeof cid === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(cid) ? cid : randomUUID(),
    };
    req.gw = state;
    void reply.header('x-correlation-id', state.correlationId);

    const len = req.headers['content-length'];
    if (len !== undefined && Number(len) > cfg.maxRequestBodyBytes) {
      throw new AppError(413, 'payload_too_large', `request body exceeds ${cfg.maxRequestBodyBytes} bytes`);
    }
    await limit(ipLimiter, req, 'per-IP');
    const inboundTenant = req.headers['x-tenant-id'];
    if (inboundTenant !== undefined && inboundTenant !== cfg.tenantId) {
      throw new AppError(403, 'tenant_mismatch', 'X-Tenant-ID does not match the pinned tenant');
    }
    const rule = table.match(req.method, path);
    state.rule = rule;
    if (!rule || rule.public) return;

    let identity: StampedIdentity;
    if (!cfg.authEnabled) {
      anonymous = refreshStamp(anonymous!, settings);
      identity = anonymous;
    } else {
      const auth = req.headers.authorization;
      if (!auth) throw new AppError(401, 'token_missing', 'bearer token required', { headers: { 'www-authenticate': 'Bearer' } });
      const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(auth);
      if (!m) throw new AppError(401, 'token_invalid', 'authorization header must be "Bearer <token>"', { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
      const token = m[1]!;
      identity = identityFor(token, await validator.validate(token));
    }
    state.identity = identity;
    if ((path === '/v1/admin' || path.startsWith('/v1/admin/')) && !identity.principal.roles.includes('admin')) {
      throw new AppError(403, 'admin_required', 'this route requires the admin role');
    }
    await limit(tenantLimiter, req, 'per-tenant');
    state.turnId = nextTurnId();
    void reply.header('x-svc-turn-id', state.turnId);
    events.emit(state.turnId, identity.principal.id, 'turn_started', {
      method: req.method, path, route: rule.pattern, correlation_id: state.correlationId,
    });
  });

  app.addHook('onResponse', async (req, reply) => {
    const st = req.gw;
    if (!st) return;
    const target = st.rule ? (st.rule.target.kind === 'proxy' ? st.rule.target.service : st.rule.target.handler) : 'none';
    proxied.inc({ status: String(reply.statusCode), target });
    if (st.turnId && st.identity) {
      const failed = reply.statusCode >= 500 || req.raw.destroyed && !reply.raw.writableFinished;
      events.emit(st.turnId, st.identity.principal.id, failed ? 'turn_failed' : 'turn_sealed', {
        status: reply.statusCode, duration_ms: Math.round((performance.now() - st.startedAt) * 1000) / 1000,
      });
    }
  });

  /** The headers sent upstream: inbound minus stripped ones, plus the stamped identity of the turn. */
  function upstreamHeaders(req: FastifyRequest): Record<string, string> {
    const st = req.gw!;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || STRIP_INBOUND.has(k)) continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    headers['x-correlation-id'] = st.correlationId;
    headers['x-forwarded-for'] = req.ip;
    headers['x-forwarded-proto'] = req.protocol;
    if (req.headers.host) headers['x-forwarded-host'] = req.headers.host;
    if (st.identity && st.turnId) {
      Object.assign(headers, st.identity.headers);
      headers['x-svc-principal'] = st.identity.stamp;
      headers['x-svc-turn-id'] = st.turnId;
      headers['x-svc-cap-token'] = capabilityToken(st.identity.principal, st.turnId, settings);
    }
    return headers;
  }

  async function forward(req: FastifyRequest, reply: FastifyReply, service: UpstreamName, path: string): Promise<void> {
    const st = req.gw!;
    const headers = upstreamHeaders(req);
    const body = req.body instanceof Buffer && req.body.length > 0 ? req.body : undefined;
    const query = req.url.indexOf('?');
    const call = callUpstream(pools.get(service)!, {
      method: req.method, path: query >= 0 ? path + req.url.slice(query) : path, headers, body,
    }, BUFFER_LIMIT);
    // The response's 'close' before it finished means the client went away: abort upstream.
    const onClose = (): void => { if (!reply.raw.writableFinished) call.abort(); };
    reply.raw.once('close', onClose);
    let res;
    try {
      res = await call.response;
    } catch (err) {
      reply.raw.off('close', onClose);
      if (req.raw.destroyed) return reply.code(499).send();
      req.log.warn({ service, err: (err as Error).message }, 'upstream unavailable');
      return reply.code(502).type('application/json').send(SERVICE_UNAVAILABLE_BODY);
    }
    const out: Record<string, string | string[]> = {};
    for (const k in res.headers) {
      const v = res.headers[k];
      if (v === undefined || STRIP_OUTBOUND.has(k)) continue;
      out[k] = v;
    }
    if (st.turnId) out['x-svc-turn-id'] = st.turnId;
    out['x-correlation-id'] = st.correlationId;
    if (Buffer.isBuffer(res.body)) reply.raw.off('close', onClose);
    return reply.code(res.statusCode).headers(out).send(res.body);
  }

  async function statusList(): Promise<ServiceStatus[]> {
    const snap = opts.runtime?.statusSnapshot?.();
    if (snap) return snap;
    // No supervisor: probe each service's liveness directly.
    return Promise.all(SERVICE_NAMES.map(async (name): Promise<ServiceStatus> => {
      const url = cfg.serviceUrls[name];
      let state: ServiceStatus['state'] = 'failed';
      if (name === 'gateway') state = 'ready';
      else {
        try {
          const r = await undiciRequest(`${url}/readyz`, { headersTimeout: 1000, bodyTimeout: 1000 });
          await r.body.dump();
          state = r.statusCode === 200 ? 'ready' : 'starting';
        } catch { state = 'failed'; }
      }
      return { name, state, port: Number(new URL(url).port), url, started_at: null, uptime_seconds: 0, restarts: 0, last_error: null };
    }));
  }

  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok', service: 'gateway' }));
  app.get('/readyz', { config: { public: true } }, async () => ({ status: 'ready', service: 'gateway' }));
  app.get('/metrics', { config: { public: true } }, async (_req, reply) => {
    void reply.type(registry.contentType);
    return registry.metrics();
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/*',
    handler: async (req, reply) => {
      const st = req.gw!;
      const path = req.url.split('?', 1)[0]!;
      const rule = st.rule;
      if (!rule) {
        if (renderer && (req.method === 'GET' || req.method === 'HEAD') && !path.startsWith('/v1/')) {
          const file = renderer.lookup(path);
          if (file) {
            void reply.header('content-type', file.type).header('etag', file.etag)
              .header('content-security-policy', RENDERER_CSP).header('x-content-type-options', 'nosniff')
              .header('referrer-policy', 'no-referrer')
              .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
            if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
            return reply.send(file.body);
          }
        }
        throw new AppError(404, 'not_found', `no route for ${req.method} ${path}`);
      }
      const t = rule.target;
      if (t.kind === 'proxy') return forward(req, reply, t.service, t.rewrite ? t.rewrite(path) : path);
      switch (t.handler) {
        case 'status': {
          const services = await statusList();
          return { tenant_id: cfg.tenantId, auth_enabled: cfg.authEnabled, services };
        }
        case 'reserved':
          throw new AppError(404, 'not_found', `${path} is a reserved gateway pattern with no backing route`);
        case 'unavailable':
          throw new AppError(404, 'not_found', `${path} is not available in this build`);
        case 'agui':
          // The AG-UI stream is translated here from the runtime's SSE stream (spec: Chat, AG-UI).
          const { aguiStreamHandler } = await import('./agui/handler.js');
          await aguiStreamHandler(req, reply, async (body) => {
            const call = callUpstream(pools.get('agent-runtime')!, {
              method: 'POST', path: '/v1/chat/stream', headers: upstreamHeaders(req),
              body: body ?? (req.body instanceof Buffer && req.body.length > 0 ? req.body : undefined),
            }, 0);
            reply.raw.once('close', () => { if (!reply.raw.writableFinished) call.abort(); });
            const res = await call.response;
            return { statusCode: res.statusCode, headers: res.headers, body: Buffer.isBuffer(res.body) ? Readable.from([res.body]) : res.body };
          });
          return reply;
        default:
          throw new AppError(404, 'not_found', `no route for ${req.method} ${path}`);
      }
    },
  });

  const shutdown = async (): Promise<void> => {
    events.close();
    await events.drain(5000);
    await Promise.all([...pools.values()].map((p) => p.close().catch(() => undefined)));
    redis?.disconnect();
  };
  return { app, events, shutdown };
}
