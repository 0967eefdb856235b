/**
 * The `svc-service-auth` plugin: no request reaches a service without a valid service token
 * (spec "Service-to-service"; issue 15 item 4: "A request straight to a service port without a valid
 * service token is refused (only `/healthz`, `/readyz` and `/metrics` stay open)").
 *
 * Every request must carry `Authorization: Bearer <service token>` that `ServiceTokenVerifier`
 * accepts (realm signature, issuer, audience, a service `client_id`, the allow-list), except the
 * health and metrics paths and the `openPrefixes` of the service (the auth service's IdP paths
 * `/idp/realms/svc/*`, which authenticate their own clients). Failures answer 401 with a stable code:
 * `service_token_missing` (no bearer) or `service_token_invalid` (any failed check; the message says
 * which, never the token). The caller's client id is on `req.serviceClient`.
 *
 * It runs before `svc-principal`, so a request without a token is refused for that reason first.
 */
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import type { ServiceTokenVerifier } from '../identity/service-token-verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Client id of the verified service token (`service-<name>`), null on open paths. */
    serviceClient: string | null;
  }
}

/** Paths every service leaves open (spec "Service-to-service"). */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** Code of a request without a service token. */
export const SERVICE_TOKEN_MISSING = 'service_token_missing';
/** Code of a request whose service token failed a check. */
export const SERVICE_TOKEN_INVALID = 'service_token_invalid';

/** Options of the `svc-service-auth` plugin. */
export interface ServiceAuthPluginOptions {
  verifier: ServiceTokenVerifier;
  /** Path prefixes left open besides `OPEN_PATHS` (e.g. `/idp/realms/svc/` on the auth service). */
  openPrefixes?: readonly string[];
}

const CHALLENGE = { 'www-authenticate': 'Bearer realm="svc-internal", error="invalid_token"' };

/** True when `path` (no query) needs no service token. */
export function isOpenPath(path: string, openPrefixes: readonly string[] = []): boolean {
  if (OPEN_PATHS.has(path)) return true;
  for (const p of openPrefixes) if (path.startsWith(p)) return true;
  return false;
}

/**
 * Check one `Authorization` value as every service route does (HTTP header here, gRPC `authorization`
 * metadata in services/shared/grpc; issue 20 item 2). @returns the caller's client id, synchronously
 * when the token is cached. @throws AppError 401 `service_token_missing` / `service_token_invalid`
 * (thrown, or as the promise's rejection).
 */
export function checkServiceToken(raw: string | undefined, verifier: ServiceTokenVerifier, onRefused?: (reason: string) => void): string | Promise<string> {
  if (!raw) throw new AppError(401, SERVICE_TOKEN_MISSING, 'request lacks a service token (Authorization: Bearer)', { headers: CHALLENGE });
  if (raw.length < 8 || raw.slice(0, 7).toLowerCase() !== 'bearer ') {
    throw new AppError(401, SERVICE_TOKEN_INVALID, 'authorization must be "Bearer <service token>"', { headers: CHALLENGE });
  }
  const token = raw.slice(7).trim();
  const hit = verifier.cached(token);
  if (hit) return hit.clientId;
  return verifier.verify(token).then((res) => {
    if (res.ok) return res.clientId;
    onRefused?.(res.reason);
    throw new AppError(401, SERVICE_TOKEN_INVALID, res.message, { headers: CHALLENGE });
  });
}

/** Verify the service token of every request outside the open paths. */
export const serviceAuthPlugin = fp<ServiceAuthPluginOptions>(async (app, opts) => {
  app.decorateRequest('serviceClient', null);
  const prefixes = opts.openPrefixes ?? [];
  const verifier = opts.verifier;

  app.addHook('onRequest', (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const q = req.url.indexOf('?');
    if (isOpenPath(q >= 0 ? req.url.slice(0, q) : req.url, prefixes)) { done(); return; }
    let res: string | Promise<string>;
    try { res = checkServiceToken(req.headers.authorization, verifier, (reason) => req.log.info({ reason }, 'service token refused')); } catch (err) { done(err as Error); return; }
    if (typeof res === 'string') { req.serviceClient = res; done(); return; }
    res.then((clientId) => { req.serviceClient = clientId; done(); }, (err: Error) => done(err));
  });
}, { name: 'svc-service-auth', fastify: '5.x', dependencies: ['svc-errors'] });
