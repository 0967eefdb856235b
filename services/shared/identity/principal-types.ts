/**
 * The shapes of the stamped principal and capability token (spec: "Principal", "Turn context";
 * DESIGN.md "Identity"), Node-free so contracts and the renderer may import them. Signing and
 * verification live in `principal.ts`.
 */

/** Authentication method recorded in the principal (spec: Principal.auth_method). */
export type AuthMethod = 'password' | 'upstream_oidc' | 'upstream_saml' | 'service' | 'anonymous';

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

