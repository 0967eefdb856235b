/**
 * Live replay route (spec "Audit and receipts"; issue 5 item 6):
 * `POST /v1/audit/turns/{turn_id}/replay/live` (no body) -> 200 `LiveReplayResponse`;
 * 404 `turn_not_found` (unknown or not the caller's turn); 409 `replay_unavailable` (nothing captured);
 * 503 `service_unavailable` (audit unreachable). Model failures are reported per step, not as errors.
 */
import type { FastifyInstance } from 'fastify';
import { turnIdentity, type RuntimeContext } from './context.js';
import { ID } from './schemas.js';

/** Register the live replay route. */
export function replayRoutes(ctx: RuntimeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Params: { turn_id: string } }>('/v1/audit/turns/:turn_id/replay/live', {
      schema: { params: { type: 'object', required: ['turn_id'], properties: { turn_id: ID } } },
    }, async (req) => ctx.replay.run(req.params.turn_id, turnIdentity(req, ctx.tenantId)));
  };
}
