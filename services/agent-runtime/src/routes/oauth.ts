/**
 * OAuth routes (issue 18 item 1; spec "Agent runtime surfaces"). Admin (403 `admin_required`
 * before the body is looked at):
 * - `GET /v1/admin/oauth-providers` -> 200 `{providers: OAuthProviderView[]}`
 * - `POST /v1/admin/oauth-providers` body `OAuthProviderInput` -> 201 view; 409 `provider_exists`,
 *   400 `provider_invalid` | `url_not_allowed` | `invalid_request`
 * - `GET|PUT|PATCH|DELETE /v1/admin/oauth-providers/{slug}` -> 200 view (DELETE 204); 404 `provider_not_found`
 * The caller's integrations:
 * - `POST /v1/oauth/{slug}/start` -> 200 `{authorization_url, expires_at}`
 * - `GET /v1/oauth/{slug}/callback?code&state` (public: the state is the credential) -> 200 HTML
 *   "connected"; 400 `oauth_state_invalid` | `oauth_state_expired` | `oauth_state_used` |
 *   `oauth_exchange_failed` (HTML for a browser, `{error, code}` JSON otherwise)
 * - `POST /v1/oauth/{slug}/poll` -> 200 `{slug, status, done, error?}`
 * - `GET /v1/oauth/{slug}/status` -> 200 `OAuthStatus`; `DELETE /v1/oauth/{slug}` -> 200 `{slug, status, revoked}`
 * Secret values and tokens never appear in an answer.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import {
  AGENT_RUNTIME_ERRORS, NoContent, OAuthCallbackQuery, OAuthDisconnectSchema, OAuthPollSchema, OAuthProviderInputSchema, OAuthProviderListSchema,
  OAuthProviderPatchSchema, OAuthProviderViewSchema, OAuthSlugParams, OAuthStartSchema, OAuthStatusSchema,
} from '../contracts.js';
import type { OAuthFlows } from '../domain/oauth/flows.js';
import type { OAuthProviders } from '../domain/oauth/providers.js';
import { ownerOf, type RouteScope } from './identity.js';
import { callbackPage } from './callback-page.js';

/** Options of the OAuth routes. */
export interface OAuthRoutesOptions extends RouteScope {
  providers: OAuthProviders;
  flows: OAuthFlows;
  /** `{publicUrl}` of the gateway (the callback URL the provider redirected to is rebuilt on it). */
  publicUrl: string;
}

/** Register the OAuth routes. */
export const oauthRoutes: FastifyPluginAsyncTypebox<OAuthRoutesOptions> = async (app, { tenantId, providers, flows, publicUrl }) => {
  const adminPlugin: FastifyPluginAsyncTypebox = async (admin) => {
    admin.addHook('preValidation', async (req) => { requireRole(req, 'admin'); });
    const tenantOf = (req: Parameters<typeof requireRole>[0]): string => requireRole(req, 'admin').tenant_id || tenantId;

    admin.get('/v1/admin/oauth-providers', { schema: { response: { 200: OAuthProviderListSchema } } },
      async (req) => ({ providers: await providers.list(tenantOf(req)) }));
    admin.post('/v1/admin/oauth-providers', { schema: { body: OAuthProviderInputSchema, response: { 201: OAuthProviderViewSchema } } },
      async (req, reply) => reply.code(201).send(await providers.create(tenantOf(req), req.body)));
    admin.get('/v1/admin/oauth-providers/:slug', { schema: { params: OAuthSlugParams, response: { 200: OAuthProviderViewSchema } } },
      async (req) => providers.get(tenantOf(req), req.params.slug));
    admin.put('/v1/admin/oauth-providers/:slug', { schema: { params: OAuthSlugParams, body: OAuthProviderInputSchema, response: { 200: OAuthProviderViewSchema } } },
      async (req) => providers.replace(tenantOf(req), req.params.slug, req.body));
    admin.patch('/v1/admin/oauth-providers/:slug', { schema: { params: OAuthSlugParams, body: OAuthProviderPatchSchema, response: { 200: OAuthProviderViewSchema } } },
      async (req) => providers.patch(tenantOf(req), req.params.slug, req.body));
    admin.delete('/v1/admin/oauth-providers/:slug', { schema: { params: OAuthSlugParams, response: { 204: NoContent } } }, async (req, reply) => {
      await providers.delete(tenantOf(req), req.params.slug);
      return reply.code(204).send(null);
    });
  };
  await app.register(adminPlugin);

  app.post('/v1/oauth/:slug/start', { schema: { params: OAuthSlugParams, response: { 200: OAuthStartSchema } } },
    async (req) => flows.start(ownerOf(req, tenantId), req.params.slug));
  app.post('/v1/oauth/:slug/poll', { schema: { params: OAuthSlugParams, response: { 200: OAuthPollSchema } } },
    async (req) => flows.poll(ownerOf(req, tenantId), req.params.slug));
  app.get('/v1/oauth/:slug/status', { schema: { params: OAuthSlugParams, response: { 200: OAuthStatusSchema } } },
    async (req) => flows.status(ownerOf(req, tenantId), req.params.slug));
  app.delete('/v1/oauth/:slug', { schema: { params: OAuthSlugParams, response: { 200: OAuthDisconnectSchema } } },
    async (req) => flows.disconnect(ownerOf(req, tenantId), req.params.slug));

  app.get('/v1/oauth/:slug/callback', { config: { public: true }, schema: { params: OAuthSlugParams, querystring: OAuthCallbackQuery } }, async (req, reply) => {
    const html = (req.headers.accept ?? '').includes('text/html');
    const slug = req.params.slug;
    const callbackUrl = new URL(`${publicUrl.replace(/\/+$/, '')}/v1/oauth/${encodeURIComponent(slug)}/callback`);
    for (const [k, v] of Object.entries(req.query)) if (typeof v === 'string') callbackUrl.searchParams.set(k, v);
    try {
      await flows.callback(slug, req.query, callbackUrl);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const code = String(err.code);
      const status = (AGENT_RUNTIME_ERRORS as Record<string, number>)[code] ?? 400;
      if (!html) return reply.code(status).send({ error: err.message, code });
      return reply.code(status).type('text/html; charset=utf-8').send(callbackPage(false, 'The connection did not complete', err.message, code));
    }
    if (!html) return reply.code(200).send({ slug, status: 'connected' });
    return reply.code(200).type('text/html; charset=utf-8').send(callbackPage(true, 'Connected', 'The integration is connected. You may close this window.', null));
  });
};
