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
    const v = verifyGatewayStamps((name) => header(req, name), principals, opts.capTokenKeys);
    req.principal = v.principal;
    req.turnId = v.turnId;
    if (v.capToken) req.capToken = v.capToken;
  });
}, { name: 'svc-principal', fastify: '5.x', dependencies: ['svc-errors'] });

/** What `verifyGatewayStamps` found: the principal, the turn id and the capability token (when sent). */
export interface VerifiedStamps { principal: Principal; turnId: string | null; capToken: CapabilityToken | null }

/**
 * Verify the gateway's stamps as every non-public route does, whatever carries them (HTTP headers
 * here, gRPC metadata in services/shared/grpc; issue 20 item 2): `get(name)` reads `x-svc-principal`,
 * `x-svc-turn-id`, `x-svc-cap-token`. @throws AppError 401 `principal_missing`, `principal_invalid`,
 * `cap_token_invalid`.
 */
export function verifyGatewayStamps(get: (name: string) => string | undefined, principals: StampVerifier<Principal>, capTokenKeys: readonly string[]): VerifiedStamps {
  const raw = get('x-svc-principal');
  if (raw === undefined) throw new AppError(401, 'principal_missing', 'request lacks the gateway-stamped principal');
  const res = principals.verify(raw);
  if (!res.ok) throw new AppError(401, 'principal_invalid', `stamped principal rejected: ${res.error}`);
  const turn = get('x-svc-turn-id');
  let capToken: CapabilityToken | null = null;
  const capRaw = get('x-svc-cap-token');
  if (capRaw !== undefined) {
    const cap = verifyStamp<CapabilityToken>(capRaw, capTokenKeys);
    if (!cap.ok) throw new AppError(401, 'cap_token_invalid', `capability token rejected: ${cap.error}`);
    if (cap.payload.sub !== res.payload.id || (turn !== undefined && cap.payload.turn_id !== turn)) {
      throw new AppError(401, 'cap_token_invalid', 'capability token not bound to this principal and turn');
    }
    capToken = cap.payload;
  }
  return { principal: res.payload, turnId: turn ?? null, capToken };
}

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
