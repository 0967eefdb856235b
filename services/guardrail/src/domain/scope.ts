/** Who acts for whom: the single pinned tenant, and the user content belongs to. */
import { DomainError } from '../../../shared/kit/domain-error.js';
import { isServicePrincipal, type Principal } from '../../../shared/identity/principal-types.js';
import type { GuardrailErrorCode } from '../contracts.js';

/** The caller of a use case: the stamped principal and the request's turn (X-Svc-Turn-Id). */
export interface Caller { principal: Principal; turnId: string | null }

/**
 * The caller's tenant, after checking `tenantId` (when given) is it.
 * @param fallback the service's pinned tenant, for principals without one.
 * @throws DomainError `tenant_mismatch`.
 */
export function callerTenant(p: Principal, tenantId: string | undefined | null, fallback: string): string {
  if (tenantId && p.tenant_id && tenantId !== p.tenant_id) throw new DomainError<GuardrailErrorCode>('tenant_mismatch', 'scope.tenant_id differs from the caller\'s tenant');
  return p.tenant_id || fallback;
}

/** The user the content belongs to: service principals may name one (`isServicePrincipal`), everyone else is themselves. */
export function actingUser(p: Principal, userId: string | undefined): string {
  return isServicePrincipal(p) && userId ? userId : p.id;
}
