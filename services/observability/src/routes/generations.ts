/**
 * Generation routes (spec "Observability"):
 * - `POST /v1/generations` (service-account) body `GenerationInput` -> 201 `GenerationRecord`, 200 when
 *   the event_id was already stored (idempotent); 403 `service_account_required`; 400 `invalid_request`
 * - `GET /v1/generations` query filters + `limit` (1-500, default 50) + `cursor` -> `{items, next_cursor?}`
 * - `GET /v1/generations/stats` query `since`, `until` (+ the same filters) -> `GenerationStats`
 * - `GET /v1/generations/{event_id}` -> `GenerationRecord`; 404 `not_found`
 * Users without the admin role see only their own records; service principals see all (domain/generations.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  GenerationFilterQuery, GenerationInputSchema, GenerationListQuery, GenerationPageSchema, GenerationParams, GenerationRecordSchema, GenerationStatsSchema,
  PostedGenerationSchema,
} from '../contracts.js';
import type { GenerationService } from '../domain/generations.js';

/** Options of `generationRoutes`. */
export interface GenerationRoutesOptions {
  generations: GenerationService;
}

/** Register the generation routes. */
export const generationRoutes: FastifyPluginAsyncTypebox<GenerationRoutesOptions> = async (app, { generations }) => {
  app.post('/v1/generations', {
    schema: { body: GenerationInputSchema, response: { 201: PostedGenerationSchema, 200: GenerationRecordSchema } },
  }, async (req, reply) => {
    const { record, fresh } = await generations.ingest(requirePrincipal(req), req.body);
    return reply.code(fresh ? 201 : 200).send(record);
  });

  app.get('/v1/generations', { schema: { querystring: GenerationListQuery, response: { 200: GenerationPageSchema } } }, async (req) => (
    generations.list(requirePrincipal(req), req.query)
  ));

  app.get('/v1/generations/stats', { schema: { querystring: GenerationFilterQuery, response: { 200: GenerationStatsSchema } } }, async (req) => (
    generations.stats(requirePrincipal(req), req.query)
  ));

  app.get('/v1/generations/:event_id', { schema: { params: GenerationParams, response: { 200: GenerationRecordSchema } } }, async (req) => (
    generations.get(requirePrincipal(req), req.params.event_id)
  ));
};
