/**
 * Who may use which sandbox session (issue 12 "Sessions"; spec "Principal"). Pure rules over the
 * stamped principal:
 * - the tenant of a call is the caller's: a body or path `tenant_id` naming another tenant is refused
 *   with 403 `tenant_mismatch` (the platform's code for this, as the gateway and guardrail answer it),
 *   except for service principals (`isServicePrincipal`: the agent runtime), which may name any tenant;
 * - a session belongs to the principal that created it: another user's session is refused with 403
 *   `forbidden` unless the caller is an admin or a service (chat session ids are per user);
 * - listing sessions is for admins and services, destroying one for admins.
 */
import { DomainError } from '../../../shared/kit/domain-error.js';
import type { Principal } from '../../../shared/identity/principal.js';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';

/** The caller of a route, as the domain needs it. */
export type Caller = Pick<Principal, 'id' | 'tenant_id' | 'roles' | 'auth_method'>;

/** True for admins. */
export function isAdmin(caller: Caller): boolean {
  return caller.roles.includes('admin');
}

/**
 * The tenant a call runs in: `requested` when the caller is a service or it is the caller's own.
 * @throws DomainError `tenant_mismatch` when a non-service caller names another tenant.
 */
export function callTenant(caller: Caller, requested: string): string {
  if (isServicePrincipal(caller) || requested === caller.tenant_id) return requested;
  throw new DomainError('tenant_mismatch', 'tenant_id differs from the caller\'s tenant');
}

/**
 * Refuse a caller that may not use a session created by `ownerId`.
 * @throws DomainError `forbidden`.
 */
export function checkOwner(caller: Caller, ownerId: string): void {
  if (caller.id === ownerId || isAdmin(caller) || isServicePrincipal(caller)) return;
  throw new DomainError('forbidden', 'this sandbox session belongs to another user');
}

/** Refuse a caller that may not list sessions (admins and services may). @throws DomainError `admin_required`. */
export function checkMayList(caller: Caller): void {
  if (isAdmin(caller) || isServicePrincipal(caller)) return;
  throw new DomainError('admin_required', 'listing sandbox sessions needs the admin role');
}
