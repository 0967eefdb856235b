/**
 * Public surface of the dirauth service (spec "Services": dirauth, port 8010, corporate directory
 * verifier; issue 15 item 3). Node-free: settings, schemas, constants, the error table.
 *
 * Routes (besides /healthz, /readyz, /metrics):
 * - `POST /v1/internal/directory/verify` (only the service principal `service:auth`) body
 *   `DirectoryVerifyRequest` -> 200 `DirectoryIdentity`; 401 `invalid_credentials` (unknown user,
 *   wrong password, or a filter that matches more than one entry); 404 `directory_not_configured`
 *   (DIRAUTH_LDAP_URL unset); 503 `directory_unavailable` (the directory cannot be reached, refused
 *   the search account, or did not answer within DIRAUTH_LDAP_TIMEOUT_MS); 403 `forbidden` (any
 *   other caller).
 * - `GET /v1/admin/auth/dirauth` (role `admin`; issue 15 item 5) -> 200 `DirauthSettingsView`: the
 *   directory connection's settings, sanitised (never the bind password), and whether one is configured.
 * - `POST /v1/admin/auth/dirauth/test` (role `admin`) -> 200 `DirauthTestResult`: connects and binds
 *   as the search account (then reads the user base), within DIRAUTH_LDAP_TIMEOUT_MS per step and
 *   three times that in all; `{ok: false, code, error}` says what failed, never a hang; 404
 *   `directory_not_configured` when DIRAUTH_LDAP_URL is unset.
 * - `GET /.well-known/jwks.json` -> 200 `{keys: []}`: the issuer `{public_url}/dirauth` the gateway
 *   trusts; directory sign-in tokens are minted by the auth service (issuer `{public_url}/auth`), so
 *   dirauth publishes an empty key set until it signs anything itself.
 */
import type { ErrorTable } from '../../shared/kit/domain-error.js';
import type { CommonServiceConfig } from '../../shared/config.js';
import { Type, type Static } from '../../shared/kit/typebox.js';

/** The only caller of the verify route. */
export const DIRECTORY_VERIFY_CALLER = 'service:auth';
/** Path of the verify route. */
export const DIRECTORY_VERIFY_PATH = '/v1/internal/directory/verify';
/** Default DIRAUTH_LDAP_USER_FILTER; `{username}` is replaced by the RFC 4515-escaped username. */
export const DEFAULT_USER_FILTER = '(|(uid={username})(mail={username}))';

/** The directory connection (DIRAUTH_LDAP_*), present only when DIRAUTH_LDAP_URL is set. */
export interface LdapSettings {
  /** `ldap://host:port` or `ldaps://host:port`. */
  url: string;
  /** DN of the search account, or null for an anonymous search. */
  bindDn: string | null;
  /** Password of the search account (DIRAUTH_LDAP_BIND_PASSWORD or _FILE). */
  bindPassword: string;
  /** Base DN of the user search (subtree). */
  userBase: string;
  /** Filter with `{username}` placeholders. */
  userFilter: string;
  /** Base DN of the group search by `member`, or null for `memberOf` only. */
  groupBase: string | null;
  /** PEM CA bundle trusted for LDAPS/StartTLS, or null for the system roots. */
  caFile: string | null;
  /** Upgrade an `ldap://` connection with StartTLS before any bind. */
  startTls: boolean;
  /** Connect and per-operation timeout, ms. */
  timeoutMs: number;
}

/** dirauth's environment-derived settings; main/config/services/dirauth.ts reads them (the only place with defaults). */
export interface DirauthSettings {
  /** Null when DIRAUTH_LDAP_URL is unset: directory sign-in is off. */
  ldap: LdapSettings | null;
}

/** dirauth's config slice. */
export type DirauthConfig = CommonServiceConfig & DirauthSettings & { service: 'dirauth' };

/** dirauth's error table. */
export const DIRAUTH_ERRORS = {
  invalid_credentials: 401,
  directory_not_configured: 404,
  directory_unavailable: 503,
} as const satisfies ErrorTable;

/** Body of the verify route. */
export const DirectoryVerifyRequestSchema = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 256 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
}, { additionalProperties: false });
export type DirectoryVerifyRequest = Static<typeof DirectoryVerifyRequestSchema>;

/** A verified directory user. */
export const DirectoryIdentitySchema = Type.Object({
  /** The user's entry DN. */
  dn: Type.String(),
  /** `uid` (else the username as typed). */
  username: Type.String(),
  /** `mail`, lower-cased, or null when the entry has none. */
  email: Type.Union([Type.String(), Type.Null()]),
  /** `displayName`, else `cn`, else the username. */
  name: Type.String(),
  /** Group names (`cn`), from groups listing the user as `member` and the user's `memberOf`, sorted, unique. */
  groups: Type.Array(Type.String()),
});
export type DirectoryIdentity = Static<typeof DirectoryIdentitySchema>;

/** Path of the admin settings route (the test is `${DIRAUTH_ADMIN_PATH}/test`). */
export const DIRAUTH_ADMIN_PATH = '/v1/admin/auth/dirauth';

const OrNullString = Type.Union([Type.String(), Type.Null()]);

/** The directory connection as the admin sees it: never the bind password (issue 15 item 5). */
export const DirauthSettingsViewSchema = Type.Object({
  /** False when DIRAUTH_LDAP_URL is unset (every other field is then null/false). */
  configured: Type.Boolean(),
  url: OrNullString,
  /** DN of the search account, or null for an anonymous search. */
  bind_dn: OrNullString,
  /** Whether a bind password is set (it is never shown). */
  bind_password_set: Type.Boolean(),
  user_base: OrNullString,
  user_filter: OrNullString,
  group_base: OrNullString,
  /** Path of DIRAUTH_LDAP_CA_FILE, or null for the system roots. */
  ca_file: OrNullString,
  start_tls: Type.Boolean(),
  timeout_ms: Type.Union([Type.Integer(), Type.Null()]),
});
export type DirauthSettingsView = Static<typeof DirauthSettingsViewSchema>;

/** Outcome of a test bind. */
export const DirauthTestResultSchema = Type.Object({
  ok: Type.Boolean(),
  /** Wall time of the test, ms. */
  latency_ms: Type.Number(),
  /** `bind_failed` (the directory refused the search account) or `unavailable` (unreachable, TLS, timeout, base not found). */
  code: Type.Optional(Type.String()),
  /** What failed, in words an admin can act on (never the password). */
  error: Type.Optional(Type.String()),
});
export type DirauthTestResult = Static<typeof DirauthTestResultSchema>;
