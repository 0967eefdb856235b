/**
 * MCP authorization routes (issue 17 item 3; MCP "Authorization"; domain/mcp/oauth-vault.ts):
 * - `POST /v1/user/mcp-servers/{id}/authorize` -> 200 `McpAuthorization` (`pending` with the
 *   `authorization_url` the user opens in the browser, `authorized` when the stored token works,
 *   `not_authorized` with `error` when the server fails for another reason); 404
 *   `mcp_server_not_found`; 400 `invalid_request` for a stdio server
 * - `GET /v1/user/mcp-servers/{id}/authorization` -> 200; `DELETE` -> 200 (tokens forgotten)
 * - `GET /v1/oauth/mcp/callback?code&state` (public through the gateway's
 *   `/v1/oauth/{provider_slug}/callback` row: the single-use state is the credential) -> 200 HTML
 *   (or JSON `{server_id, status: "authorized"}` when the client does not accept HTML); 400
 *   `oauth_state_invalid` (unknown, forged or used), `oauth_state_expired`, `oauth_exchange_failed`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { AGENT_RUNTIME_ERRORS, McpAuthorizationSchema, McpServerParams, OAuthCallbackQuery } from '../contracts.js';
import type { McpActor } from '../domain/mcp/catalog.js';
import type { McpAuthorizations } from '../domain/mcp/oauth-vault.js';
import { callbackPage } from './callback-page.js';
import type { RouteScope } from './identity.js';

/** Options of the MCP authorization routes. */
export interface McpOAuthRoutesOptions extends RouteScope {
  authorizations: McpAuthorizations;
}

function actor(req: FastifyRequest, tenantId: string): McpActor {
  const p = requirePrincipal(req);
  return { tenantId: p.tenant_id || tenantId, userId: p.id, admin: p.roles.includes('admin') };
}

/** Register the MCP authorization routes. */
export const mcpOAuthRoutes: FastifyPluginAsyncTypebox<McpOAuthRoutesOptions> = async (app, { tenantId, authorizations }) => {
  app.post('/v1/user/mcp-servers/:id/authorize', { schema: { params: McpServerParams, response: { 200: McpAuthorizationSchema } } },
    async (req) => authorizations.start(actor(req, tenantId), req.params.id));
  app.get('/v1/user/mcp-servers/:id/authorization', { schema: { params: McpServerParams, response: { 200: McpAuthorizationSchema } } },
    async (req) => authorizations.status(actor(req, tenantId), req.params.id));
  app.delete('/v1/user/mcp-servers/:id/authorization', { schema: { params: McpServerParams, response: { 200: McpAuthorizationSchema } } },
    async (req) => authorizations.revoke(actor(req, tenantId), req.params.id));

  app.get('/v1/oauth/mcp/callback', { config: { public: true }, schema: { querystring: OAuthCallbackQuery } }, async (req, reply) => {
    const html = (req.headers.accept ?? '').includes('text/html');
    try {
      if (req.query.error) throw new DomainError('oauth_exchange_failed', `the authorization server answered ${req.query.error}`);
      if (!req.query.state || !req.query.code) throw new DomainError('oauth_state_invalid', 'the callback lacks its state or code');
      const done = await authorizations.callback(req.query.state, req.query.code);
      if (!html) return reply.send({ server_id: done.serverId, status: 'authorized' });
      return reply.type('text/html; charset=utf-8').send(callbackPage(true, 'Authorized', `The MCP server "${done.serverName}" is authorized. You may close this window.`, null));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const code = String(err.code);
      const status = (AGENT_RUNTIME_ERRORS as Record<string, number>)[code] ?? 400;
      if (!html) return reply.code(status).send({ error: err.message, code });
      return reply.code(status).type('text/html; charset=utf-8').send(callbackPage(false, 'The authorization did not complete', err.message, code));
    }
  });
};
