/** Document routes (spec "Knowledge"): list, detail, content, reindex, delete, archive, restore. */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import { notFound } from '../../../shared/http/errors.js';
import { DOC_PARAM, type KnowledgeContext } from './context.js';

type DocParams = { Params: { document_id: string } };

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
