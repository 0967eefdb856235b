/**
 * Public surface of the auth service (local accounts and the embedded issuer `{public_url}/auth`).
 *
 * Spec: "Public auth surface", "Authentication", "Principal", "Errors"; DESIGN.md "Identity",
 * "Request bodies the spec leaves open", "Errors". Other services and the renderer import only this file.
 */
import { Type, type Static } from '../../shared/kit/typebox.js';
import { OrNull } from '../../shared/kit/schema.js';
import { ACCOUNT_ROLES, SERVICE_ROLE, type AuthMethod } from '../../shared/identity/principal-types.js';
import type { CommonErrorCode, ErrorTable } from '../../shared/kit/domain-error.js';
import { PublicUpstreamIdpSchema, UPSTREAM_SSO_ERRORS } from './contracts/upstream-sso.js';

export * from './contracts/login-challenge.js';
export * from './contracts/devices.js';
export * from './contracts/pairing.js';
export * from './contracts/upstream-sso.js';
export * from './contracts/sign-ins.js';
export * from './contracts/web-password.js';

/**
 * Error codes of the auth service and their HTTP statuses, in addition to the shared ones
 * (`invalid_request`, `not_found`, `admin_required`, `principal_missing`, ...). Every error body is
 * `{error, code}`.
 *
 * | code | status | when |
 * |---|---|---|
 * | `invalid_credentials` | 401 | unknown user, wrong password, or an account without a password |
 * | `password_login_disabled` | 403 | password login is switched off |
 * | `login_throttled` | 429 | too many failures for the account from this client, or from this client across accounts; `Retry-After` says when to retry |
 * | `gateway_required` | 403 | a password login that did not come through the gateway (no valid `X-Svc-Client` hop stamp; issue 11 item 2) |
 * | `account_disabled` | 403 | login, refresh or handoff for a disabled user |
 * | `refresh_token_invalid` | 401 | unknown, expired or revoked refresh token |
 * | `refresh_token_reused` | 401 | an already-rotated refresh token was presented; its whole family is revoked |
 * | `handoff_invalid` | 401 | unknown or spent installer-handoff id |
 * | `user_exists` | 409 | an account with that email exists |
 * | `cannot_demote_self` | 409 | an admin tried to disable themself or drop their own admin role |
 * | `role_not_assignable` | 400 | an account was given `service-account`: services are not accounts (issue 11 item 1) |
 * | `role_unknown` | 400 | an account was given a role outside `ACCOUNT_ROLES` (`user`, `admin`, `tenant_admin`, `platform_admin`) |
 * | `enrollment_token_invalid` | 401 | pairing: the enrollment token is malformed, badly signed, or of another issuer/audience (issue 14) |
 * | `enrollment_expired` | 410 | pairing: the enrollment token's 2 minutes are over |
 * | `enrollment_used` | 409 | pairing: the enrollment was already completed (a second use or a replay) |
 * | `enrollment_not_found` | 404 | `GET /v1/account/devices/pairing/{id}` of an unknown enrollment or another user's |
 * | `enrollment_limit` | 429 | the user already has 5 pending enrollments |
 * | `device_proof_invalid` | 401 | a device proof, enrollment proof or answer is malformed, badly signed, expired, for another route, or does not match the enrollment |
 * | `device_proof_replayed` | 401 | a device proof's `jti` was already used |
 * | `device_revoked` | 401 | the device was revoked (its proofs, answers and refresh tokens are refused) |
 * | `device_not_found` | 404 | no such device of this user |
 * | `challenge_not_found` | 404 | the phone answered an unknown challenge, or one of another user |
 * | `challenge_expired` | 410 | the login challenge expired (or is unknown to the gateway's verify) |
 * | `challenge_answered` | 409 | the phone answered a challenge that was already answered |
 * | `challenge_used` | 409 | an approved challenge was already released once |
 * | `challenge_denied` | 403 | the login challenge was denied (deny, wrong number, "this wasn't me", too many wrong codes) |
 * | `challenge_throttled` | 429 | more than 5 login challenges for one user in 10 minutes (push fatigue) |
 * | `code_invalid` | 401 | a wrong, reused or malformed offline (TOTP) or recovery code |
 */
export const AUTH_ERRORS = {
  invalid_credentials: 401,
  password_login_disabled: 403,
  login_throttled: 429,
  gateway_required: 403,
  account_disabled: 403,
  refresh_token_invalid: 401,
  refresh_token_reused: 401,
  handoff_invalid: 401,
  user_exists: 409,
  cannot_demote_self: 409,
  role_not_assignable: 400,
  role_unknown: 400,
  enrollment_token_invalid: 401,
  enrollment_expired: 410,
  enrollment_used: 409,
  enrollment_not_found: 404,
  enrollment_limit: 429,
  device_proof_invalid: 401,
  device_proof_replayed: 401,
  device_revoked: 401,
  device_not_found: 404,
  challenge_not_found: 404,
  challenge_expired: 410,
  challenge_answered: 409,
  challenge_used: 409,
  challenge_denied: 403,
  challenge_throttled: 429,
  code_invalid: 401,
  // Issue 15 item 3: directory sign-in through dirauth.
  directory_unavailable: 503,
  directory_email_missing: 403,
  directory_account_conflict: 409,
  // Issue 15 item 2: upstream SSO (table in contracts/upstream-sso.ts).
  ...UPSTREAM_SSO_ERRORS,
} as const satisfies ErrorTable;

/** A code of `AUTH_ERRORS`, or a common one. */
export type AuthErrorCode = keyof typeof AUTH_ERRORS | CommonErrorCode;

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

/** Loose email form: one `@`, no whitespace, something on both sides (`admin@localhost` is valid). */
export const EMAIL_PATTERN = '^[^\\s@]+@[^\\s@]+$';

/**
 * Shape of a role name in request bodies (a malformed one is 400 `invalid_request`); a well-formed
 * name must then be in `KNOWN_ROLES` (400 `role_unknown`, or `role_not_assignable` for `service-account`).
 */
export const ROLE_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

const Strings = Type.Array(Type.String());
const NullableString = OrNull(Type.String());

/** A string of bounded length (characters). */
export const BoundedString = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength });

/**
 * A role list in request bodies: names of `ROLE_PATTERN` shape; the domain then refuses
 * `service-account` (`role_not_assignable`) and any name outside `KNOWN_ROLES` (`role_unknown`).
 */
export const RolesSchema = Type.Array(Type.String({ pattern: ROLE_PATTERN.source }), { maxItems: LIMITS.rolesMax });

/** Password in request bodies. */
export const PasswordSchema = BoundedString(LIMITS.passwordMax, LIMITS.passwordMin);

/** Display name in request bodies. */
export const DisplayNameSchema = BoundedString(LIMITS.displayNameMax, 1);

/** Email in request bodies. */
export const EmailSchema = Type.String({ maxLength: LIMITS.emailMax, pattern: EMAIL_PATTERN });

/** Token response, RFC 6749 §5.1 field names (DESIGN.md "Identity"). Served with `Cache-Control: no-store`. */
export const TokenResponseSchema = Type.Object({
  /** ES256 JWT; claims in `AccessTokenClaims`. */
  access_token: Type.String(),
  /** Opaque (base64url of 32 random bytes), single use: every refresh rotates it. */
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  /** Access token lifetime, seconds. */
  expires_in: Type.Integer(),
});
/** Token response (RFC 6749 §5.1). */
export type TokenResponse = Static<typeof TokenResponseSchema>;

/** `POST /v1/auth/login` body (DESIGN.md: username may be an email). */
export const LoginBodySchema = Type.Object({
  username: BoundedString(LIMITS.emailMax, 1),
  password: BoundedString(LIMITS.passwordMax, 1),
}, { additionalProperties: false });

/** `POST /v1/auth/refresh` body. */
export const RefreshBodySchema = Type.Object({ refresh_token: BoundedString(512, 1) }, { additionalProperties: false });

/** `POST /v1/auth/installer-handoff` body. */
export const HandoffBodySchema = Type.Object({ handoff_id: BoundedString(128, 1) }, { additionalProperties: false });

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
  /** `password`, or `mobile` for the tokens of a paired device (issue 14). */
  auth_method: Extract<AuthMethod, 'password'> | 'mobile';
  /** Session id: the refresh-token family; for mobile tokens the device id. */
  sid: string;
  /** Mobile tokens only: the device id. */
  did?: string;
  /** Unix seconds. */
  iat: number;
  /** Unix seconds: iat + access token TTL. */
  exp: number;
  /** ULID. */
  jti: string;
}

/** `GET /v1/auth/config` (spec: "an object with boolean `passwordLoginEnabled` and further flags"). */
export const AuthConfigViewSchema = Type.Object({
  passwordLoginEnabled: Type.Boolean(),
  /** True while an installer-handoff id waits to be exchanged. */
  installerHandoffPending: Type.Boolean(),
  issuer: Type.String(),
  /** Issue 14: the phone second factor is available; `enforced` is the policy for non-admin users. */
  secondFactor: Type.Object({ available: Type.Boolean(), enforced: Type.Boolean() }),
});
/** `GET /v1/auth/config`. */
export type AuthConfigView = Static<typeof AuthConfigViewSchema>;

/** `GET /v1/auth/idps`: sanitized external identity providers. */
export const IdpListSchema = Type.Object({
  /** Trusted external issuers of bearer tokens (GATEWAY_EXTERNAL_ISSUERS). */
  items: Type.Array(Type.Object({ name: Type.String(), issuer: Type.String() })),
  /** Upstream IdPs the sign-in page offers (issue 15 item 2; enabled ones, never a secret). */
  idps: Type.Array(PublicUpstreamIdpSchema),
});
/** `GET /v1/auth/idps`. */
export type IdpList = Static<typeof IdpListSchema>;

/** A public JWK as served at `/.well-known/jwks.json`. */
export const JwkSchema = Type.Object({
  kty: Type.Optional(Type.String()), crv: Type.Optional(Type.String()), x: Type.Optional(Type.String()), y: Type.Optional(Type.String()),
  kid: Type.Optional(Type.String()), alg: Type.Optional(Type.String()), use: Type.Optional(Type.String()),
});

/** `GET /.well-known/jwks.json`. */
export const JwksSchema = Type.Object({ keys: Type.Array(JwkSchema) });

/** `GET /.well-known/openid-configuration` (OIDC Discovery 1.0 §3, the fields this issuer serves). */
export const OpenIdConfigurationSchema = Type.Object({
  issuer: Type.String(),
  jwks_uri: Type.String(),
  subject_types_supported: Strings,
  id_token_signing_alg_values_supported: Strings,
  claims_supported: Strings,
});

/** A local account as admins see it (`/v1/admin/users*`). Never carries the password hash. */
export const UserViewSchema = Type.Object({
  /** ULID. */
  id: Type.String(),
  /** Lower-cased. */
  email: Type.String(),
  display_name: Type.String(),
  roles: Strings,
  disabled: Type.Boolean(),
  /** False for accounts that cannot log in by password (e.g. the installer admin). */
  has_password: Type.Boolean(),
  /** RFC 3339 UTC. */
  created_at: Type.String(),
  /** RFC 3339 UTC. */
  updated_at: Type.String(),
});
/** A local account as admins see it. */
export type UserView = Static<typeof UserViewSchema>;

/** `GET /v1/admin/users`: `{items, next_cursor?}`; pass `next_cursor` as `cursor` for the next page. */
export const UserPageSchema = Type.Object({ items: Type.Array(UserViewSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of accounts. */
export type UserPage = Static<typeof UserPageSchema>;

/** `GET /v1/admin/users` query. */
export const UserListQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: LIMITS.pageMax, default: LIMITS.pageDefault }),
  cursor: Type.Optional(Type.String({ maxLength: 64 })),
});

/** `:id` of `/v1/admin/users/:id`. */
export const UserIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * `GET /v1/user/me`. For local users `local: true` and the stored profile; for principals from
 * other issuers, service or anonymous principals, `local: false` and the principal's fields
 * (`created_at` null). `roles` are the principal's effective roles (after the gateway's group map
 * and admin allow-list).
 */
export const ProfileViewSchema = Type.Object({
  id: Type.String(),
  email: NullableString,
  display_name: NullableString,
  roles: Strings,
  tenant_id: Type.String(),
  auth_method: Type.Unsafe<AuthMethod>(Type.String()),
  disabled: Type.Boolean(),
  created_at: NullableString,
  local: Type.Boolean(),
});
/** `GET /v1/user/me`. */
export type ProfileView = Static<typeof ProfileViewSchema>;

/** `GET /v1/auth/verify`: sentinel answer for protected upstream surfaces. */
export const VerifyViewSchema = Type.Object({
  ok: Type.Literal(true), sub: Type.String(), email: NullableString, roles: Strings, tenant_id: Type.String(),
  /** Issue 15 item 2: the upstream identity of a brokered sign-in (only when the principal has one). */
  upstream_iss: Type.Optional(Type.String()), upstream_sub: Type.Optional(Type.String()), upstream_preferred_username: Type.Optional(Type.String()),
});
/** `GET /v1/auth/verify`. */
export type VerifyView = Static<typeof VerifyViewSchema>;

/** `POST /v1/admin/users` body. `roles` defaults to `["user"]`. */
export const CreateUserSchema = Type.Object({
  email: EmailSchema, display_name: DisplayNameSchema, password: Type.Optional(PasswordSchema), roles: Type.Optional(RolesSchema),
}, { additionalProperties: false });
/** `POST /v1/admin/users` body. */
export type CreateUserInput = Static<typeof CreateUserSchema>;

/** `PATCH /v1/admin/users/:id` body: any non-empty subset. */
export const UpdateUserSchema = Type.Object({
  display_name: Type.Optional(DisplayNameSchema), roles: Type.Optional(RolesSchema),
  disabled: Type.Optional(Type.Boolean()), password: Type.Optional(PasswordSchema),
}, { additionalProperties: false, minProperties: 1 });
/** `PATCH /v1/admin/users/:id` body. */
export type UpdateUserInput = Static<typeof UpdateUserSchema>;

/**
 * The roles an account may hold (spec: "Principal", "Roles and groups"; issue 11 item 1): exactly
 * `ACCOUNT_ROLES`. `service-account` belongs to service principals only and is never assignable.
 */
export const KNOWN_ROLES = ACCOUNT_ROLES;

/** The service role, refused on accounts with `role_not_assignable`. */
export const NON_ASSIGNABLE_ROLES: readonly string[] = [SERVICE_ROLE];

/** Email of the password-less admin created for the installer handoff. */
export const INSTALLER_ADMIN_EMAIL = 'admin@localhost';

/** Signing key location, relative to the data directory (private JWK with `kid`, mode 0600). */
export const SIGNING_KEY_FILE = 'keys/auth-signing-key.json';

/** Installer-handoff file, relative to the data directory: `{handoff_id, created_at}`, mode 0600. */
export const HANDOFF_FILE = 'installer-handoff.json';

/** What the host (or a test) may hand the auth service beside its config. */
export interface AuthRuntime {
  /** Test seam: current time, Unix ms. */
  clock?: () => number;
  /** Test seam: the TLS certificate fingerprint put in enrollment URLs (default: read from the data directory). */
  tlsFingerprint?: () => string | null;
}

/** Path of the revocation feed (service principals only; issue 11 item 9). */
export const REVOCATIONS_PATH = '/v1/internal/auth/revocations';

/** Largest page of `GET /v1/internal/auth/revocations`. */
export const REVOCATION_PAGE_MAX = 1000;

/** `GET /v1/internal/auth/revocations` query: revocations after cursor `after` (a `seq`), at most `limit`. */
export const RevocationQuerySchema = Type.Object({
  after: Type.Integer({ minimum: 0, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: REVOCATION_PAGE_MAX, default: REVOCATION_PAGE_MAX }),
}, { additionalProperties: false });

/** One revocation: access tokens of `sub` (only of session `sid` when set) issued at or before `revoked_at` are refused. */
export const RevocationSchema = Type.Object({
  /** Increasing cursor. */
  seq: Type.Integer(),
  /** User id (the token's `sub`). */
  sub: Type.String(),
  /** The token's `sid`, or null for every session of `sub`. */
  sid: OrNull(Type.String()),
  /** Unix ms. */
  revoked_at: Type.Integer(),
});
/** One revocation. */
export type Revocation = Static<typeof RevocationSchema>;

/**
 * `GET /v1/internal/auth/revocations` (service principals only; issue 11 item 9): what the gateway
 * polls to refuse access tokens of disabled users and revoked sessions before they expire.
 * `items` are ordered by `seq`; a full page means more follow. `latest` is the highest `seq` ever
 * issued: a poller whose cursor is above it starts over (the store was replaced). Entries older
 * than `keep_seconds` (the access-token lifetime plus a minute) no longer matter and are dropped.
 */
export const RevocationFeedSchema = Type.Object({
  /** The issuer whose tokens the list applies to (`{public_url}/auth`). */
  issuer: Type.String(),
  latest: Type.Integer(),
  /** Seconds a revocation stays relevant. */
  keep_seconds: Type.Integer(),
  items: Type.Array(RevocationSchema),
});
/** `GET /v1/internal/auth/revocations`. */
export type RevocationFeed = Static<typeof RevocationFeedSchema>;
