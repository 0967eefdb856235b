/**
 * Context trace routes (spec "Agent runtime surfaces": `any /v1/context/*` "per-turn context
 * surfaces and trace"; issue 13 item 5). A turn is the caller's own, or any of the tenant's for an
 * admin; anything else answers 404 `context_not_found`, as a turn that does not exist.
 * - `GET /v1/context/turns/{turn_id}` -> 200 `ContextRecord` (prompt parts with tokens, memories
 *   and chunks with scores, history kept or dropped, budget, step trace)
 * - `GET /v1/context/turns/{turn_id}/trace` -> 200 `ContextTrace` (the steps only)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ContextRecordSchema, ContextTraceSchema, TurnIdParams } from '../contracts.js';
import type { ContextRecords, ContextViewer } from '../domain/context/service.js';
import { turnIdentity, type RouteScope } from './identity.js';
import type { FastifyRequest } from 'fastify';

/** Options of the context routes. */
export interface ContextRoutesOptions extends RouteScope {
  records: ContextRecords;
}

/** The caller as a reader of context records. */
function viewerOf(req: FastifyRequest, tenantId: string): ContextViewer {
  const who = turnIdentity(req, tenantId);
  return { tenantId: who.tenantId, userId: who.userId, roles: who.roles ?? [] };
}

/** Register the context routes. */
export const contextRoutes: FastifyPluginAsyncTypebox<ContextRoutesOptions> = async (app, { tenantId, records }) => {
  app.get('/v1/context/turns/:turn_id', {
    schema: { params: TurnIdParams, response: { 200: ContextRecordSchema } },
  }, async (req) => records.get(req.params.turn_id, viewerOf(req, tenantId)));

  app.get('/v1/context/turns/:turn_id/trace', {
    schema: { params: TurnIdParams, response: { 200: ContextTraceSchema } },
  }, async (req) => records.trace(req.params.turn_id, viewerOf(req, tenantId)));
};
