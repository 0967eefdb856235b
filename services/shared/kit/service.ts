/**
 * One way to define a service (DESIGN.md "Inside a service"; issue 10 "A service kit").
 *
 * A service is a `ServiceDefinition`: its name, its error table, and `setup(ctx)`, which opens its
 * stores and clients (registering each closer with `ctx.onClose`), registers its route plugins on
 * `ctx.app`, adds readiness checks (`ctx.app.health`) and declares background work
 * (`ctx.background`). The kit does the rest the same way for every service:
 *
 * - `buildService(def, cfg, runtime)`: the fastify app (not listening) with the shared plugins
 *   (`svc-errors`, `svc-service-auth` when `cfg.internalAuth` is set, `svc-principal`, `svc-health`,
 *   `svc-metrics`) and the depth-checked JSON body parser (json-body.ts), for tests with `inject()`;
 *   with `cfg.internalAuth` every outbound hop to a sibling carries the service's token too
 *   (identity/service-token-dispatch.ts; issue 15 item 4);
 * - `serviceStart(def)`: the `start(cfg, runtime)` every `index.ts` exports. It listens, then starts
 *   background work, and `close()` drains the server, stops background work, then runs the closers
 *   in reverse order of registration and flushes the log. If `setup` or `listen` throws, what was
 *   opened is closed before the error is rethrown.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { CommonServiceConfig } from '../config.js';
import { errorOptions } from '../http/framework-errors.js';
import { createLogger } from '../log.js';
import type { RunningService } from '../runtime.js';
import type { ServiceName } from '../services.js';
import type { ErrorTable } from './domain-error.js';
import { errorsPlugin, type ErrorsPluginOptions } from './errors.js';
import { healthPlugin } from './health.js';
import { useBoundedJsonParser } from './json-body.js';
import { JSON_MAX_DEPTH } from './json-depth.js';
import { metricsPlugin } from './metrics.js';
import { principalPlugin } from './principal.js';
import { serviceAuthPlugin } from './service-auth.js';
import { ServiceTokenSource } from '../identity/service-token.js';
import { ServiceTokenVerifier, introspectionCheck } from '../identity/service-token-verifier.js';
import { installServiceTokens, uninstallServiceTokens } from '../identity/service-token-dispatch.js';
import { startGrpcServer, type GrpcBinding, type RunningGrpcServer } from '../grpc/server.js';

/** Background work: `start()` runs after the service listens and returns how to stop it. */
export type BackgroundStart = () => (() => void | Promise<void>) | void;

/** What `setup` receives. */
export interface ServiceContext<Cfg extends CommonServiceConfig, Rt> {
  cfg: Cfg;
  /** Host hooks and test seams (`start(cfg, runtime)`'s second argument). */
  runtime: Rt;
  logger: Logger;
  /** The app, TypeBox-typed, with the shared plugins registered. */
  app: FastifyInstance;
  /** Register a closer; closers run in reverse order after the server drained and background stopped. */
  onClose(fn: () => void | Promise<void>): void;
  /** Declare background work (timers, pumps, sealers); it starts once the service listens. */
  background(name: string, start: BackgroundStart): void;
  /** Serve these gRPC methods beside HTTP when `cfg.grpcPort` is set (issue 20 item 2; services/shared/grpc/server.ts). */
  grpc(binding: GrpcBinding): void;
}

/** A service, as the kit builds it. */
export interface ServiceDefinition<Cfg extends CommonServiceConfig = CommonServiceConfig, Rt = object> {
  name: ServiceName;
  /** The service's error table (`contracts.ts`). */
  errors: ErrorTable;
  /** Largest request body, bytes (default 1 MiB). */
  bodyLimit?: number | ((cfg: Cfg) => number);
  /** Deepest JSON body nesting accepted (default `JSON_MAX_DEPTH`, 64); deeper answers 400 `json_too_deep` (issue 11 item 4). */
  jsonMaxDepth?: number;
  /** Verify gateway stamps (`svc-principal`). Default true; the gateway, which stamps, says false. */
  principal?: boolean;
  /**
   * Require a service token on every route but health and metrics when `cfg.internalAuth` is set
   * (`svc-service-auth`, issue 15 item 4). Default true; the gateway, the public door, says false.
   * Outbound tokens are added whenever `cfg.internalAuth` is set, whatever this says.
   */
  serviceAuth?: boolean;
  /** Path prefixes that need no service token (the auth service's IdP paths authenticate their own clients). */
  serviceAuthOpenPrefixes?: readonly string[];
  /** Collect Node default metrics (default true). */
  defaultMetrics?: boolean;
  /** Count requests in `svc_http_requests_total` (default true; the gateway keeps its own counters). */
  countRequests?: boolean;
  /** Extra fastify server options (e.g. the gateway's `trustProxy`). */
  serverOptions?: (cfg: Cfg) => Partial<FastifyServerOptions>;
  /** Extra options of the error plugin (e.g. the gateway's rejection counter). */
  errorHooks?: (cfg: Cfg) => Omit<ErrorsPluginOptions, 'table'>;
  /** Open stores and clients, register routes, readiness and background work. */
  setup(ctx: ServiceContext<Cfg, Rt>): Promise<void> | void;
}

/** A built, not yet listening service. */
export interface BuiltService {
  app: FastifyInstance;
  logger: Logger;
  /** Start the declared background work (idempotent). */
  startBackground(): void;
  /** Drain the app, stop background work, run closers in reverse order (idempotent). */
  close(): Promise<void>;
  /** The gRPC methods `setup` declared (issue 20). */
  grpcBindings: readonly GrpcBinding[];
  /** Start the gRPC server on `port` (0 = ephemeral) with the HTTP kit's checks, or null when no method was declared. */
  startGrpc(host: string, port: number): Promise<RunningGrpcServer | null>;
}

/**
 * Declare a service. Identity function that fixes the types of `setup`'s context.
 * @example export const authService = defineService<AuthConfig, AuthRuntime>({ name: 'auth', errors: AUTH_ERRORS, setup })
 */
export function defineService<Cfg extends CommonServiceConfig, Rt = object>(def: ServiceDefinition<Cfg, Rt>): ServiceDefinition<Cfg, Rt> {
  return def;
}

/** Options of `buildService`. */
export interface BuildServiceOptions {
  /** Logger to use instead of the service's log file (tests). */
  logger?: Logger;
}

/**
 * Build `def` for `cfg` without listening.
 * @throws whatever `setup` throws, after closing what it had opened.
 */
export async function buildService<Cfg extends CommonServiceConfig, Rt>(
  def: ServiceDefinition<Cfg, Rt>, cfg: Cfg, runtime: Rt, opts: BuildServiceOptions = {},
): Promise<BuiltService> {
  const logger = opts.logger ?? createLogger(def.name, cfg.logLevel, cfg.logDir);
  const bodyLimit = typeof def.bodyLimit === 'function' ? def.bodyLimit(cfg) : def.bodyLimit ?? 1024 * 1024;
  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...errorOptions,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false, allowUnionTypes: true } },
    ...def.serverOptions?.(cfg),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;
  useBoundedJsonParser(app, def.jsonMaxDepth ?? JSON_MAX_DEPTH);

  const closers: Array<() => void | Promise<void>> = [];
  const work: Array<{ name: string; start: BackgroundStart }> = [];
  const stops: Array<() => void | Promise<void>> = [];
  const grpcBindings: GrpcBinding[] = [];
  let verifier: ServiceTokenVerifier | null = null;
  let started = false;
  const runClosers = async (): Promise<void> => {
    while (closers.length) {
      const fn = closers.pop()!;
      try { await fn(); } catch (err) { logger.warn({ err: (err as Error).message }, 'close step failed'); }
    }
  };

  try {
    await app.register(errorsPlugin, { table: def.errors, ...def.errorHooks?.(cfg) });
    const ia = cfg.internalAuth;
    if (ia) {
      // Issue 15 item 4: every outbound hop to a sibling carries this service's token ...
      const source = new ServiceTokenSource({ tokenUrl: ia.tokenUrl, clientId: ia.clientId, clientSecret: ia.clientSecret });
      installServiceTokens(cfg.serviceUrls, source);
      closers.push(() => uninstallServiceTokens(source));
      // ... and every inbound request but health and metrics needs one.
      if (def.serviceAuth !== false) {
        verifier = new ServiceTokenVerifier({
          issuer: ia.issuer, jwksUrl: ia.jwksUrl, audience: ia.audience, allowedClients: ia.allowedClients,
          ...(ia.introspectionUrl ? { introspect: introspectionCheck(ia.introspectionUrl, ia.clientId, ia.clientSecret) } : {}),
        });
        await app.register(serviceAuthPlugin, { verifier, openPrefixes: def.serviceAuthOpenPrefixes ?? [] });
      }
    }
    if (def.principal !== false) await app.register(principalPlugin, { principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys });
    await app.register(healthPlugin, { name: def.name });
    await app.register(metricsPlugin, {
      name: def.name,
      ...(def.defaultMetrics === undefined ? {} : { defaultMetrics: def.defaultMetrics }),
      ...(def.countRequests === undefined ? {} : { countRequests: def.countRequests }),
    });
    await def.setup({
      cfg, runtime, logger, app,
      onClose: (fn) => { closers.push(fn); },
      background: (name, start) => { work.push({ name, start }); },
      grpc: (binding) => { grpcBindings.push(binding); },
    });
    await app.ready();
  } catch (err) {
    await app.close().catch(() => undefined);
    await runClosers();
    throw err;
  }

  let closing: Promise<void> | null = null;
  return {
    app,
    logger,
    grpcBindings,
    startGrpc: async (host, port) => grpcBindings.length === 0 ? null : startGrpcServer({
      host, port, bindings: grpcBindings, table: def.errors, logger, verifier,
      principalKeys: cfg.principalKeys, capTokenKeys: cfg.capTokenKeys,
    }),
    startBackground: () => {
      if (started || closing) return;
      started = true;
      for (const w of work) {
        const stop = w.start();
        if (stop) stops.push(stop);
        logger.debug({ work: w.name }, 'background work started');
      }
    },
    close: () => {
      closing ??= (async () => {
        await app.close();
        while (stops.length) {
          const stop = stops.pop()!;
          try { await stop(); } catch (err) { logger.warn({ err: (err as Error).message }, 'background stop failed'); }
        }
        await runClosers();
      })();
      return closing;
    },
  };
}

/**
 * The `start(cfg, runtime)` of a service: build, listen on `cfg.host:cfg.port` (0 = ephemeral),
 * start background work, and return the bound port with `close()`.
 * @throws when setup fails or the port is taken (everything opened is closed first).
 */
export function serviceStart<Cfg extends CommonServiceConfig, Rt>(def: ServiceDefinition<Cfg, Rt>): (cfg: Cfg, runtime?: Rt) => Promise<RunningService> {
  return async (cfg, runtime) => {
    const built = await buildService(def, cfg, (runtime ?? {}) as Rt);
    const flush = (): Promise<void> => new Promise<void>((resolve) => { built.logger.flush(() => resolve()); });
    try {
      await built.app.listen({ host: cfg.host, port: cfg.port });
    } catch (err) {
      await built.close();
      await flush();
      throw err;
    }
    // Issue 20 item 2: the gRPC server beside HTTP, at `cfg.grpcPort` (null/absent: none).
    let grpcServer: RunningGrpcServer | null = null;
    const grpcWanted = cfg.grpcPort !== undefined && cfg.grpcPort !== null && built.grpcBindings.length > 0;
    if (grpcWanted) {
      try {
        grpcServer = await built.startGrpc(cfg.host, cfg.grpcPort!);
      } catch (err) {
        // No gRPC port: peers fall back to HTTP, which keeps working (issue 20 item 3).
        built.logger.error({ err: (err as Error).message, port: cfg.grpcPort }, 'gRPC server could not start; HTTP only');
      }
    }
    built.startBackground();
    const addr = built.app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : cfg.port;
    let grpcPort = grpcServer?.port ?? null;
    let lastGrpcPort = grpcPort;
    let closing: Promise<void> | null = null;
    return {
      port,
      get grpcPort() { return grpcPort; },
      setLogLevel: (level: string) => { built.logger.level = level; },
      setGrpc: async (on: boolean) => {
        if (!on && grpcServer) { const s = grpcServer; grpcServer = null; grpcPort = null; await s.close(); }
        if (on && !grpcServer && grpcWanted && !closing) {
          // The same port again when it had one (clients keep their address), else the configured one.
          grpcServer = await built.startGrpc(cfg.host, lastGrpcPort ?? cfg.grpcPort ?? 0);
          grpcPort = grpcServer?.port ?? null;
          lastGrpcPort = grpcPort ?? lastGrpcPort;
        }
        return grpcPort;
      },
      close: () => {
        closing ??= (async () => {
          if (grpcServer) await grpcServer.close(2000);
          await built.close();
          await flush();
        })();
        return closing;
      },
    };
  };
}
