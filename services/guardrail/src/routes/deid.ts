/**
 * De-identification routes (DESIGN.md deidentify): `POST /v1/guard/deidentify` ->
 * `{deidentified, entities}` (placeholders per turn, X-Svc-Turn-Id required) and
 * `POST /v1/guard/reidentify` -> `{content, replaced}` (only the owner's values are restored).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DeidentifyRequestSchema, DeidentifyResponseSchema, ReidentifyRequestSchema, ReidentifyResponseSchema } from '../contracts.js';
import type { Deidentifier } from '../domain/deid.js';
import { callerOf } from './guard.js';

/** Options of `deidRoutes`. */
export interface DeidRoutesOptions { deid: Deidentifier }

/** Register deidentify and reidentify. */
export const deidRoutes: FastifyPluginAsyncTypebox<DeidRoutesOptions> = async (app, { deid }) => {
  app.post('/v1/guard/deidentify', {
    schema: { body: DeidentifyRequestSchema, response: { 200: DeidentifyResponseSchema } },
  }, async (req) => deid.deidentify(callerOf(req), req.body));

  app.post('/v1/guard/reidentify', {
    schema: { body: ReidentifyRequestSchema, response: { 200: ReidentifyResponseSchema } },
  }, async (req) => deid.reidentify(callerOf(req), req.body));
};
