/** Scope checks shared by the routes: the single pinned tenant, and who acts for whom. */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { Principal } from '../../../shared/identity/principal.js';

/** The principal, after checking `tenantId` (when given) is the principal's tenant. */
export function principalFor(req: FastifyRequest, tenantId: string | undefined | null): Principal {
  const p = requirePrincipal(req);
  if (tenantId && p.tenant_id && tenantId !== p.tenant_id) throw new AppError(403, 'tenant_mismatch', 'scope.tenant_id differs from the caller\'s tenant');
  return p;
}

/** The user the content belongs to: service accounts may name one, everyone else is themselves. */
export function actingUser(p: Principal, userId: string | undefined): string {
  return p.roles.includes('service-account') && userId ? userId : p.id;
}
