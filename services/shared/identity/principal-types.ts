/**
 * The shapes of the stamped principal and capability token (spec: "Principal", "Turn context";
 * DESIGN.md "Identity"), Node-free so contracts and the renderer may import them. Signing and
 * verification live in `principal.ts`.
 */

/** Authentication method recorded in the principal (spec: Principal.auth_method). */
export type AuthMethod = 'password' | 'upstream_oidc' | 'upstream_saml' | 'mobile' | 'service' | 'anonymous';

/** The signed principal (spec: "Principal"). Absent values are omitted. */
export interface Principal {
  id: string;
  tenant_id: string;
  email?: string;
  display_name?: string;
  roles: string[];
  groups: string[];
  local_iss?: string;
  local_sub?: string;
  upstream_iss?: string;
  upstream_sub?: string;
  upstream_preferred_username?: string;
  auth_method: AuthMethod;
  session_id?: string;
  /** Unix seconds. */
  iat: number;
  /** Unix seconds; 5 minutes after iat. */
  exp: number;
}

/**
 * The roles a human account may hold, local or from a directory (issue 11 item 1; spec "Principal",
 * "Roles and groups"): `admin` is the single admin role of the admin guards; `tenant_admin` and
 * `platform_admin` widen reach only on the surfaces that name them (memory, knowledge). Account
 * administration refuses any other role, `SVC_GROUP_ROLE_MAP` may map only onto these, and the
 * gateway stamps no other role from a token.
 */
export const ACCOUNT_ROLES = ['user', 'admin', 'tenant_admin', 'platform_admin'] as const;

/** One of `ACCOUNT_ROLES`. */
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/**
 * The role carried by service principals (`servicePrincipal`). It grants nothing on its own: service
 * routes check `isServicePrincipal`, and no account may hold this role (issue 11 item 1).
 */
export const SERVICE_ROLE = 'service-account';

/** True when `role` is one of `ACCOUNT_ROLES`. */
export function isAccountRole(role: string): role is AccountRole {
  return (ACCOUNT_ROLES as readonly string[]).includes(role);
}

/** The roles of `roles` that an account may hold (`ACCOUNT_ROLES`), in their order, without duplicates. */
export function accountRoles(roles: readonly string[]): AccountRole[] {
  return [...new Set(roles.filter(isAccountRole))];
}

/** A service principal's id: `service:<name>`, name lower-case letters, digits and `-` (`SERVICE_NAMES`). */
const SERVICE_ID = /^service:[a-z][a-z0-9-]{0,63}$/;

/**
 * True only for a genuine service principal as `servicePrincipal`/`serviceStamp` build it:
 * `auth_method` `service` and id `service:<name>` (issue 11 item 1). A role claim never makes a
 * service: the gateway stamps user tokens with their own auth method and account roles only, so a
 * user's principal fails here whatever roles it carries. Service-only routes and "service or admin"
 * checks use this, never `roles.includes('service-account')`.
 */
export function isServicePrincipal(p: Pick<Principal, 'id' | 'auth_method'>): boolean {
  return p.auth_method === 'service' && SERVICE_ID.test(p.id);
}

/** Capability scopes granted today (spec: "Turn context"). */
export const CAPABILITY_SCOPES = ['agent.invoke', 'tool.*', 'memory.*', 'knowledge.*', 'guardrail.*'] as const;

/** The capability token payload (DESIGN.md: `{sub, tenant_id, scopes, turn_id, exp}`). */
export interface CapabilityToken {
  sub: string;
  tenant_id: string;
  scopes: string[];
  turn_id: string;
  /** Unix seconds. */
  exp: number;
}

