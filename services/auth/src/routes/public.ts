/**
 * Public discovery routes (no principal): `GET /v1/auth/config`, `GET /v1/auth/idps`,
 * `GET /.well-known/jwks.json`, `GET /.well-known/openid-configuration`. The gateway exposes the
 * last two as `/auth/.well-known/*` and fetches the JWKS from this service directly.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuthConfig } from '../../../shared/config.js';
import { AuthConfigViewSchema, IdpListSchema, JwksSchema, OpenIdConfigurationSchema } from '../contracts.js';
import type { HandoffService } from '../domain/handoff.js';
import type { PolicyService } from '../domain/second-factor-policy.js';
import type { SigningKey } from '../domain/tokens.js';
import type { UpstreamBrokerPort } from '../contracts/upstream-sso.js';

/** Options of `publicRoutes`. */
export interface PublicRoutesOptions {
  cfg: AuthConfig;
  key: SigningKey;
  handoff: HandoffService;
  /** The second-factor policy (issue 14). */
  policy: PolicyService;
  /** Upstream IdPs for `GET /v1/auth/idps` `idps` (issue 15 item 2); absent: none. */
  upstream?: Pick<UpstreamBrokerPort, 'list'>;
}

const pub = { public: true } as const;

/** Register the public discovery routes. */
export const publicRoutes: FastifyPluginAsyncTypebox<PublicRoutesOptions> = async (app, { cfg, key, handoff, policy, upstream }) => {
  app.get('/v1/auth/config', { config: pub, schema: { response: { 200: AuthConfigViewSchema } } }, async () => ({
    passwordLoginEnabled: cfg.passwordLoginEnabled,
    installerHandoffPending: await handoff.pending(),
    issuer: cfg.issuer,
    secondFactor: { available: true, enforced: (await policy.get()).enforced },
  }));

  app.get('/v1/auth/idps', { config: pub, schema: { response: { 200: IdpListSchema } } },
    async () => ({ items: cfg.externalIdps.map(({ name, issuer }) => ({ name, issuer })), idps: (await upstream?.list()) ?? [] }));

  app.get('/.well-known/jwks.json', { config: pub, schema: { response: { 200: JwksSchema } } }, async (_req, reply) => {
    void reply.header('cache-control', 'public, max-age=300');
    return { keys: [key.publicJwk] };
  });

  app.get('/.well-known/openid-configuration', { config: pub, schema: { response: { 200: OpenIdConfigurationSchema } } }, async (_req, reply) => {
    void reply.header('cache-control', 'public, max-age=300');
    return {
      issuer: cfg.issuer,
      jwks_uri: `${cfg.issuer}/.well-known/jwks.json`,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      claims_supported: ['iss', 'aud', 'sub', 'email', 'name', 'realm_access', 'groups', 'auth_method', 'sid', 'iat', 'exp', 'jti'],
    };
  });
};
