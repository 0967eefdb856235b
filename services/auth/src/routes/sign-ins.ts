/**
 * The sign-in log's admin route (issue 15 item 5; contracts/sign-ins.ts):
 * `GET /v1/admin/auth/sign-ins?limit&cursor` -> `SignInPage`, role `admin` (checked here behind the
 * gateway's admin guard); 400 `invalid_request` for a foreign cursor.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requireRole } from '../../../shared/kit/principal.js';
import { SIGN_INS_PATH, SignInPageSchema, SignInsQuerySchema } from '../contracts.js';
import type { SignInLog } from '../domain/sign-in-log.js';

/** Register the sign-in log route. */
export const signInRoutes: FastifyPluginAsyncTypebox<{ signIns: SignInLog }> = async (app, { signIns }) => {
  app.get(SIGN_INS_PATH, {
    schema: { querystring: SignInsQuerySchema, response: { 200: SignInPageSchema } },
    onRequest: async (req) => { requireRole(req, 'admin'); },
  }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    return signIns.page(req.query.cursor ?? null, req.query.limit);
  });
};
