/**
 * dirauth's routes (issue 15 item 3): `POST /v1/internal/directory/verify`, for the auth service's
 * principal only (`DIRECTORY_VERIFY_CALLER`; anything else gets 403 `forbidden`), and the issuer's
 * `GET /.well-known/jwks.json` (an empty key set: see contracts.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { DIRECTORY_VERIFY_CALLER, DIRECTORY_VERIFY_PATH, DirectoryIdentitySchema, DirectoryVerifyRequestSchema } from '../contracts.js';
import type { DirectoryVerifier } from '../domain/verify.js';

/** The verify route. */
export const verifyRoutes: FastifyPluginAsyncTypebox<{ verifier: DirectoryVerifier }> = async (app, { verifier }) => {
  app.post(DIRECTORY_VERIFY_PATH, {
    schema: { body: DirectoryVerifyRequestSchema, response: { 200: DirectoryIdentitySchema } },
    onRequest: async (req) => {
      const p = requirePrincipal(req);
      if (!isServicePrincipal(p) || p.id !== DIRECTORY_VERIFY_CALLER) throw new DomainError('forbidden', 'directory verification is for the auth service only');
    },
  }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    return verifier.verify(req.body.username, req.body.password);
  });

  app.get('/.well-known/jwks.json', { config: { public: true } }, async () => ({ keys: [] }));
};
