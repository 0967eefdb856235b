/** Document routes (spec "Knowledge"): list, detail, content, change (visibility, owner, title), reindex, delete, archive, restore. */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import { notFound } from '../../../shared/http/errors.js';
import type { DocumentPatchRequest } from '../contracts.js';
import { DOC_PARAM, type KnowledgeContext } from './context.js';

type DocParams = { Params: { document_id: string } };

/** Body of PATCH: the batch route's governance fields plus the title; unknown fields are refused. */
const PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    tenant_id: { type: 'string', maxLength: 256 },
    visibility_mode: { type: 'string', enum: ['private', 'shared', 'restricted'] },
    audience_tags: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 } },
    user_grants: { type: 'array', maxItems: 10_000, items: { type: 'string', maxLength: 256 } },
    owner_user_id: { type: 'string', minLength: 1, maxLength: 256 },
    confirm_tenant_wide: { type: 'boolean' },
    title: { type: 'string', minLength: 1, maxLength: 500 },
  },
} as const;

/** Register the document routes. */
export function documentRoutes(ctx: KnowledgeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { limit?: number; cursor?: string; archived?: 'exclude' | 'include' | 'only'; status?: string; q?: string } }>('/v1/knowledge/documents', {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            tenant_id: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', maxLength: 512 },
            archived: { type: 'string', enum: ['exclude', 'include', 'only'] }, status: { type: 'string', enum: ['indexing', 'indexed', 'failed'] },
            q: { type: 'string', maxLength: 200 },
          },
        },
      },
    }, async (req) => {
      const q = req.query;
      return ctx.svc.listDocuments(requirePrincipal(req), {
        limit: q.limit ?? 50, ...(q.cursor ? { cursor: q.cursor } : {}), ...(q.archived ? { archived: q.archived } : {}),
        ...(q.status ? { status: q.status } : {}), ...(q.q ? { q: q.q } : {}),
      });
    });

    app.get<DocParams>('/v1/knowledge/documents/:document_id', { schema: { params: DOC_PARAM } }, async (req) => ctx.svc.documentDetail(requirePrincipal(req), req.params.document_id));

    app.get<DocParams & { Querystring: { format?: 'text' | 'original' } }>('/v1/knowledge/documents/:document_id/content', {
      schema: { params: DOC_PARAM, querystring: { type: 'object', properties: { tenant_id: { type: 'string' }, format: { type: 'string', enum: ['text', 'original'] } } } },
    }, async (req, reply) => {
      const p = requirePrincipal(req);
      if (req.query.format === 'original') {
        const o = ctx.svc.documentOriginal(p, req.params.document_id);
        if (!o) throw notFound('this document has no stored original file');
        const safe = o.filename.replace(/[^\w.-]+/g, '_');
        return reply.type(o.mime).header('content-disposition', `attachment; filename="${safe}"`).header('x-content-type-options', 'nosniff').send(o.data);
      }
      return ctx.svc.documentContent(p, req.params.document_id);
    });

    app.patch<DocParams & { Body: DocumentPatchRequest }>('/v1/knowledge/documents/:document_id', { schema: { params: DOC_PARAM, body: PATCH_SCHEMA } },
      async (req) => ctx.svc.updateDocument(requirePrincipal(req), req.params.document_id, req.body));

    app.post<DocParams>('/v1/knowledge/documents/:document_id/reindex', { schema: { params: DOC_PARAM } }, async (req, reply) => {
      const r = await ctx.svc.reindex(requirePrincipal(req), req.params.document_id);
      return reply.code(200).send(r);
    });

    app.delete<DocParams>('/v1/knowledge/documents/:document_id', { schema: { params: DOC_PARAM } }, async (req) => {
      ctx.svc.deleteDocument(requirePrincipal(req), req.params.document_id);
      return { document_id: req.params.document_id, deleted: true };
    });

    app.post<DocParams>('/v1/knowledge/documents/:document_id/archive', { schema: { params: DOC_PARAM } }, async (req) => ctx.svc.setArchived(requirePrincipal(req), req.params.document_id, true));
    app.post<DocParams>('/v1/knowledge/documents/:document_id/restore', { schema: { params: DOC_PARAM } }, async (req) => ctx.svc.setArchived(requirePrincipal(req), req.params.document_id, false));
  };
}
