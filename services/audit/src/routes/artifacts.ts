/**
 * Artifact and replay routes (spec "Audit and receipts"):
 * - `POST /v1/audit/artifacts` (service-account) body `{turn_id, event_id, kind, content_type?,
 *   content | content_base64, sha256?}` -> 201 `ArtifactInfo` (200 when the same bytes were already
 *   stored); 400 `invalid_request` / `digest_mismatch`; 409 `artifact_conflict`.
 * - `GET /v1/audit/turns/:turn_id/replay?tenant_id` -> 200 `{turn_id, tenant_id, receipt, events}`
 *   (tenant_id is ignored: the pinned tenant); 404 `turn_not_found`.
 * - `GET /v1/audit/turns/:turn_id/artifacts/:event_id/:kind` -> 200 streamed body with its
 *   content type and `x-content-sha256`; 404 `artifact_not_found`.
 */
import type { FastifyInstance } from 'fastify';
import { AppError, invalidRequest } from '../../../shared/http/errors.js';
import type { ArtifactUploadRequest, ReplayResponse } from '../contracts.js';
import { ArtifactError, KIND_RE } from '../domain/artifacts.js';
import { receiptOf } from '../domain/receipts.js';
import { requireServiceAccount, TURN_PARAM, visibleTurn, type AuditContext } from './context.js';

/** Largest artifact upload body, bytes (base64 of a 32 MiB body fits). */
export const ARTIFACT_BODY_LIMIT = 48 * 1024 * 1024;

const ID = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' } as const;

/** Register the artifact and replay routes. */
export function artifactRoutes(ctx: AuditContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: ArtifactUploadRequest }>('/v1/audit/artifacts', {
      bodyLimit: ARTIFACT_BODY_LIMIT,
      schema: {
        body: {
          type: 'object', required: ['turn_id', 'event_id', 'kind'],
          properties: {
            turn_id: ID, event_id: ID, kind: { type: 'string', pattern: KIND_RE.source },
            content_type: { type: 'string', minLength: 1, maxLength: 200 }, content: { type: 'string' }, content_base64: { type: 'string' },
            sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          },
        },
      },
    }, async (req, reply) => {
      requireServiceAccount(req);
      const b = req.body;
      if ((b.content === undefined) === (b.content_base64 === undefined)) throw invalidRequest('give exactly one of content or content_base64', 'body.content');
      let bytes: Uint8Array;
      if (b.content !== undefined) bytes = Buffer.from(b.content, 'utf8');
      else {
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b.content_base64!) || b.content_base64!.length % 4 !== 0) throw invalidRequest('content_base64 is not base64', 'body.content_base64');
        bytes = Buffer.from(b.content_base64!, 'base64');
      }
      const contentType = b.content_type ?? (b.content !== undefined ? 'text/plain; charset=utf-8' : 'application/octet-stream');
      try {
        const r = ctx.artifacts.put(ctx.tenantId, b.turn_id, b.event_id, b.kind, contentType, bytes, b.sha256);
        return reply.code(r.created ? 201 : 200).send(r.artifact);
      } catch (err) {
        if (err instanceof ArtifactError) {
          throw err.code === 'conflict' ? new AppError(409, 'artifact_conflict', err.message) : new AppError(400, 'digest_mismatch', err.message);
        }
        throw err;
      }
    });

    app.get<{ Params: { turn_id: string }; Querystring: { tenant_id?: string } }>('/v1/audit/turns/:turn_id/replay', {
      schema: { params: TURN_PARAM, querystring: { type: 'object', properties: { tenant_id: { type: 'string' } } } },
    }, async (req) => {
      const t = visibleTurn(ctx, req, req.params.turn_id);
      const events = ctx.artifacts.replay(ctx.tenantId, t.turn_id) ?? [];
      const body: ReplayResponse = { turn_id: t.turn_id, tenant_id: ctx.tenantId, receipt: receiptOf(t), events };
      return body;
    });

    app.get<{ Params: { turn_id: string; event_id: string; kind: string } }>('/v1/audit/turns/:turn_id/artifacts/:event_id/:kind', {
      schema: {
        params: {
          type: 'object', required: ['turn_id', 'event_id', 'kind'],
          properties: { turn_id: { type: 'string', maxLength: 128 }, event_id: { type: 'string', maxLength: 128 }, kind: { type: 'string', maxLength: 64 } },
        },
      },
    }, async (req, reply) => {
      visibleTurn(ctx, req, req.params.turn_id);
      const a = ctx.artifacts.open(ctx.tenantId, req.params.turn_id, req.params.event_id, req.params.kind);
      if (!a) throw new AppError(404, 'artifact_not_found', 'no such artifact');
      void reply.header('content-type', a.meta.content_type).header('content-length', String(a.size)).header('x-content-sha256', a.meta.sha256)
        .header('x-content-type-options', 'nosniff');
      return reply.send(a.stream);
    });
  };
}
