/**
 * Upstream SSO brokering: the seam between the embedded IdP's sign-in interaction and the broker to
 * a company's own OpenID Connect provider (issue 15 item 2; spec "Gateway-owned admin"
 * `/v1/admin/sso/idps`, "Public auth surface" `GET /v1/auth/idps`, "Principal" `upstream_*`).
 *
 * Paths (all on the auth service; the gateway forwards them unchanged):
 * - `GET  {IDP_PREFIX}/broker/{alias}/login?interaction={uid}` -> 303 to the upstream authorization
 *   endpoint (authorization code + PKCE S256, state and nonce bound to the interaction, 10 minutes).
 * - `GET  {IDP_PREFIX}/broker/{alias}/callback?code&state` -> the broker redeems the code, maps the
 *   claims to a local account and the interaction finishes with it (303 back into the IdP flow).
 * - `GET  /v1/auth/idps` -> `{idps: PublicUpstreamIdp[]}` (no bearer; never a secret).
 * - `GET|POST /v1/admin/sso/idps`, `GET|PUT|DELETE /v1/admin/sso/idps/{alias}`,
 *   `POST /v1/admin/sso/idps/{alias}/test` (discovery fetch) -> admin only.
 *
 * Node-free (contracts rule).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import type { ErrorTable } from '../../../shared/kit/domain-error.js';

/** Mount path of the embedded IdP realm on the auth service and the gateway (issuer = public URL + this). */
export const IDP_PREFIX = '/idp/realms/svc';

/** Redirect URI to register at the upstream IdP for `alias`. */
export function brokerCallbackPath(alias: string): string {
  return `${IDP_PREFIX}/broker/${encodeURIComponent(alias)}/callback`;
}

/** Start path of a brokered sign-in for `alias`, from interaction `uid`. */
export function brokerLoginPath(alias: string, interactionUid: string): string {
  return `${IDP_PREFIX}/broker/${encodeURIComponent(alias)}/login?interaction=${encodeURIComponent(interactionUid)}`;
}

/** An upstream IdP as the sign-in page and `GET /v1/auth/idps` show it (sanitised: no secret). */
export interface PublicUpstreamIdp {
  alias: string;
  /** Label on the sign-in button (the alias when no display name was given). */
  display_name: string;
  issuer: string;
  /** `{IDP_PREFIX}/broker/{alias}/login` without the interaction query. */
  login_path: string;
}

/** The upstream identity a brokered sign-in produced, linked to a local account. */
export interface BrokeredIdentity {
  /** The local account (created on first sign-in, linked by `upstream_iss` + `upstream_sub`). */
  accountId: string;
  upstream_iss: string;
  upstream_sub: string;
  upstream_preferred_username?: string;
}

/**
 * What the IdP's interaction code needs from the broker (implemented in
 * `services/auth/src/domain/upstream-broker.ts`, injected into the IdP as an optional port).
 */
export interface UpstreamBrokerPort {
  /** Enabled upstream IdPs for the sign-in page. */
  list(): Promise<PublicUpstreamIdp[]>;
  /**
   * Begin a brokered sign-in for interaction `interactionUid`.
   * @returns the upstream authorization URL to redirect the browser to.
   * @throws DomainError `idp_not_found` (404), `upstream_unavailable` (502).
   */
  start(alias: string, interactionUid: string): Promise<string>;
  /**
   * Finish a brokered sign-in from the upstream callback's full URL.
   * @returns the interaction it belongs to and the linked local identity.
   * @throws DomainError `state_invalid` (400: forged, replayed or expired state), `upstream_unavailable` (502),
   *   `upstream_rejected` (401: the upstream answered with an error or an invalid ID token).
   */
  finish(alias: string, callbackUrl: URL): Promise<{ interactionUid: string; identity: BrokeredIdentity }>;
}

/**
 * Error codes of upstream SSO (merged into `AUTH_ERRORS`; every error body is `{error, code}`).
 *
 * | code | status | when |
 * |---|---|---|
 * | `idp_not_found` | 404 | no upstream IdP with that alias (or it is disabled, for a sign-in) |
 * | `idp_exists` | 409 | `POST /v1/admin/sso/idps` with an alias that is taken |
 * | `issuer_invalid` | 400 | the issuer is not an absolute https URL (http only on a loopback host), or has a query/fragment |
 * | `url_not_allowed` | 400 | the issuer reaches the workstation's own service ports, or a link-local or unspecified address |
 * | `upstream_unavailable` | 502 | the upstream's discovery or token endpoint could not be reached or answered badly |
 * | `upstream_rejected` | 401 | the upstream answered the sign-in with an error, or its ID token did not verify |
 * | `state_invalid` | 400 | a broker callback with a forged, replayed or expired state |
 * | `upstream_email_missing` | 403 | the upstream identity has no email in the mapped claim |
 * | `upstream_account_conflict` | 409 | first sign-in of an upstream identity whose email already belongs to a local account (never linked by email, whatever `email_verified` says) |
 */
export const UPSTREAM_SSO_ERRORS = {
  idp_not_found: 404,
  idp_exists: 409,
  issuer_invalid: 400,
  url_not_allowed: 400,
  upstream_unavailable: 502,
  upstream_rejected: 401,
  state_invalid: 400,
  upstream_email_missing: 403,
  upstream_account_conflict: 409,
} as const satisfies ErrorTable;

/** How long a pending brokered sign-in (state, nonce, PKCE verifier) stays valid, ms (10 minutes). */
export const BROKER_STATE_TTL_MS = 10 * 60_000;

/** Shape of an alias: lower-case letters, digits, `_` and `-`, 1 to 63 characters (part of URLs). */
export const IDP_ALIAS_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

/** Bounds of admin-body fields (characters / items). */
export const UPSTREAM_LIMITS = { urlMax: 2048, clientIdMax: 512, secretMax: 1024, scopesMax: 20, scopeMax: 128, claimMax: 128, displayNameMax: 200 } as const;

const ClaimName = Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.claimMax });

/** Which upstream claims give the local account its email, display name and groups. */
export const ClaimsMappingSchema = Type.Object({
  email: ClaimName,
  name: ClaimName,
  groups: ClaimName,
}, { additionalProperties: false });
/** Claim mapping. */
export type ClaimsMapping = Static<typeof ClaimsMappingSchema>;

const ScopesSchema = Type.Array(Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.scopeMax, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' }),
  { maxItems: UPSTREAM_LIMITS.scopesMax });

/** `{alias}` path parameter. */
export const IdpAliasParamsSchema = Type.Object({ alias: Type.String({ pattern: IDP_ALIAS_PATTERN }) });

/** `POST /v1/admin/sso/idps` body. `openid` is added to `scopes` when missing. */
export const CreateUpstreamIdpSchema = Type.Object({
  alias: Type.String({ pattern: IDP_ALIAS_PATTERN }),
  issuer: Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.urlMax }),
  client_id: Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.clientIdMax }),
  client_secret: Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.secretMax }),
  scopes: ScopesSchema,
  claims: ClaimsMappingSchema,
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.displayNameMax })),
}, { additionalProperties: false });
/** Create body. */
export type CreateUpstreamIdp = Static<typeof CreateUpstreamIdpSchema>;

/**
 * `PUT /v1/admin/sso/idps/{alias}` body: the whole record but the alias; `client_secret` absent
 * keeps the stored one; `enabled` absent keeps the current value.
 */
export const UpdateUpstreamIdpSchema = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.urlMax }),
  client_id: Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.clientIdMax }),
  client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.secretMax })),
  scopes: ScopesSchema,
  claims: ClaimsMappingSchema,
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: UPSTREAM_LIMITS.displayNameMax })),
  enabled: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
/** Update body. */
export type UpdateUpstreamIdp = Static<typeof UpdateUpstreamIdpSchema>;

/** An upstream IdP as the admin routes answer it: never the client secret. */
export const UpstreamIdpViewSchema = Type.Object({
  alias: Type.String(),
  issuer: Type.String(),
  client_id: Type.String(),
  scopes: Type.Array(Type.String()),
  claims: ClaimsMappingSchema,
  display_name: Type.String(),
  enabled: Type.Boolean(),
  /** `{publicUrl}/idp/realms/svc/broker/{alias}/callback`: register this at the upstream. */
  redirect_uri: Type.String(),
  /** Always true: a secret is stored (it is never shown). */
  client_secret_set: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
}, { additionalProperties: false });
/** Admin view. */
export type UpstreamIdpView = Static<typeof UpstreamIdpViewSchema>;

/** `GET /v1/admin/sso/idps`. */
export const UpstreamIdpListSchema = Type.Object({ items: Type.Array(UpstreamIdpViewSchema) });

/**
 * `POST /v1/admin/sso/idps/{alias}/test`: discovery fetched and checked (200 either way; `ok: false`
 * carries the error code and a message an admin can act on).
 */
export const UpstreamIdpTestResultSchema = Type.Object({
  ok: Type.Boolean(),
  issuer: Type.String(),
  authorization_endpoint: Type.Optional(Type.String()),
  token_endpoint: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
});
/** Test result. */
export type UpstreamIdpTestResult = Static<typeof UpstreamIdpTestResultSchema>;

/** `PublicUpstreamIdp` as a schema. */
export const PublicUpstreamIdpSchema = Type.Object({
  alias: Type.String(), display_name: Type.String(), issuer: Type.String(), login_path: Type.String(),
});

/** Query of `GET {IDP_PREFIX}/broker/{alias}/login`: the embedded IdP's interaction uid. */
export const BrokerLoginQuerySchema = Type.Object({ interaction: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) });

/** Query of `GET {IDP_PREFIX}/interaction/{uid}/brokered`: the one-time handle of a finished upstream sign-in. */
export const BrokeredQuerySchema = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 128 }) });

/** Path parameters of `GET {IDP_PREFIX}/interaction/{uid}/brokered`. */
export const InteractionUidParamsSchema = Type.Object({ uid: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' }) });
