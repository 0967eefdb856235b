/**
 * Turn-event ingestion and the direct turn routes (spec "Turn event", "Events"; "Audit and
 * receipts": direct audit-service routes, not public):
 * - `POST /v1/turns/events` (service-account) body `{events: TurnEvent[]}` (up to 5000) -> 200
 *   `{accepted, duplicates, rejected: [{event_id, reason}]}`; 400 when `events` is not an array;
 *   413 over 5000 events. Events are recorded under the pinned tenant whatever their tenant_id.
 * - `GET /v1/turns/:turn_id` -> 200 `TurnView` (also while pending); 404 `turn_not_found`.
 * - `GET /v1/turns/:turn_id/proof` -> 200 `ProofExport` (v1.1, redacted as the receipt route's); 404 until sealed.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { IngestResultSchema, ProofExportSchema, TurnEventBatchSchema, TurnParamsSchema, TurnViewSchema } from '../contracts.js';
import { requireServiceAccount } from '../domain/access.js';
import type { ReceiptService } from '../domain/receipts.js';
import type { TurnService } from '../domain/turns.js';

/** Options of `turnRoutes`. */
export interface TurnRoutesOptions {
  /** The pinned tenant. */
  tenantId: string;
  turns: TurnService;
  receipts: ReceiptService;
}

/** Register the turn routes. */
export const turnRoutes: FastifyPluginAsyncTypebox<TurnRoutesOptions> = async (app, { tenantId, turns, receipts }) => {
  app.post('/v1/turns/events', { schema: { body: TurnEventBatchSchema, response: { 200: IngestResultSchema } } }, async (req) => {
    requireServiceAccount(requirePrincipal(req));
    return turns.ingest(req.body.events, tenantId);
  });

  app.get('/v1/turns/:turn_id', { schema: { params: TurnParamsSchema, response: { 200: TurnViewSchema } } },
    async (req) => turns.view(tenantId, requirePrincipal(req), req.params.turn_id));

  app.get('/v1/turns/:turn_id/proof', { schema: { params: TurnParamsSchema, response: { 200: ProofExportSchema } } },
    async (req) => receipts.proofFor(tenantId, requirePrincipal(req), req.params.turn_id));
};
