/**
 * `GET /v1/internal/auth/revocations` (issue 11 item 9): the revocation list the gateway polls, for
 * service principals only (the gateway's `service:gateway` stamp; a user's principal, whatever its
 * roles, is refused with 403 `forbidden`). The gateway routes no public path here: `/v1/internal/*`
 * from outside goes to the agent runtime's catch-all, so only a caller holding the principal keys
 * reaches it, on the auth service's own port.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { REVOCATIONS_PATH, RevocationFeedSchema, RevocationQuerySchema } from '../contracts.js';
import type { RevocationService } from '../domain/revocations.js';

/** Register the revocation feed. */
export const revocationRoutes: FastifyPluginAsyncTypebox<{ revocations: RevocationService }> = async (app, { revocations }) => {
  app.get(REVOCATIONS_PATH, { schema: { querystring: RevocationQuerySchema, response: { 200: RevocationFeedSchema } } }, async (req, reply) => {
    if (!isServicePrincipal(requirePrincipal(req))) throw new DomainError('forbidden', 'the revocation list is for services only');
    void reply.header('cache-control', 'no-store');
    return revocations.feed(req.query.after, req.query.limit);
  });
};
