/**
 * Wiring of the embedded IdP inside the auth service (issue 15 item 1): realm keys, the SQLite
 * adapter, the claims, the provider with its `password` grant, and the catch-all mount under the
 * realm prefix. app.ts calls `setupEmbeddedIdp` when `cfg.idp` is present; the interaction pages
 * and the upstream broker routes take `provider` from its result (`finishLogin(provider, ...)`).
 */
import type { Awaitable } from '../../../shared/db/async-store.js';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import type { AuthConfig, EmbeddedIdpConfig } from '../../../shared/config.js';
import type { ClientHopVerifier } from '../../../shared/identity/client-hop.js';
import type { LoginService } from '../domain/login.js';
import type { UserStore } from '../domain/ports.js';
import type { IdpModelStore } from './model-store.js';
import { idpAdapterFactory } from './adapter.js';
import { IdpClaims } from './claims.js';
import { bindFinishLogin } from './finish-login.js';
import { loadOrCreateRealmKeys, REALM_KEYS_FILE } from './keys.js';
import { idpMount } from './mount.js';
import { registerPasswordGrant } from './password-grant.js';
import { registerTokenErrorCodes } from './token-error-codes.js';
import { userinfoRoutes } from './userinfo.js';
import { createIdpProvider, frontendResourceServer, type IdpProviderSettings } from './provider.js';

/** Default audience of service tokens when the service has no `internalAuth` slice. */
const DEFAULT_INTERNAL_AUDIENCE = 'svc-internal';

/** Dependencies of `setupEmbeddedIdp`. */
export interface EmbeddedIdpDeps {
  cfg: AuthConfig & { idp: EmbeddedIdpConfig };
  app: FastifyInstance;
  models: IdpModelStore;
  users: Pick<UserStore, 'byId'>;
  groupsOf: (userId: string) => Awaitable<string[]>;
  login: Pick<LoginService, 'authenticate' | 'signedIn' | 'viaDirectory'>;
  hop: ClientHopVerifier;
  clock: () => number;
  /** The kit's `background` (the realm prunes its expired models every `pruneEveryMs`). */
  background: (name: string, start: () => () => void) => void;
  pruneEveryMs: number;
}

/** The mounted realm. */
export interface EmbeddedIdp {
  provider: Provider;
  /** The issuer (`{publicUrl}/idp/realms/svc`). */
  issuer: string;
  /** Path the auth service serves the realm at (`/idp/realms/svc`). */
  localPrefix: string;
  /** Delete expired models (call from the prune timer). @returns rows deleted. */
  prune(now: number): Promise<number>;
}

/** The realm's settings from the auth config. */
export function idpSettings(cfg: AuthConfig & { idp: EmbeddedIdpConfig }): IdpProviderSettings & { localPrefix: string; issuerPath: string } {
  const issuerPath = new URL(cfg.idp.issuer).pathname.replace(/\/$/, '');
  const publicPath = new URL(cfg.publicUrl).pathname.replace(/\/$/, '');
  const localPrefix = issuerPath.startsWith(publicPath) ? issuerPath.slice(publicPath.length) : issuerPath;
  return {
    issuer: cfg.idp.issuer,
    publicOrigin: new URL(cfg.publicUrl).origin,
    interactionPath: `${issuerPath}/interaction`,
    webPasswordClientId: cfg.idp.webPasswordClientId,
    clients: cfg.idp.clients,
    frontendRedirectUris: cfg.idp.frontendRedirectUris,
    internalAudience: cfg.internalAuth?.audience ?? DEFAULT_INTERNAL_AUDIENCE,
    accessTokenTtlSeconds: cfg.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: cfg.refreshTokenTtlSeconds,
    localPrefix,
    issuerPath,
  };
}

/**
 * Build and mount the realm on `app`.
 * @throws Error when the realm key file is unusable or the client configuration is invalid.
 */
export async function setupEmbeddedIdp(deps: EmbeddedIdpDeps): Promise<EmbeddedIdp> {
  const { cfg, models, clock } = deps;
  const settings = idpSettings(cfg);
  const realmKeys = await loadOrCreateRealmKeys(join(cfg.dataDir, 'keys', REALM_KEYS_FILE));
  const claims = new IdpClaims({ users: deps.users, models, groupsOf: deps.groupsOf, clock });
  const provider = createIdpProvider({ settings, adapter: idpAdapterFactory(models, clock), keys: realmKeys.keys, cookieKeys: realmKeys.cookieKeys, claims });
  registerPasswordGrant(provider, { login: deps.login, claims, frontendResource: frontendResourceServer(settings), grantTtlSeconds: cfg.refreshTokenTtlSeconds });
  registerTokenErrorCodes(provider, claims);
  bindFinishLogin(provider, claims, cfg.refreshTokenTtlSeconds);
  deps.background('idp-prune', () => {
    const timer = setInterval(() => { Promise.resolve().then(() => models.prune(clock())).catch(() => { /* next round */ }); }, deps.pruneEveryMs);
    timer.unref();
    return () => clearInterval(timer);
  });
  // Before the catch-all mount (Keycloak-style): oidc-provider's userinfo refuses audience-bound tokens.
  await deps.app.register(userinfoRoutes, { provider, claims, issuer: settings.issuer, localPrefix: settings.localPrefix, keys: realmKeys.keys });
  await deps.app.register(idpMount, { provider, localPrefix: settings.localPrefix, issuerPath: settings.issuerPath, publicUrl: cfg.publicUrl, hop: deps.hop });
  return { provider, issuer: settings.issuer, localPrefix: settings.localPrefix, prune: async (now) => models.prune(now) };
}
