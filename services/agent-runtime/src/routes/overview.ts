/**
 * Workspace overview and integration status routes (spec "Agent runtime surfaces": `GET /v1/overview`,
 * `GET /v1/user/integrations/status`; issue 13 items 5, 6). Both answer the caller's own view.
 * - `GET /v1/overview` -> 200 `Overview`
 * - `GET /v1/user/integrations/status` -> 200 `{items: IntegrationStatus[]}`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IntegrationStatusListSchema, OverviewSchema } from '../contracts.js';
import type { IntegrationRegistry } from '../domain/integrations.js';
import type { OverviewService } from '../domain/overview.js';
import { turnIdentity, type RouteScope } from './identity.js';

/** Options of the overview routes. */
export interface OverviewRoutesOptions extends RouteScope {
  overview: OverviewService;
  integrations: IntegrationRegistry;
}

/** Register the overview routes. */
export const overviewRoutes: FastifyPluginAsyncTypebox<OverviewRoutesOptions> = async (app, { tenantId, overview, integrations }) => {
  app.get('/v1/overview', { schema: { response: { 200: OverviewSchema } } }, async (req) => overview.overview(turnIdentity(req, tenantId)));

  app.get('/v1/user/integrations/status', { schema: { response: { 200: IntegrationStatusListSchema } } }, async (req) => ({
    items: await integrations.status(turnIdentity(req, tenantId)),
  }));
};
