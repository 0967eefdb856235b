/**
 * From validated bearer claims to the stamped identity (spec: "Principal", "Identity headers",
 * "Roles and groups").
 *
 * Roles are `realm_access.roles` (plus a top-level `roles` array when an issuer uses one), then
 * `SVC_GROUP_ROLE_MAP` adds roles from `groups` (never removes), then `SVC_ADMIN_EMAIL_ALLOWLIST`
 * adds `admin` for listed emails; only account roles (`ACCOUNT_ROLES`) are stamped, so a token can
 * never carry `service-account` or an unknown role into a principal, and a token's `auth_method`
 * is never `service` or `anonymous` (issue 11 item 1: no human account can be a service). The tenant
 * is always the pinned one: a tenant claim is ignored.
 * Stamped identities are cached per bearer token (`IdentityCache`).
 */
import { STAMP_LIFETIME_SECONDS, accountRoles, capabilityToken as mintCapabilityToken, signStamp, type AuthMethod, type Principal } from '../../../shared/identity/principal.js';
import type { ValidatedClaims } from '../contracts.js';

/** Identity settings of the gateway. */
export interface IdentitySettings {
  tenantId: string;
  principalKeys: readonly string[];
  capTokenKeys: readonly string[];
  adminEmailAllowlist: readonly string[];
  groupRoleMap: Readonly<Record<string, readonly string[]>>;
}

/** A resolved identity with its signed principal header, cached per bearer token. */
export interface StampedIdentity {
  principal: Principal;
  /** X-Svc-Principal value. */
  stamp: string;
  /** Unix seconds when `stamp` expires. */
  stampExp: number;
  /** Precomputed downstream headers (x-user-*, x-tenant-id). */
  headers: Record<string, string>;
}

/** Auth methods a bearer token may state; `service` and `anonymous` are the gateway's own, never a token's. */
const TOKEN_AUTH_METHODS: ReadonlySet<string> = new Set(['password', 'upstream_oidc', 'upstream_saml', 'mobile']);

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Header-safe form of a value: visible ASCII passes as is; anything else (non-ASCII names and
 * emails, control characters) is percent-encoded (RFC 3986), so downstream decodes with
 * `decodeURIComponent` (DESIGN.md: header encodings).
 */
export function headerValue(v: string): string {
  return /^[\x20-\x7e]*$/.test(v) ? v : encodeURIComponent(v);
}

/**
 * Compute roles from claims and settings: token roles, group-mapped roles and the allow-list's
 * `admin`, kept only where they are account roles (`ACCOUNT_ROLES`), sorted.
 */
export function effectiveRoles(claims: Pick<ValidatedClaims, 'realm_access' | 'groups' | 'email'> & { roles?: unknown }, s: Pick<IdentitySettings, 'adminEmailAllowlist' | 'groupRoleMap'>): string[] {
  const roles = new Set<string>([...strings(claims.realm_access?.roles), ...strings(claims.roles)]);
  for (const g of strings(claims.groups)) for (const r of s.groupRoleMap[g] ?? []) roles.add(r);
  if (typeof claims.email === 'string' && s.adminEmailAllowlist.includes(claims.email.toLowerCase())) roles.add('admin');
  return accountRoles([...roles]).sort();
}

/** Build and sign the principal for validated claims (a user principal: never `auth_method` `service`). */
export function stampIdentity(claims: ValidatedClaims, s: IdentitySettings, nowSeconds = Math.floor(Date.now() / 1000)): StampedIdentity {
  const authMethod: AuthMethod = typeof claims.auth_method === 'string' && TOKEN_AUTH_METHODS.has(claims.auth_method)
    ? claims.auth_method as AuthMethod : 'upstream_oidc';
  const principal: Principal = {
    id: claims.sub,
    tenant_id: s.tenantId,
    roles: effectiveRoles(claims, s),
    groups: strings(claims.groups),
    local_iss: claims.iss,
    local_sub: claims.sub,
    auth_method: authMethod,
    iat: nowSeconds,
    exp: nowSeconds + STAMP_LIFETIME_SECONDS,
  };
  if (typeof claims.email === 'string') principal.email = claims.email;
  const display = typeof claims.name === 'string' ? claims.name : typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  if (display !== undefined) principal.display_name = display;
  if (typeof claims.sid === 'string') principal.session_id = claims.sid;
  // Issue 15 items 1-2: a sign-in brokered by the embedded IdP names the upstream identity.
  for (const k of ['upstream_iss', 'upstream_sub', 'upstream_preferred_username'] as const) {
    if (typeof claims[k] === 'string') principal[k] = claims[k];
  }
  return sign(principal, s);
}

/** The anonymous principal of dev mode with auth disabled (spec rule 6). */
export function anonymousIdentity(s: IdentitySettings, nowSeconds = Math.floor(Date.now() / 1000)): StampedIdentity {
  return sign({
    id: 'anonymous', tenant_id: s.tenantId, display_name: 'Anonymous (auth disabled)', roles: ['admin', 'user'], groups: [],
    auth_method: 'anonymous', iat: nowSeconds, exp: nowSeconds + STAMP_LIFETIME_SECONDS,
  }, s);
}

function sign(principal: Principal, s: IdentitySettings): StampedIdentity {
  const headers: Record<string, string> = {
    'x-user-id': headerValue(principal.id),
    'x-user-roles': principal.roles.join(','),
    'x-tenant-id': s.tenantId,
  };
  if (principal.email !== undefined) headers['x-user-email'] = headerValue(principal.email);
  return { principal, stamp: signStamp(principal, s.principalKeys), stampExp: principal.exp, headers };
}

/** Re-sign a cached identity whose stamp is close to expiry (less than a minute left). */
export function refreshStamp(id: StampedIdentity, s: IdentitySettings, nowSeconds = Math.floor(Date.now() / 1000)): StampedIdentity {
  if (id.stampExp - nowSeconds > 60) return id;
  return sign({ ...id.principal, iat: nowSeconds, exp: nowSeconds + STAMP_LIFETIME_SECONDS }, s);
}

/**
 * Mint the per-turn capability token of `principal` (spec: "Turn context" scopes; the shared
 * `capabilityToken` of services/shared/identity/principal.ts, with this gateway's tenant and keys).
 */
export function capabilityToken(principal: Principal, turnId: string, s: IdentitySettings, nowSeconds = Math.floor(Date.now() / 1000)): string {
  return mintCapabilityToken(principal.id, s.tenantId, turnId, s.capTokenKeys, nowSeconds);
}

/**
 * Stamped identities per bearer token, so a token validated once is not re-stamped per request.
 * A cached stamp is re-signed when close to expiry (`refreshStamp`); when `max` tokens are held
 * the whole cache is dropped (cheap, and a hot token is back after one request).
 */
export class IdentityCache {
  private readonly byToken = new Map<string, StampedIdentity>();

  /**
   * @param settings identity settings of the gateway.
   * @param max most tokens held (`tokenCacheMax`).
   */
  constructor(private readonly settings: IdentitySettings, private readonly max: number) {}

  /** The stamped identity of `token`, whose validated claims are `claims`. */
  identity(token: string, claims: ValidatedClaims): StampedIdentity {
    let id = this.byToken.get(token);
    if (id) {
      const fresh = refreshStamp(id, this.settings);
      if (fresh !== id) { this.byToken.set(token, fresh); id = fresh; }
      return id;
    }
    id = stampIdentity(claims, this.settings);
    if (this.byToken.size >= this.max) this.byToken.clear();
    this.byToken.set(token, id);
    return id;
  }
}
