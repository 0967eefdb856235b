/**
 * Artifact and replay routes (spec "Audit and receipts"):
 * - `POST /v1/audit/artifacts` (service-account) body `{turn_id, event_id, kind, content_type?,
 *   content | content_base64, sha256?}` -> 201 `ArtifactInfo` (200 when the same bytes were already
 *   stored); 400 `invalid_request` / `digest_mismatch`; 409 `artifact_conflict`. Body up to 48 MiB.
 * - `GET /v1/audit/turns/:turn_id/replay?tenant_id` -> 200 `{turn_id, tenant_id, receipt, events}`
 *   (tenant_id is ignored: the pinned tenant); 404 `turn_not_found`.
 * - `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind` -> 200 streamed body with its
 *   content type and `x-content-sha256`; 404 `artifact_not_found`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  ARTIFACT_BODY_LIMIT, ArtifactBodySchema, ArtifactInfoSchema, ArtifactParamsSchema, ArtifactUploadRequestSchema, ReplayQuerySchema,
  ReplayResponseSchema, TurnParamsSchema,
} from '../contracts.js';
import { requireServiceAccount } from '../domain/access.js';
import type { ArtifactService } from '../domain/artifacts.js';

/** Options of `artifactRoutes`. */
export interface ArtifactRoutesOptions {
  /** The pinned tenant. */
  tenantId: string;
  artifacts: ArtifactService;
}

/** Register the artifact and replay routes. */
export const artifactRoutes: FastifyPluginAsyncTypebox<ArtifactRoutesOptions> = async (app, { tenantId, artifacts }) => {
  app.post('/v1/audit/artifacts', {
    bodyLimit: ARTIFACT_BODY_LIMIT,
    schema: { body: ArtifactUploadRequestSchema, response: { 200: ArtifactInfoSchema, 201: ArtifactInfoSchema } },
  }, async (req, reply) => {
    requireServiceAccount(requirePrincipal(req));
    const r = await artifacts.upload(tenantId, req.body);
    return reply.code(r.created ? 201 : 200).send(r.artifact);
  });

  app.get('/v1/audit/turns/:turn_id/replay', {
    schema: { params: TurnParamsSchema, querystring: ReplayQuerySchema, response: { 200: ReplayResponseSchema } },
  }, async (req) => artifacts.replayFor(tenantId, requirePrincipal(req), req.params.turn_id));

  app.get('/v1/audit/turns/:turn_id/artifacts/:event_id/:kind', {
    schema: { params: ArtifactParamsSchema, response: { 200: ArtifactBodySchema } },
  }, async (req, reply) => {
    const p = req.params;
    const a = await artifacts.openFor(tenantId, requirePrincipal(req), p.turn_id, p.event_id, p.kind);
    void reply.header('content-type', a.meta.content_type).header('content-length', String(a.size)).header('x-content-sha256', a.meta.sha256)
      .header('x-content-type-options', 'nosniff');
    return reply.send(a.stream);
  });
};
