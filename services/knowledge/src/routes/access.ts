/**
 * `PUT /v1/internal/knowledge/access-profiles` (issue 13 item 8): the agent runtime pushes the
 * tenant's permission profiles; only its service principal (`service:agent-runtime`, auth method
 * `service`) may, refused before the body is read. Bodies: contracts/access.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { AccessProfilesPutSchema, AccessProfilesSyncedSchema } from '../contracts.js';
import type { AccessProfiles } from '../domain/access-profiles.js';

/** Options of `accessRoutes`. */
export interface AccessRoutesOptions { access: AccessProfiles }

/** The one principal allowed to push profiles. */
const PUSHER = 'service:agent-runtime';

/** Register the internal access-profile route. */
export const accessRoutes: FastifyPluginAsyncTypebox<AccessRoutesOptions> = async (app, { access }) => {
  app.put('/v1/internal/knowledge/access-profiles', {
    schema: { body: AccessProfilesPutSchema, response: { 200: AccessProfilesSyncedSchema } },
    onRequest: async (req) => {
      const p = requirePrincipal(req);
      if (!isServicePrincipal(p) || p.id !== PUSHER) throw new DomainError('service_account_required', 'only the agent runtime pushes permission profiles');
    },
  }, async (req) => access.replace(req.body.profiles));
};
