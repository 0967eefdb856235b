/**
 * Check routes (spec "Guardrail"): `POST /v1/guard/input` and `POST /v1/guard/output` ->
 * `GuardResult`. The use case (scanners, classifier, turn event, audit row) is `GuardCheck`;
 * schemas in contracts.ts.
 */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { GuardInputRequestSchema, GuardOutputRequestSchema, GuardResultSchema } from '../contracts.js';
import type { GuardCheck } from '../domain/guard-check.js';
import type { Caller } from '../domain/scope.js';

/** Options of `guardRoutes`. */
export interface GuardRoutesOptions { guard: GuardCheck }

/** The stamped caller of a request. */
export function callerOf(req: FastifyRequest): Caller {
  return { principal: requirePrincipal(req), turnId: req.turnId };
}

/** Register the input and output checks. */
export const guardRoutes: FastifyPluginAsyncTypebox<GuardRoutesOptions> = async (app, { guard }) => {
  app.post('/v1/guard/input', {
    schema: { body: GuardInputRequestSchema, response: { 200: GuardResultSchema } },
  }, async (req) => guard.check(callerOf(req), 'input', req.body));

  app.post('/v1/guard/output', {
    schema: { body: GuardOutputRequestSchema, response: { 200: GuardResultSchema } },
  }, async (req) => guard.check(callerOf(req), 'output', req.body));
};
