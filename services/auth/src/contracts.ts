/**
 * Public surface of the auth service (local accounts and the embedded issuer `{public_url}/auth`).
 *
 * Spec: "Public auth surface", "Authentication", "Principal", "Errors"; DESIGN.md "Identity",
 * "Request bodies the spec leaves open", "Errors". Other services and the renderer import only this file.
 */
import type { AuthMethod } from '../../shared/identity/principal.js';

/**
 * Stable error codes of the auth service, in addition to the shared ones (`invalid_request`,
 * `not_found`, `admin_required`, `principal_missing`, ...). Every error body is `{error, code}`.
 *
 * | code | status | when |
 * |---|---|---|
 * | `invalid_credentials` | 401 | unknown user, wrong password, or an account without a password |
 * | `password_login_disabled` | 403 | password login is switched off |
 * | `login_throttled` | 429 | too many failures for the account or client IP; `Retry-After` says when to retry |
 * | `account_disabled` | 403 | login, refresh or handoff for a disabled user |
 * | `refresh_token_invalid` | 401 | unknown, expired or revoked refresh token |
 * | `refresh_token_reused` | 401 | an already-rotated refresh token was presented; its whole family is revoked |
 * | `handoff_invalid` | 401 | unknown or spent installer-handoff id |
 * | `user_exists` | 409 | an account with that email exists |
 * | `cannot_demote_self` | 409 | an admin tried to disable themself or drop their own admin role |
 */
export type AuthErrorCode =
  | 'invalid_credentials'
  | 'password_login_disabled'
  | 'login_throttled'
  | 'account_disabled'
  | 'refresh_token_invalid'
  | 'refresh_token_reused'
  | 'handoff_invalid'
  | 'user_exists'
  | 'cannot_demote_self';

/** Token response, RFC 6749 §5.1 field names (DESIGN.md "Identity"). Served with `Cache-Control: no-store`. */
export interface TokenResponse {
  /** ES256 JWT; claims in `AccessTokenClaims`. */
  access_token: string;
  /** Opaque (base64url of 32 random bytes), single use: every refresh rotates it. */
  refresh_token: string;
  token_type: 'Bearer';
  /** Access token lifetime, seconds. */
  expires_in: number;
}

/** Claims of an access token minted by this service (read by the gateway's token validator). */
export interface AccessTokenClaims {
  /** `{public_url}/auth`. */
  iss: string;
  /** `svc-frontend`. */
  aud: string;
  /** User id (ULID). */
  sub: string;
  email: string;
  /** Display name. */
  name: string;
  realm_access: { roles: string[] };
  groups: string[];
  auth_method: Extract<AuthMethod, 'password'>;
  /** Session id: the refresh-token family. */
  sid: string;
  /** Unix seconds. */
  iat: number;
  /** Unix seconds: iat + access token TTL. */
  exp: number;
  /** ULID. */
  jti: string;
}

/** `GET /v1/auth/config` (spec: "an object with boolean `passwordLoginEnabled` and further flags"). */
export interface AuthConfigView {
  passwordLoginEnabled: boolean;
  /** True while an installer-handoff id waits to be exchanged. */
  installerHandoffPending: boolean;
  issuer: string;
  secondFactor: { available: boolean };
}

/** `GET /v1/auth/idps`: sanitized external identity providers. */
export interface IdpList { items: Array<{ name: string; issuer: string }> }

/** A local account as admins see it (`/v1/admin/users*`). Never carries the password hash. */
export interface UserView {
  /** ULID. */
  id: string;
  /** Lower-cased. */
  email: string;
  display_name: string;
  roles: string[];
  disabled: boolean;
  /** False for accounts that cannot log in by password (e.g. the installer admin). */
  has_password: boolean;
  /** RFC 3339 UTC. */
  created_at: string;
  /** RFC 3339 UTC. */
  updated_at: string;
}

/** `GET /v1/admin/users`: `{items, next_cursor?}`; pass `next_cursor` as `cursor` for the next page. */
export interface UserPage { items: UserView[]; next_cursor?: string }

/**
 * `GET /v1/user/me`. For local users `local: true` and the stored profile; for principals from
 * other issuers, service or anonymous principals, `local: false` and the principal's fields
 * (`created_at` null). `roles` are the principal's effective roles (after the gateway's group map
 * and admin allow-list).
 */
export interface ProfileView {
  id: string;
  email: string | null;
  display_name: string | null;
  roles: string[];
  tenant_id: string;
  auth_method: AuthMethod;
  disabled: boolean;
  created_at: string | null;
  local: boolean;
}

/** `GET /v1/auth/verify`: sentinel answer for protected upstream surfaces. */
export interface VerifyView { ok: true; sub: string; email: string | null; roles: string[]; tenant_id: string }

/** `POST /v1/admin/users` body. `roles` defaults to `["user"]`. */
export interface CreateUserInput { email: string; display_name: string; password?: string; roles?: string[] }

/** `PATCH /v1/admin/users/:id` body: any non-empty subset. */
export interface UpdateUserInput { display_name?: string; roles?: string[]; disabled?: boolean; password?: string }

/** Roles the platform itself uses (spec: "Principal"); any other role must match `ROLE_PATTERN`. */
export const KNOWN_ROLES = ['user', 'admin', 'service-account'] as const;

/** Shape of a custom role name. */
export const ROLE_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

/** True when `role` is a known role or a well-formed custom one. */
export function isValidRole(role: string): boolean {
  return (KNOWN_ROLES as readonly string[]).includes(role) || ROLE_PATTERN.test(role);
}

/** Length bounds of login and account fields (characters). */
export const LIMITS = {
  emailMax: 320,
  passwordMin: 8,
  passwordMax: 1024,
  displayNameMax: 200,
  rolesMax: 32,
  pageDefault: 100,
  pageMax: 500,
} as const;

/** Email of the password-less admin created for the installer handoff. */
export const INSTALLER_ADMIN_EMAIL = 'admin@localhost';

/** Signing key location, relative to the data directory (private JWK with `kid`, mode 0600). */
export const SIGNING_KEY_FILE = 'keys/auth-signing-key.json';

/** Installer-handoff file, relative to the data directory: `{handoff_id, created_at}`, mode 0600. */
export const HANDOFF_FILE = 'installer-handoff.json';
