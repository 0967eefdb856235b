/**
 * Service-to-service tokens and the embedded IdP's confidential clients (spec "Service-to-service",
 * "Startup guards"; issue 15 items 1 and 4).
 *
 * `readInternalAuth(env, ctx)` reads the INTERNAL_AUTH_* variables and resolves the secret of every
 * confidential client of the realm: `svc-web-password` and `service-<name>` for each of the eleven
 * services. Outside production each secret is generated once per data dir (beside the other
 * first-start secrets, `<dataDir>/secrets/generated.json`); in production nothing is generated, the
 * way SVC_PRINCIPAL_KEYS and AUDIT_SIGNING_KEY are treated: the operator gives
 * INTERNAL_AUTH_CLIENT_SECRET (or `_FILE`) and each client's secret is derived from it
 * (HMAC-SHA256(secret, "svc-client/v1:" + clientId), base64url), so one secret configures the
 * workstation and no two clients share one. INTERNAL_AUTH_CLIENT_SECRET set outside production is
 * used the same way.
 *
 * Scale-out (one service per process): INTERNAL_AUTH_CLIENT_ID names this process's client and
 * INTERNAL_AUTH_CLIENT_SECRET is then that client's own secret, used verbatim.
 *
 * `internalAuthSlice` and `idpSlice` cut the typed slices once the URLs are known.
 */
import { createHmac } from 'node:crypto';
import { SERVICE_NAMES, type ServiceName } from '../../services/shared/services.js';
import type { EmbeddedIdpConfig, InternalAuthConfig, TrustedIssuer, WebPasswordClientConfig } from '../../services/shared/config.js';
import { ConfigError, bool, isPlaceholder, list, secret, str, type Env } from './env.js';

/** Default realm (INTERNAL_AUTH_REALM). */
export const DEFAULT_REALM = 'svc';
/** Default audience of service tokens (INTERNAL_AUTH_AUDIENCE). */
export const DEFAULT_INTERNAL_AUDIENCE = 'svc-internal';
/** Default id of the gateway's password-grant client (IDP_WEB_PASSWORD_CLIENT_ID). */
export const DEFAULT_WEB_PASSWORD_CLIENT_ID = 'svc-web-password';

const TOKEN_SUFFIX = '/protocol/openid-connect/token';

/** The client id of a service: `service-<name>`. */
export function serviceClientId(name: ServiceName): string {
  return `service-${name}`;
}

/**
 * Who may call whom (issue 15 item 4: "allow-lists such as the notification producers name real
 * callers"). A service absent here accepts any `service-*` client of the realm. The lists follow the
 * real call graph (each service's `client.ts` and its users).
 */
export const DEFAULT_ALLOWED_CALLERS: Partial<Record<ServiceName, readonly ServiceName[]>> = {
  // Notification / audit producers: every service that records events or turn receipts.
  audit: ['gateway', 'agent-runtime', 'guardrail', 'memory', 'inference-router', 'sandbox', 'knowledge', 'observability', 'dirauth', 'auth'],
  // The agent runtime: the gateway, and the notification producers (auth, sandbox, observability, knowledge).
  'agent-runtime': ['gateway', 'auth', 'sandbox', 'observability', 'knowledge'],
  // Only auth verifies directory passwords (the gateway proxies dirauth's public JWKS).
  dirauth: ['gateway', 'auth'],
};

/** The stack-wide service-token settings (part of `StackConfig`). */
export interface InternalAuthStack {
  /** Service tokens on every internal hop and required by every service (INTERNAL_AUTH_ENABLED, default true). */
  enabled: boolean;
  realm: string;
  audience: string;
  /** INTERNAL_AUTH_ALLOWED_CLIENTS: one allow-list for every service of this process, or null = defaults. */
  allowedClients: string[] | null;
  tokenUrl: string | null;
  introspectionUrl: string | null;
  /** INTERNAL_AUTH_CLIENT_ID (scale-out), else null: each service is `service-<name>`. */
  clientId: string | null;
  webPasswordClientId: string;
  /** Secret of every confidential client, by client id. */
  clientSecrets: Record<string, string>;
}

/** What `readInternalAuth` needs beyond the environment. */
export interface InternalAuthContext {
  production: boolean;
  passwordLoginEnabled: boolean;
  /** The first-start secret store of the data dir. */
  generated: { get(name: string): string };
}

/**
 * Read the INTERNAL_AUTH_* settings and resolve every client secret.
 * @throws ConfigError when password login is on in production without INTERNAL_AUTH_CLIENT_SECRET
 *   (spec "Startup guards"), or when the secret is short or a placeholder.
 */
export function readInternalAuth(env: Env, ctx: InternalAuthContext): InternalAuthStack {
  const given = secret(env, 'INTERNAL_AUTH_CLIENT_SECRET') || '';
  const enabled = bool(env, 'INTERNAL_AUTH_ENABLED', true);
  if (ctx.production && !given && (ctx.passwordLoginEnabled || enabled)) {
    throw new ConfigError(ctx.passwordLoginEnabled
      ? 'password login is enabled in production but INTERNAL_AUTH_CLIENT_SECRET is empty; set INTERNAL_AUTH_CLIENT_SECRET (or INTERNAL_AUTH_CLIENT_SECRET_FILE), or set SVC_PASSWORD_LOGIN_ENABLED=false'
      : 'service tokens are on in production but INTERNAL_AUTH_CLIENT_SECRET is empty; set INTERNAL_AUTH_CLIENT_SECRET (or INTERNAL_AUTH_CLIENT_SECRET_FILE)');
  }
  if (given && (given.length < 32 || isPlaceholder(given))) {
    throw new ConfigError('INTERNAL_AUTH_CLIENT_SECRET is shorter than 32 characters or a placeholder; use a random value');
  }
  const clientId = str(env, 'INTERNAL_AUTH_CLIENT_ID') || null;
  const webPasswordClientId = str(env, 'IDP_WEB_PASSWORD_CLIENT_ID') || DEFAULT_WEB_PASSWORD_CLIENT_ID;
  const ids = [webPasswordClientId, ...SERVICE_NAMES.map(serviceClientId)];
  if (clientId && !ids.includes(clientId)) ids.push(clientId);
  const clientSecrets: Record<string, string> = {};
  for (const id of ids) {
    if (clientId && id === clientId && given) clientSecrets[id] = given;
    else if (given) clientSecrets[id] = derive(given, id);
    else clientSecrets[id] = ctx.generated.get(`IDP_CLIENT_SECRET:${id}`);
  }
  const allowed = list(str(env, 'INTERNAL_AUTH_ALLOWED_CLIENTS'));
  return {
    enabled,
    realm: str(env, 'INTERNAL_AUTH_REALM') || DEFAULT_REALM,
    audience: str(env, 'INTERNAL_AUTH_AUDIENCE') || DEFAULT_INTERNAL_AUDIENCE,
    allowedClients: allowed.length ? allowed : null,
    tokenUrl: str(env, 'INTERNAL_AUTH_TOKEN_URL') || null,
    introspectionUrl: str(env, 'INTERNAL_AUTH_INTROSPECTION_URL') || null,
    clientId,
    webPasswordClientId,
    clientSecrets,
  };
}

function derive(master: string, clientId: string): string {
  return createHmac('sha256', master).update(`svc-client/v1:${clientId}`, 'utf8').digest('base64url');
}

/**
 * The `internalAuth` slice of `service`, or undefined when service tokens are off.
 * @param publicUrl the gateway's public URL (the realm issuer derives from it).
 * @param authUrl auth's internal base URL (token endpoint and JWKS).
 */
export function internalAuthSlice(ia: Readonly<InternalAuthStack>, service: ServiceName, publicUrl: string, authUrl: string): InternalAuthConfig | undefined {
  if (!ia.enabled) return undefined;
  const realmPath = `/idp/realms/${ia.realm}`;
  const clientId = ia.clientId ?? serviceClientId(service);
  const defaults = DEFAULT_ALLOWED_CALLERS[service];
  // An external Keycloak-style token URL names its realm: `{issuer}/protocol/openid-connect/token`.
  const external = ia.tokenUrl?.endsWith(TOKEN_SUFFIX) ? ia.tokenUrl.slice(0, -TOKEN_SUFFIX.length) : null;
  return {
    clientId,
    clientSecret: ia.clientSecrets[clientId]!,
    tokenUrl: ia.tokenUrl ?? `${authUrl}${realmPath}${TOKEN_SUFFIX}`,
    issuer: external ?? `${publicUrl}${realmPath}`,
    jwksUrl: `${external ?? `${authUrl}${realmPath}`}/protocol/openid-connect/certs`,
    audience: ia.audience,
    // Never null from here: by default every service client of the stack (an unknown client is refused
    // even with a token the realm signed), or the service's real callers.
    allowedClients: ia.allowedClients ? [...ia.allowedClients]
      : [...new Set([...(defaults ?? SERVICE_NAMES).map(serviceClientId), ...(ia.clientId ? [ia.clientId] : [])])],
    introspectionUrl: ia.introspectionUrl,
  };
}

/** The auth service's `idp` slice: issuer, the password-grant client id and every confidential client. */
export function idpSlice(ia: Readonly<InternalAuthStack>, publicUrl: string): EmbeddedIdpConfig {
  return {
    issuer: `${publicUrl}/idp/realms/${ia.realm}`,
    webPasswordClientId: ia.webPasswordClientId,
    clients: Object.entries(ia.clientSecrets).map(([clientId, clientSecret]) => ({ clientId, clientSecret })),
    frontendRedirectUris: [`${publicUrl}/login/callback`],
  };
}

/**
 * The gateway's `webPasswordClient` slice (issue 15 item 1): the password-grant client and the
 * realm's token endpoint on auth's internal URL.
 * @param realmUrl auth's internal URL of the realm (`{auth}/idp/realms/{realm}`).
 */
export function webPasswordClient(ia: Readonly<InternalAuthStack>, realmUrl: string): WebPasswordClientConfig {
  return {
    clientId: ia.webPasswordClientId,
    clientSecret: ia.clientSecrets[ia.webPasswordClientId]!,
    tokenUrl: `${realmUrl}${TOKEN_SUFFIX}`,
  };
}

/**
 * The gateway's trusted bearer issuers (spec: "Bearer tokens and trusted issuers" 2): the auth
 * service's own `{publicUrl}/auth`, `{publicUrl}/dirauth`, the embedded IdP's realm (issue 15 item 1;
 * its JWKS fetched from auth directly) and any configured external OIDC issuer.
 * @param serviceUrls internal base URLs of auth and dirauth.
 * @param realm the realm's issuer and its internal base URL on auth.
 */
export function trustedIssuers(
  publicUrl: string, serviceUrls: Readonly<Record<'auth' | 'dirauth', string>>, realm: { issuer: string; url: string }, external: readonly TrustedIssuer[],
): TrustedIssuer[] {
  return [
    { issuer: `${publicUrl}/auth`, jwksUrl: `${serviceUrls.auth}/.well-known/jwks.json`, algorithms: ['ES256'] },
    { issuer: `${publicUrl}/dirauth`, jwksUrl: `${serviceUrls.dirauth}/.well-known/jwks.json`, algorithms: ['ES256', 'RS256'] },
    { issuer: realm.issuer, jwksUrl: `${realm.url}/protocol/openid-connect/certs`, algorithms: ['ES256'] },
    ...external.map((i) => ({ ...i, algorithms: [...i.algorithms] })),
  ];
}

/** `SVC_TRUSTED_ISSUERS` (JSON `[{issuer, jwks_url, algorithms?}]`) plus `OIDC_ISSUER` / `OIDC_JWKS_URL`: further issuers the gateway trusts. @throws ConfigError. */
export function parseIssuers(env: Env): TrustedIssuer[] {
  const out: TrustedIssuer[] = [];
  const raw = str(env, 'SVC_TRUSTED_ISSUERS');
  if (raw) {
    let parsed: unknown;
    try { parsed = JSON.parse(raw); } catch { throw new ConfigError('SVC_TRUSTED_ISSUERS must be a JSON array of {issuer, jwks_url, algorithms?}'); }
    if (!Array.isArray(parsed)) throw new ConfigError('SVC_TRUSTED_ISSUERS must be a JSON array');
    for (const item of parsed as Array<Record<string, unknown>>) {
      if (typeof item.issuer !== 'string' || typeof item.jwks_url !== 'string') {
        throw new ConfigError('each SVC_TRUSTED_ISSUERS entry needs string issuer and jwks_url');
      }
      const algs = Array.isArray(item.algorithms) ? item.algorithms.map(String) : ['RS256', 'ES256'];
      out.push({ issuer: item.issuer, jwksUrl: item.jwks_url, algorithms: algs });
    }
  }
  const oidcIssuer = str(env, 'OIDC_ISSUER');
  const oidcJwks = str(env, 'OIDC_JWKS_URL');
  if (oidcIssuer) {
    if (!oidcJwks) throw new ConfigError('OIDC_ISSUER is set; set OIDC_JWKS_URL to its JWKS address too');
    out.push({ issuer: oidcIssuer, jwksUrl: oidcJwks, algorithms: list(str(env, 'OIDC_ALGORITHMS')).length ? list(str(env, 'OIDC_ALGORITHMS')) : ['RS256', 'ES256'] });
  }
  return out;
}
