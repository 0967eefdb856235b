/**
 * The fastify server builder every service uses (DESIGN.md "Inside a service", "Errors").
 *
 * `buildServer()` returns a fastify instance, not listening, with:
 * - the shared error handler: `{error, code}`; 4xx passed through; 5xx sanitised and logged;
 *   malformed JSON and schema failures as 400 `invalid_request` with the field path;
 * - a 404 handler (`not_found`);
 * - `GET /healthz` (liveness), `GET /readyz` (readiness), `GET /metrics` (Prometheus);
 * - verification of the gateway-stamped `X-Svc-Principal` / `X-Svc-Cap-Token`
 *   (spec: "Identity headers"; every route needs a valid principal unless its route config says
 *   `public: true`).
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyError, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import client from 'prom-client';
import { AppError, type ErrorBody } from './errors.js';
import { errorOptions } from './framework-errors.js';
import {
  StampVerifier, verifyStamp, type Principal, type CapabilityToken,
} from '../identity/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified principal, or null on public routes without one. */
    principal: Principal | null;
    /** The verified capability token, when the request carried one. */
    capToken: CapabilityToken | null;
    /** X-Svc-Turn-Id of the request, when stamped. */
    turnId: string | null;
  }
  interface FastifyContextConfig {
    /** Route answers without a stamped principal (health, public auth routes). */
    public?: boolean;
  }
}

/** Options of `buildServer`. */
export interface BuildServerOptions {
  /** Service name, used for metrics and logs. */
  name: string;
  logger: Logger;
  /** HMAC keys accepted for X-Svc-Principal, newest first. */
  principalKeys: readonly string[];
  /** HMAC keys accepted for X-Svc-Cap-Token, newest first. */
  capTokenKeys: readonly string[];
  /** Largest request body the service parses, bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Readiness check; a string return is the reason the service is not ready. */
  ready?: () => true | string | Promise<true | string>;
  /** Collect Node default metrics (memory, event loop). Default true. */
  defaultMetrics?: boolean;
}

const FASTIFY_CODE_MAP: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_request' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request' },
  FST_ERR_VALIDATION: { status: 400, code: 'invalid_request' },
};

/** Map any thrown value to a status and `{error, code}` body; 5xx bodies are generic. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (err instanceof AppError) {
    return err.headers ? { status: err.status, body: err.toBody(), headers: err.headers } : { status: err.status, body: err.toBody() };
  }
  const fe = err as Partial<FastifyError> & { validation?: Array<{ instancePath?: string; params?: { missingProperty?: string } }>; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const first = fe.validation[0];
    const base = fe.validationContext ?? 'body';
    let path = first?.instancePath ? `${base}${first.instancePath.replace(/\//g, '.')}` : base;
    if (first?.params?.missingProperty) path = `${path}.${first.params.missingProperty}`;
    return { status: 400, body: { error: fe.message ?? 'invalid request', code: 'invalid_request', field: path } };
  }
  const mapped = fe?.code ? FASTIFY_CODE_MAP[fe.code] : undefined;
  if (mapped) {
    const msg = mapped.code === 'invalid_request' && fe.code?.includes('JSON') ? 'request body is not valid JSON' : (fe.message ?? 'bad request');
    return { status: mapped.status, body: { error: msg, code: mapped.code } };
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = typeof fe.code === 'string' && /^[a-z][a-z0-9_]*$/.test(fe.code) ? fe.code : 'invalid_request';
    return { status, body: { error: fe.message ?? 'bad request', code } };
  }
  return { status: status >= 500 && status < 600 ? status : 500, body: { error: 'internal error', code: 'internal_error' } };
}

/**
 * Build a service's fastify instance (not listening). Routes are added by the caller.
 * @returns the instance plus its Prometheus registry.
 */
export function buildServer(opts: BuildServerOptions): { app: FastifyInstance; metrics: client.Registry } {
  const app = Fastify({
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...errorOptions,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
  });
  const registry = new client.Registry();
  registry.setDefaultLabels({ service: opts.name });
  if (opts.defaultMetrics !== false) client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'svc_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'status'], registers: [registry],
  });

  app.decorateRequest('principal', null);
  app.decorateRequest('capToken', null);
  app.decorateRequest('turnId', null);

  app.setErrorHandler((err, req, reply) => {
    const { status, body, headers } = toErrorResponse(err);
    if (status >= 500) req.log.error({ err, url: req.url, method: req.method }, 'request failed');
    if (headers) void reply.headers(headers);
    void reply.code(status).type('application/json').send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: `no route for ${req.method} ${req.url.split('?')[0]}`, code: 'not_found' });
  });

  const principals = new StampVerifier<Principal>(opts.principalKeys);
  app.addHook('onRequest', async (req: FastifyRequest) => {
    if (req.routeOptions.config?.public === true) {
      tryAttachPrincipal(req, opts);
      return;
    }
    const raw = header(req, 'x-svc-principal');
    if (raw === undefined) throw new AppError(401, 'principal_missing', 'request lacks the gateway-stamped principal');
    const res = principals.verify(raw);
    if (!res.ok) throw new AppError(401, 'principal_invalid', `stamped principal rejected: ${res.error}`);
    req.principal = res.payload;
    const turn = header(req, 'x-svc-turn-id');
    req.turnId = turn ?? null;
    const capRaw = header(req, 'x-svc-cap-token');
    if (capRaw !== undefined) {
      const cap = verifyStamp<CapabilityToken>(capRaw, opts.capTokenKeys);
      if (!cap.ok) throw new AppError(401, 'cap_token_invalid', `capability token rejected: ${cap.error}`);
      if (cap.payload.sub !== res.payload.id || (turn !== undefined && cap.payload.turn_id !== turn)) {
        throw new AppError(401, 'cap_token_invalid', 'capability token not bound to this principal and turn');
      }
      req.capToken = cap.payload;
    }
  });
  app.addHook('onResponse', async (req, reply) => {
    requests.inc({ method: req.method, status: String(reply.statusCode) });
  });

  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok', service: opts.name }));
  app.get('/readyz', { config: { public: true } }, async (_req, reply) => {
    const r = opts.ready ? await opts.ready() : true;
    if (r === true) return { status: 'ready', service: opts.name };
    return reply.code(503).send({ error: r, code: 'not_ready' });
  });
  app.get('/metrics', { config: { public: true } }, async (_req, reply) => {
    void reply.type(registry.contentType);
    return registry.metrics();
  });
  return { app, metrics: registry };
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function tryAttachPrincipal(req: FastifyRequest, opts: BuildServerOptions): void {
  const raw = header(req, 'x-svc-principal');
  if (raw === undefined) return;
  const res = verifyStamp<Principal>(raw, opts.principalKeys);
  if (res.ok) {
    req.principal = res.payload;
    req.turnId = header(req, 'x-svc-turn-id') ?? null;
  }
}

/** Require an authenticated principal (for routes marked public that still want one). */
export function requirePrincipal(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError(401, 'principal_missing', 'request lacks the gateway-stamped principal');
  return req.principal;
}

/** Require that the principal holds `role` (defence in depth behind the gateway's admin guard). */
export function requireRole(req: FastifyRequest, role: string): Principal {
  const p = requirePrincipal(req);
  if (!p.roles.includes(role)) throw new AppError(403, role === 'admin' ? 'admin_required' : 'forbidden', `role ${role} required`);
  return p;
}
