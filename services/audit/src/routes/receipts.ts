/**
 * Receipt routes (spec "Receipt", "States and transitions", "Audit and receipts"; DESIGN.md proof
 * export and bundle):
 * - `GET /v1/receipts?limit(1-200, default 50)&cursor` -> 200 `{items: ReceiptListItem[], next_cursor?}`,
 *   sealed receipts newest first (admins and service accounts: the whole tenant; users: their own).
 * - `GET /v1/receipts/:turn_id` -> 200 `{receipt, envelope, events}`
 * - `GET /v1/receipts/:turn_id/proof` -> 200 `{receipt, envelope, audit_chain: {suffix}}`
 * - `GET /v1/receipts/:turn_id/bundle` -> 200 `{detail, proof}`
 * - `POST /v1/receipts/:turn_id/verify` -> 200 `{ok, checks, receipt, verified_at, verified_by}`;
 *   status moves to `verified` when every check holds.
 * All four answer 404 (`receipt_not_sealed`) until the turn is sealed, 404 `turn_not_found` for a
 * turn the caller cannot see; 400 `invalid_request` for a bad cursor.
 */
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { ReceiptVerifyResponse } from '../contracts.js';
import { receiptOf } from '../domain/receipts.js';
import { isPrivileged, notSealed, TURN_PARAM, visibleTurn, type AuditContext } from './context.js';

/** Register the receipt routes. */
export function receiptRoutes(ctx: AuditContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { limit?: number; cursor?: string } }>('/v1/receipts', {
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, cursor: { type: 'string', maxLength: 64 } },
        },
      },
    }, async (req) => {
      const p = requirePrincipal(req);
      try {
        return ctx.receipts.list(ctx.tenantId, req.query.limit ?? 50, req.query.cursor, isPrivileged(p) ? null : p.id);
      } catch (err) {
        if (err instanceof TypeError) throw invalidRequest('cursor is not a value this service issued', 'querystring.cursor');
        throw err;
      }
    });

    app.get<{ Params: { turn_id: string } }>('/v1/receipts/:turn_id', { schema: { params: TURN_PARAM } }, async (req) => {
      visibleTurn(ctx, req, req.params.turn_id);
      const d = ctx.receipts.detail(ctx.tenantId, req.params.turn_id);
      if (!d) throw notSealed(req.params.turn_id);
      return d;
    });

    app.get<{ Params: { turn_id: string } }>('/v1/receipts/:turn_id/proof', { schema: { params: TURN_PARAM } }, async (req) => {
      visibleTurn(ctx, req, req.params.turn_id);
      const d = ctx.receipts.proof(ctx.tenantId, req.params.turn_id);
      if (!d) throw notSealed(req.params.turn_id);
      return d;
    });

    app.get<{ Params: { turn_id: string } }>('/v1/receipts/:turn_id/bundle', { schema: { params: TURN_PARAM } }, async (req) => {
      visibleTurn(ctx, req, req.params.turn_id);
      const d = ctx.receipts.bundle(ctx.tenantId, req.params.turn_id);
      if (!d) throw notSealed(req.params.turn_id);
      return d;
    });

    app.post<{ Params: { turn_id: string } }>('/v1/receipts/:turn_id/verify', { schema: { params: TURN_PARAM } }, async (req) => {
      const p = requirePrincipal(req);
      visibleTurn(ctx, req, req.params.turn_id);
      const r = ctx.receipts.verify(ctx.tenantId, req.params.turn_id, p.id);
      if (!r) throw notSealed(req.params.turn_id);
      const body: ReceiptVerifyResponse = {
        ok: r.report.ok,
        checks: r.report.checks.map((c) => ({ id: c.id, title: c.title, ok: c.ok, detail: c.detail })),
        receipt: receiptOf(r.turn), verified_at: r.turn.verified_at, verified_by: r.turn.verified_by,
      };
      return body;
    });
  };
}
