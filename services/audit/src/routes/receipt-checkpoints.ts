/**
 * Signed chain checkpoints (issue 22 item 3; docs/receipt-format-v2.md), public like the keys
 * (no bearer; the service's pinned tenant):
 * - `GET /v1/receipts/checkpoints/latest` -> 200 text/plain, the newest C2SP signed-note checkpoint
 * - `GET /v1/receipts/checkpoints/:seq` -> 200 text/plain, the checkpoint at exactly that chain seq
 * Both 404 `checkpoint_not_found` when there is none; 400 `invalid_request` for a seq that is not a
 * positive integer.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DomainError } from '../../../shared/kit/domain-error.js';
import { CheckpointParamsSchema } from '../contracts.js';
import type { CheckpointService } from '../domain/checkpoints.js';

/** Options of `receiptCheckpointRoutes`. */
export interface ReceiptCheckpointRoutesOptions { tenantId: string; checkpoints: CheckpointService }

const TEXT = 'text/plain; charset=utf-8';

/** Register the two checkpoint routes. */
export const receiptCheckpointRoutes: FastifyPluginAsyncTypebox<ReceiptCheckpointRoutesOptions> = async (app, { tenantId, checkpoints }) => {
  app.get('/v1/receipts/checkpoints/latest', { config: { public: true } }, async (_req, reply) => {
    const cp = await checkpoints.latest(tenantId);
    if (!cp) throw new DomainError('checkpoint_not_found', 'no checkpoint has been signed yet');
    return reply.type(TEXT).header('cache-control', 'no-store').send(cp.note);
  });
  app.get('/v1/receipts/checkpoints/:seq', { config: { public: true }, schema: { params: CheckpointParamsSchema } }, async (req, reply) => {
    const cp = await checkpoints.at(tenantId, req.params.seq);
    if (!cp) throw new DomainError('checkpoint_not_found', `no checkpoint at seq ${req.params.seq}`);
    return reply.type(TEXT).send(cp.note);
  });
};
