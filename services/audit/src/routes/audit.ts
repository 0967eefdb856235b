/**
 * Audit log routes (spec "Audit and receipts"):
 * - `POST /v1/audit` -> 201 `AuditAppendResponse`; 400 `tenant_missing` when the principal lacks
 *   tenant_id; 400 `invalid_request` on a bad body. Rows go to the pinned tenant whatever the body says.
 * - `GET /v1/admin/audit` (admin) query user_id, action, limit (1-500, default 50), offset -> 200
 *   `{items: AuditRowView[], next_cursor?}` newest first; `next_cursor` is the next offset.
 * - `GET /v1/admin/audit/verify` (admin) query tenant_id (required), limit -> 200 `{ok, checked, failures}`.
 * - `POST /v1/admin/audit/turns/:turn_id/seal` (admin): seal an open turn now with seal_reason
 *   `manual` (spec "Turn envelope") -> 200 `{turn_id, sealed: true, seal_reason: "manual"}`;
 *   404 `turn_not_found`; 409 `already_sealed`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal, requireRole } from '../../../shared/kit/principal.js';
import {
  AuditAppendRequestSchema, AuditAppendResponseSchema, AuditListQuerySchema, AuditRowPageSchema, ChainReportSchema,
  ChainVerifyQuerySchema, ManualSealResponseSchema, TurnParamsSchema,
} from '../contracts.js';
import type { AuditLogService } from '../domain/audit-log.js';
import type { TurnService } from '../domain/turns.js';

/** Options of `auditRoutes`. */
export interface AuditRoutesOptions {
  /** The pinned tenant. */
  tenantId: string;
  auditLog: AuditLogService;
  turns: TurnService;
}

/** Register the audit log routes. */
export const auditRoutes: FastifyPluginAsyncTypebox<AuditRoutesOptions> = async (app, { tenantId, auditLog, turns }) => {
  app.post('/v1/audit', { schema: { body: AuditAppendRequestSchema, response: { 201: AuditAppendResponseSchema } } },
    async (req, reply) => reply.code(201).send(await auditLog.append(requirePrincipal(req), req.body)));

  app.get('/v1/admin/audit', { schema: { querystring: AuditListQuerySchema, response: { 200: AuditRowPageSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return auditLog.list(req.query);
  });

  app.get('/v1/admin/audit/verify', { schema: { querystring: ChainVerifyQuerySchema, response: { 200: ChainReportSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return auditLog.verifyChain(req.query.tenant_id, req.query.limit);
  });

  app.post('/v1/admin/audit/turns/:turn_id/seal', { schema: { params: TurnParamsSchema, response: { 200: ManualSealResponseSchema } } }, async (req) => {
    requireRole(req, 'admin');
    return turns.sealManually(tenantId, req.params.turn_id);
  });
};
