/**
 * Receipt routes (spec "Receipt", "States and transitions", "Audit and receipts"; DESIGN.md proof
 * export and bundle):
 * - `GET /v1/receipts?limit(1-200, default 50)&cursor&kind&q&user_id` -> 200 `{items: ReceiptListItem[], next_cursor?}`,
 *   sealed receipts newest first (admins and service accounts: the whole tenant; users: their own);
 *   each item reads like history (kind, summary, method, route, user_id, created_at, outcome,
 *   http_status); `kind` = all (default) | chat | tool_run | admin | other, `q` searches summary,
 *   route, method and turn id (case-insensitive substring), `user_id` narrows to one user (issue 13
 *   item 7; 403 `admin_required` for a user asking for someone else's).
 * - `GET /v1/receipts/:turn_id` -> 200 `{receipt, envelope, events}`
 * - `GET /v1/receipts/:turn_id/proof` -> 200 `{format: "2", receipt, envelope, audit_chain: {suffix}, checkpoint}`
 *   (receipt format v2, issue 22: `envelope.public_signature` and the first signed checkpoint at or
 *   after the anchor, docs/receipt-format-v2.md); for callers who do not see the whole tenant, other
 *   principals' suffix rows are redacted to their link fields and `signed_payload_sha256` (v1.1, issue 11 item 3)
 * - `GET /v1/receipts/:turn_id/bundle` -> 200 `{detail, proof}` (proof redacted the same way)
 * - `POST /v1/receipts/:turn_id/verify` -> 200 `{ok, checks, suffix, receipt, verified_at, verified_by}`
 *   over the bundle the caller would export; status moves to `verified` when every check holds.
 * All four answer 404 (`receipt_not_sealed`) until the turn is sealed, 404 `turn_not_found` for a
 * turn the caller cannot see; 400 `invalid_request` for a bad cursor.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  ProofExportSchema, ReceiptBundleSchema, ReceiptDetailSchema, ReceiptListQuerySchema, ReceiptPageSchema, ReceiptVerifyResponseSchema,
  TurnParamsSchema,
} from '../contracts.js';
import type { ReceiptService } from '../domain/receipts.js';

/** Options of `receiptRoutes`. */
export interface ReceiptRoutesOptions {
  /** The pinned tenant. */
  tenantId: string;
  receipts: ReceiptService;
}

/** Register the receipt routes. */
export const receiptRoutes: FastifyPluginAsyncTypebox<ReceiptRoutesOptions> = async (app, { tenantId, receipts }) => {
  app.get('/v1/receipts', { schema: { querystring: ReceiptListQuerySchema, response: { 200: ReceiptPageSchema } } },
    async (req) => receipts.listFor(tenantId, requirePrincipal(req), req.query.limit ?? 50, req.query.cursor, {
      kind: req.query.kind, q: req.query.q, user_id: req.query.user_id,
    }));

  app.get('/v1/receipts/:turn_id', { schema: { params: TurnParamsSchema, response: { 200: ReceiptDetailSchema } } },
    async (req) => receipts.detailFor(tenantId, requirePrincipal(req), req.params.turn_id));

  app.get('/v1/receipts/:turn_id/proof', { schema: { params: TurnParamsSchema, response: { 200: ProofExportSchema } } },
    async (req) => receipts.proofFor(tenantId, requirePrincipal(req), req.params.turn_id));

  app.get('/v1/receipts/:turn_id/bundle', { schema: { params: TurnParamsSchema, response: { 200: ReceiptBundleSchema } } },
    async (req) => receipts.bundleFor(tenantId, requirePrincipal(req), req.params.turn_id));

  app.post('/v1/receipts/:turn_id/verify', { schema: { params: TurnParamsSchema, response: { 200: ReceiptVerifyResponseSchema } } },
    async (req) => receipts.verifyFor(tenantId, requirePrincipal(req), req.params.turn_id));
};
