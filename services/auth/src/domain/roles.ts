/**
 * The roles a local account may hold (issue 11 item 1; spec "Principal", "Roles and groups"):
 * exactly `ACCOUNT_ROLES` (`user`, `admin`, `tenant_admin`, `platform_admin`). `service-account`
 * belongs to service principals and is never given to an account, so no human login can pass a
 * service check.
 *
 * Accounts stored before this rule may still hold other roles: they stay visible to admins (who
 * can PATCH them away) but are inert, because access tokens carry only `tokenRoles(...)` and the
 * gateway stamps only account roles.
 */
import { DomainError, invalidInput } from '../../../shared/kit/domain-error.js';
import { accountRoles, isAccountRole, type AccountRole } from '../../../shared/identity/principal-types.js';
import { LIMITS, NON_ASSIGNABLE_ROLES, ROLE_PATTERN } from '../contracts.js';

/**
 * Check and de-duplicate the roles of an account being created or changed.
 * @param field the body path named in the error (`body.roles`).
 * @returns the roles, first occurrence order, without duplicates.
 * @throws DomainError 400 `invalid_request` (more than `LIMITS.rolesMax`, or a name not of
 *   `ROLE_PATTERN` shape), 400 `role_not_assignable` (`service-account`), 400 `role_unknown` (a
 *   well-formed name outside `ACCOUNT_ROLES`); the body names the `field` and the refused `role`.
 */
export function assignableRoles(roles: readonly string[], field = 'body.roles'): AccountRole[] {
  if (roles.length > LIMITS.rolesMax) throw invalidInput(`at most ${LIMITS.rolesMax} roles`, field);
  for (const role of roles) {
    if (!ROLE_PATTERN.test(role)) throw invalidInput('role names are lower-case letters, digits and . _ -', field);
    if (NON_ASSIGNABLE_ROLES.includes(role)) {
      throw new DomainError('role_not_assignable', `role ${role} belongs to services and cannot be given to an account`, { extra: { field, role } });
    }
    if (!isAccountRole(role)) {
      throw new DomainError('role_unknown', 'unknown role; an account may hold user, admin, tenant_admin or platform_admin', { extra: { field, role } });
    }
  }
  return accountRoles(roles);
}

/** The roles an access token carries for a stored account: its roles within `ACCOUNT_ROLES` (others are dropped). */
export function tokenRoles(stored: readonly string[]): AccountRole[] {
  return accountRoles(stored);
}
