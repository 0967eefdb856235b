/**
 * The internal login-challenge routes (issue 14 item 3; spec "Mobile-push second factor" steps
 * 2-5; contracts/login-challenge.ts): for the gateway's service principal `service:gateway` only,
 * checked before the body is read; any other caller (a user, whatever its roles, or another
 * service) is refused with 403 `forbidden`. The gateway routes no public path here.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isServicePrincipal } from '../../../shared/identity/principal-types.js';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  LOGIN_CHALLENGE_CALLER, LOGIN_CHALLENGE_PATH, LOGIN_CHALLENGE_REQUIRED_PATH, LOGIN_CHALLENGE_VERIFY_PATH,
  LoginChallengeCreateSchema, LoginChallengeCreatedSchema, LoginChallengeRequiredQuerySchema, LoginChallengeRequiredSchema,
  LoginChallengeVerdictSchema, LoginChallengeVerifySchema,
} from '../contracts.js';
import type { ChallengeService } from '../domain/challenges.js';

/** Register the login-challenge routes. */
export const loginChallengeRoutes: FastifyPluginAsyncTypebox<{ challenges: ChallengeService }> = async (app, { challenges }) => {
  app.addHook('onRequest', async (req) => {
    const p = requirePrincipal(req);
    if (!isServicePrincipal(p) || p.id !== LOGIN_CHALLENGE_CALLER) throw new DomainError('forbidden', 'login challenges are for the gateway only');
  });
  app.addHook('onSend', async (_req, reply) => { void reply.header('cache-control', 'no-store'); });

  app.get(LOGIN_CHALLENGE_REQUIRED_PATH, { schema: { querystring: LoginChallengeRequiredQuerySchema, response: { 200: LoginChallengeRequiredSchema } } },
    async (req) => challenges.required(req.query.user_id));

  app.post(LOGIN_CHALLENGE_PATH, { schema: { body: LoginChallengeCreateSchema, response: { 201: LoginChallengeCreatedSchema } } },
    async (req, reply) => reply.code(201).send(await challenges.create(req.body)));

  app.post(LOGIN_CHALLENGE_VERIFY_PATH, { schema: { body: LoginChallengeVerifySchema, response: { 200: LoginChallengeVerdictSchema } } },
    async (req) => challenges.verify(req.body.challenge_id, req.body.code));
};
