/**
 * The embedded OpenID Connect provider (issue 15 item 1; spec "Bearer tokens and trusted issuers",
 * "Service-to-service"): `oidc-provider` configured as the realm `{publicUrl}/idp/realms/svc` with
 * Keycloak-style routes (`IDP_ROUTES`), the realm keys (ES256, previous keys still published), the
 * SQLite adapter, our own interaction pages (dev interactions off) and three kinds of clients:
 *
 * - `svc-frontend`: public, authorization code with PKCE S256 (required for every client) and
 *   refresh_token only. Registered as `application_type: native` so that, besides the web redirect
 *   URIs (`cfg.idp.frontendRedirectUris`, https or loopback), the desktop shell's RFC 8252 loopback
 *   redirect `http://127.0.0.1:{any port}/callback` (and `[::1]`) is accepted: oidc-provider ignores
 *   the port of loopback redirect URIs of native clients (RFC 8252 §7.3).
 * - `svc-web-password` (`cfg.idp.webPasswordClientId`): confidential, the custom `password` grant and
 *   refresh_token (password-grant.ts).
 * - `service-<name>`: confidential (HTTP Basic), client_credentials only.
 *
 * Access tokens are JWTs (`typ: at+jwt`, ES256) for one of two resource servers: user tokens for
 * `FRONTEND_RESOURCE` (`aud: svc-frontend`, the auth service's access-token lifetime) and service
 * tokens for `INTERNAL_RESOURCE` (`aud`: the internal audience, 10 minutes). Clients never need to
 * send `resource`: each client has its default. Because user access tokens carry an audience,
 * oidc-provider would refuse them at userinfo (it serves only audience-less tokens): our own route
 * answers userinfo in front of the provider (userinfo.ts). Refresh tokens rotate on every use.
 */
import { INTERACTION_CSP, loggedOutPage, logoutPage } from './interaction-views.js';
import type { JWK } from 'jose';
import Provider, { errors, type Client, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { IdpAdapterClass } from './adapter.js';
import type { IdpClaims } from './claims.js';

/** Resource indicator of the user access tokens (audience `svc-frontend`). */
export const FRONTEND_RESOURCE = 'urn:svc:frontend';
/** Resource indicator of the service tokens (audience `svc-internal`). */
export const INTERNAL_RESOURCE = 'urn:svc:internal';
/** The public client of the renderer and the desktop shell. */
export const FRONTEND_CLIENT_ID = 'svc-frontend';
/** Audience of user access tokens. */
export const FRONTEND_AUDIENCE = 'svc-frontend';
/** Lifetime of service tokens, seconds (10 minutes). */
export const SERVICE_TOKEN_TTL_SECONDS = 600;
/** Scopes of user tokens. */
export const USER_SCOPES = 'openid email profile offline_access';

/** Keycloak-style paths under the realm prefix (pinned; discovery stays at `/.well-known/openid-configuration`). */
export const IDP_ROUTES = {
  authorization: '/protocol/openid-connect/auth',
  token: '/protocol/openid-connect/token',
  jwks: '/protocol/openid-connect/certs',
  userinfo: '/protocol/openid-connect/userinfo',
  revocation: '/protocol/openid-connect/revoke',
  end_session: '/protocol/openid-connect/logout',
  introspection: '/protocol/openid-connect/token/introspect',
  code_verification: '/protocol/openid-connect/device',
  device_authorization: '/protocol/openid-connect/auth/device',
} as const;

/** Settings of the realm. */
export interface IdpProviderSettings {
  /** `{publicUrl}/idp/realms/svc`. */
  issuer: string;
  /** The public origin browsers use (CORS for the public client). */
  publicOrigin: string;
  /** Path of the interaction pages, without the uid: `{issuer path}/interaction`. */
  interactionPath: string;
  webPasswordClientId: string;
  /** Confidential clients: `svc-web-password` and every `service-<name>`. */
  clients: ReadonlyArray<{ clientId: string; clientSecret: string }>;
  frontendRedirectUris: readonly string[];
  /** `aud` of service tokens (`svc-internal`). */
  internalAudience: string;
  /** User access-token lifetime, seconds. */
  accessTokenTtlSeconds: number;
  /** Refresh-token (and grant) lifetime, seconds. */
  refreshTokenTtlSeconds: number;
}

/** Dependencies of `createIdpProvider`. */
export interface IdpProviderDeps {
  settings: IdpProviderSettings;
  adapter: IdpAdapterClass;
  /** Private realm JWKs, signing key first. */
  keys: readonly JWK[];
  cookieKeys: readonly string[];
  claims: IdpClaims;
}

const LOOPBACK_CALLBACKS = ['http://127.0.0.1/callback', 'http://[::1]/callback'];

function clientMetadata(s: IdpProviderSettings): Array<Record<string, unknown>> {
  const postLogout = [...new Set(s.frontendRedirectUris.map((u) => `${new URL(u).origin}/`))];
  const out: Array<Record<string, unknown>> = [{
    client_id: FRONTEND_CLIENT_ID,
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [...s.frontendRedirectUris, ...LOOPBACK_CALLBACKS],
    post_logout_redirect_uris: [...postLogout, 'http://127.0.0.1/', 'http://[::1]/'],
    id_token_signed_response_alg: 'ES256',
  }];
  for (const c of s.clients) {
    const password = c.clientId === s.webPasswordClientId;
    out.push({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: password ? ['password', 'refresh_token'] : ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      id_token_signed_response_alg: 'ES256',
    });
  }
  return out;
}

/** Whether `client` is a user-facing client (its tokens are for `FRONTEND_RESOURCE`). */
function isUserClient(client: Client | undefined, s: IdpProviderSettings): boolean {
  return client?.clientId === FRONTEND_CLIENT_ID || client?.clientId === s.webPasswordClientId;
}

/** oidc-provider's description of a grant type the client is not registered for. */
const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';

/** The grant-type name of the password grant. */
export const PASSWORD_GRANT = 'password';

/** The resource-server details of user access tokens (`FRONTEND_RESOURCE`). */
export function frontendResourceServer(s: Pick<IdpProviderSettings, 'accessTokenTtlSeconds'>): Record<string, unknown> {
  return { scope: USER_SCOPES, audience: FRONTEND_AUDIENCE, accessTokenTTL: s.accessTokenTtlSeconds, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
}

/**
 * Build the provider (not mounted; mount.ts hands it requests).
 * @throws Error (from oidc-provider) when the configuration or a client's metadata is invalid.
 */
export function createIdpProvider(deps: IdpProviderDeps): Provider {
  const { settings: s, claims } = deps;
  const resourceServer = (resource: string, client: Client | undefined): Record<string, unknown> => {
    if (resource === FRONTEND_RESOURCE && isUserClient(client, s)) {
      return frontendResourceServer(s);
    }
    if (resource === INTERNAL_RESOURCE && client?.clientId.startsWith('service-')) {
      return { scope: '', audience: s.internalAudience, accessTokenTTL: SERVICE_TOKEN_TTL_SECONDS, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
    }
    throw new errors.InvalidTarget!();
  };
  const configuration: Configuration = {
    adapter: deps.adapter,
    clients: clientMetadata(s),
    jwks: { keys: deps.keys.map((k) => ({ ...k })) },
    cookies: { keys: [...deps.cookieKeys] },
    routes: IDP_ROUTES,
    scopes: ['openid', 'offline_access', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'realm_access', 'groups'] },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'], requestObjectSigningAlgValues: ['ES256'], userinfoSigningAlgValues: ['ES256'] },
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code'], response_types: ['code'] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      // IDP-UI: the end-session confirmation submits itself (the app's 'Sign out' lands on sign-in without a click).
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContextWithOIDC, form: string) => { ctx.type = 'html'; ctx.res.setHeader('content-security-policy', INTERACTION_CSP); ctx.body = logoutPage(form); },
        postLogoutSuccessSource: async (ctx: KoaContextWithOIDC) => { ctx.type = 'html'; ctx.res.setHeader('content-security-policy', INTERACTION_CSP); ctx.body = loggedOutPage(); },
      },
      userinfo: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, client: Client, oneOf?: string[]) => oneOf
          ?? (isUserClient(client, s) ? FRONTEND_RESOURCE : INTERNAL_RESOURCE),
        getResourceServerInfo: async (_ctx: unknown, resource: string, client: Client) => resourceServer(resource, client),
        useGrantedResource: async () => true,
      },
    },
    pkce: { required: () => true },
    interactions: { url: async (_ctx: unknown, interaction: { uid: string }) => `${s.interactionPath}/${interaction.uid}` },
    // With a token (a code or refresh token being redeemed): refused once the password changed since its sign-in.
    findAccount: async (_ctx: unknown, sub: string, token?: { grantId?: string }) => {
      const user = await claims.account(sub, token?.grantId);
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => claims.idClaims(user) };
    },
    extraTokenClaims: async (_ctx: unknown, token: { kind: string; accountId?: string; grantId?: string }) => (
      token.accountId && token.kind === 'AccessToken' ? claims.tokenClaims(token.accountId, token.grantId) : undefined),
    issueRefreshToken: async (_ctx: unknown, client: Client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AuthorizationCode: 60,
      ClientCredentials: SERVICE_TOKEN_TTL_SECONDS,
      IdToken: s.accessTokenTtlSeconds,
      Interaction: 3600,
      Session: s.refreshTokenTtlSeconds,
      Grant: s.refreshTokenTtlSeconds,
      RefreshToken: s.refreshTokenTtlSeconds,
    },
    clientBasedCORS: (_ctx: unknown, origin: string) => origin === s.publicOrigin || /^http:\/\/(127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin),
    renderError: async (ctx: KoaContextWithOIDC, out: Record<string, unknown>) => {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = out;
    },
  };
  const provider = new Provider(s.issuer, configuration);
  provider.proxy = true;
  // RFC 6749 §5.2: a grant type the client may not use is `unauthorized_client` (oidc-provider says
  // `invalid_request`), e.g. a password grant on svc-frontend.
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { error?: string; error_description?: string } | undefined;
    if (ctx.status === 400 && body?.error === 'invalid_request' && body.error_description === GRANT_NOT_ALLOWED) body.error = 'unauthorized_client';
  });
  return provider;
}
