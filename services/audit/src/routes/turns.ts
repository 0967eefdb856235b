/**
 * Turn-event ingestion and the direct turn routes (spec "Turn event", "Events"; "Audit and
 * receipts": direct audit-service routes, not public):
 * - `POST /v1/turns/events` (service-account) body `{events: TurnEvent[]}` (1-5000) -> 200
 *   `{accepted, duplicates, rejected: [{event_id, reason}]}`; 400 when `events` is not an array;
 *   413 over 5000 events. Events are recorded under the pinned tenant whatever their tenant_id.
 * - `GET /v1/turns/:turn_id` -> 200 `TurnView` (also while pending); 404 `turn_not_found`.
 * - `GET /v1/turns/:turn_id/proof` -> 200 `ProofExport`; 404 until sealed.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import type { TurnView } from '../contracts.js';
import { receiptOf } from '../domain/receipts.js';
import { notSealed, requireServiceAccount, TURN_PARAM, visibleTurn, type AuditContext } from './context.js';

/** Most events accepted in one batch. */
export const MAX_EVENTS_PER_BATCH = 5000;

/** Register the turn routes. */
export function turnRoutes(ctx: AuditContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: { events: unknown[] } }>('/v1/turns/events', {
      schema: { body: { type: 'object', required: ['events'], properties: { events: { type: 'array' } } } },
    }, async (req) => {
      requireServiceAccount(req);
      const events = req.body.events;
      if (events.length > MAX_EVENTS_PER_BATCH) throw new AppError(413, 'payload_too_large', `at most ${MAX_EVENTS_PER_BATCH} events per batch`);
      return ctx.turns.ingest(events, ctx.tenantId);
    });

    app.get<{ Params: { turn_id: string } }>('/v1/turns/:turn_id', { schema: { params: TURN_PARAM } }, async (req) => {
      const t = visibleTurn(ctx, req, req.params.turn_id);
      const view: TurnView = {
        turn_id: t.turn_id, tenant_id: t.tenant_id, principal_id: t.principal_id, receipt: receiptOf(t),
        event_count: ctx.store.eventsOfTurn(ctx.tenantId, t.turn_id).length, envelope: ctx.receipts.envelope(ctx.tenantId, t.turn_id),
      };
      return view;
    });

    app.get<{ Params: { turn_id: string } }>('/v1/turns/:turn_id/proof', { schema: { params: TURN_PARAM } }, async (req) => {
      visibleTurn(ctx, req, req.params.turn_id);
      const proof = ctx.receipts.proof(ctx.tenantId, req.params.turn_id);
      if (!proof) throw notSealed(req.params.turn_id);
      return proof;
    });
  };
}
