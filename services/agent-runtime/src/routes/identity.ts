/**
 * The caller of a route, from the gateway's stamps: who it is and the headers to forward to peers
 * (spec "Identity headers").
 */
import type { FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import type { TurnIdentity } from '../domain/chat-engine.js';
import type { Owner } from '../domain/sessions.js';

/** What every route plugin of the runtime is registered with. */
export interface RouteScope {
  /** The pinned tenant (a principal without one acts in it). */
  tenantId: string;
}

const FORWARD = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token', 'x-correlation-id'] as const;

/**
 * The caller's identity and the stamped headers to forward to peers; the tenant is the
 * principal's, else `tenantId` (the pinned tenant).
 * @throws AppError 401 `principal_missing` when the request lacks a verified principal.
 */
export function turnIdentity(req: FastifyRequest, tenantId: string): TurnIdentity {
  const p = requirePrincipal(req);
  const headers: Record<string, string> = {};
  for (const h of FORWARD) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  return { tenantId: p.tenant_id || tenantId, userId: p.id, turnId: req.turnId, headers, roles: p.roles, groups: p.groups };
}

/** The caller as the owner of sessions, folders and approvals. */
export function ownerOf(req: FastifyRequest, tenantId: string): Owner {
  const who = turnIdentity(req, tenantId);
  return { tenantId: who.tenantId, userId: who.userId };
}
