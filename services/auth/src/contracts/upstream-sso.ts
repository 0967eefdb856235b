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
  list(): PublicUpstreamIdp[];
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
