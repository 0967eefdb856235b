/**
 * Who may do what in the audit service (DESIGN.md decisions of this service): the tenant is always
 * the pinned one; `admin` principals and service principals see every turn of the tenant, other
 * users the turns they started (the principal of the turn's first event); ingestion routes need a
 * service principal (`isServicePrincipal`: auth_method `service`, id `service:<name>`), never a
 * role claim (issue 11 item 1). A turn a caller may not see answers as if absent (`TurnService.visibleTurn`).
 */
import { isServicePrincipal, type Principal } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';

/** The caller, as the domain reads it (a verified principal). */
export type Viewer = Pick<Principal, 'id' | 'roles' | 'auth_method'>;

/** True for principals that see the whole tenant (admin role, service principals). */
export function seesWholeTenant(p: Viewer): boolean {
  return p.roles.includes('admin') || isServicePrincipal(p);
}

/** The owner a listing narrows to: null (the whole tenant) for privileged callers, else the caller. */
export function ownerFilter(p: Viewer): string | null {
  return seesWholeTenant(p) ? null : p.id;
}

/** Require a service principal (ingestion routes). @throws DomainError 403 `service_account_required`. */
export function requireServiceAccount<P extends Viewer>(p: P): P {
  if (!isServicePrincipal(p)) throw new DomainError('service_account_required', 'only service accounts may call this route');
  return p;
}
