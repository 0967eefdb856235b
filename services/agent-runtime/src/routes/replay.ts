/**
 * Live replay route (spec "Audit and receipts"; issue 5 item 6):
 * `POST /v1/audit/turns/{turn_id}/replay/live` (no body) -> 200 `LiveReplayResponse`;
 * 404 `turn_not_found` (unknown or not the caller's turn); 409 `replay_unavailable` (nothing captured);
 * 503 `service_unavailable` (audit unreachable). Model failures are reported per step, not as errors.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { LiveReplayResponseSchema, TurnParamsSchema } from '../contracts.js';
import type { LiveReplay } from '../domain/replay.js';
import { turnIdentity, type RouteScope } from './identity.js';

/** Options of the replay route. */
export interface ReplayRoutesOptions extends RouteScope {
  replay: LiveReplay;
}

/** Register the live replay route. */
export const replayRoutes: FastifyPluginAsyncTypebox<ReplayRoutesOptions> = async (app, { tenantId, replay }) => {
  app.post('/v1/audit/turns/:turn_id/replay/live', {
    schema: { params: TurnParamsSchema, response: { 200: LiveReplayResponseSchema } },
  }, async (req) => replay.run(req.params.turn_id, turnIdentity(req, tenantId)));
};
