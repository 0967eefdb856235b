/**
 * The `svc-principal` plugin: request decorators and the check of the gateway's stamps
 * (spec: "Identity headers"; DESIGN.md "Identity").
 *
 * Every route needs a valid `X-Svc-Principal` unless its route config says `public: true`; a
 * public route still gets the principal when a valid one is present. An `X-Svc-Cap-Token` must be
 * bound to the same principal and turn. Failures: 401 `principal_missing`, `principal_invalid`,
 * `cap_token_invalid`.
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import { StampVerifier, verifyStamp, type CapabilityToken, type Principal } from '../identity/principal.js';

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

/** Options of the `svc-principal` plugin. */
export interface PrincipalPluginOptions {
  /** HMAC keys accepted for X-Svc-Principal, newest first. */
  principalKeys: readonly string[];
  /** HMAC keys accepted for X-Svc-Cap-Token, newest first. */
  capTokenKeys: readonly string[];
}

/** Decorate requests with `principal`, `capToken`, `turnId` and verify the stamps on each request. */
export const principalPlugin = fp<PrincipalPluginOptions>(async (app, opts) => {
  app.decorateRequest('principal', null);
  app.decorateRequest('capToken', null);
  app.decorateRequest('turnId', null);
  const principals = new StampVerifier<Principal>(opts.principalKeys);

  app.addHook('onRequest', async (req: FastifyRequest) => {
    if (req.routeOptions.config?.public === true) {
      const raw = header(req, 'x-svc-principal');
      if (raw === undefined) return;
      const res = verifyStamp<Principal>(raw, opts.principalKeys);
      if (res.ok) {
        req.principal = res.payload;
        req.turnId = header(req, 'x-svc-turn-id') ?? null;
      }
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
}, { name: 'svc-principal', fastify: '5.x', dependencies: ['svc-errors'] });

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Require an authenticated principal (for routes marked public that still want one). @throws 401 `principal_missing`. */
export function requirePrincipal(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError(401, 'principal_missing', 'request lacks the gateway-stamped principal');
  return req.principal;
}

/** Require that the principal holds `role` (defence in depth behind the gateway's admin guard). @throws 403 `admin_required` / `forbidden`. */
export function requireRole(req: FastifyRequest, role: string): Principal {
  const p = requirePrincipal(req);
  if (!p.roles.includes(role)) throw new AppError(403, role === 'admin' ? 'admin_required' : 'forbidden', `role ${role} required`);
  return p;
}
