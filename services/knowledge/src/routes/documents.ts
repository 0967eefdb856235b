/**
 * Document routes (spec "Knowledge"): list, detail, content (text or the original upload), change
 * (visibility, owner, title), reindex, delete, archive, restore. Bodies: contracts/documents.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  DocumentContentQuerySchema, DocumentContentSchema, DocumentDeletedSchema, DocumentDetailSchema, DocumentIdParamsSchema, DocumentListQuerySchema,
  DocumentPageSchema, DocumentPatchRequestSchema, DocumentViewSchema, ReindexResultSchema, TenantQuerySchema,
} from '../contracts.js';
import type { Documents } from '../domain/documents.js';
import type { Ingest } from '../domain/ingest.js';

/** Options of `documentRoutes`. */
export interface DocumentRoutesOptions {
  documents: Documents;
  ingest: Pick<Ingest, 'reindex'>;
}

const byId = { params: DocumentIdParamsSchema, querystring: TenantQuerySchema } as const;

/** Register the document routes. */
export const documentRoutes: FastifyPluginAsyncTypebox<DocumentRoutesOptions> = async (app, { documents, ingest }) => {
  /** `GET /v1/knowledge/documents` -> 200 `{items, next_cursor?}`, newest first. */
  app.get('/v1/knowledge/documents', { schema: { querystring: DocumentListQuerySchema, response: { 200: DocumentPageSchema } } }, async (req) => {
    const q = req.query;
    return documents.list(requirePrincipal(req), {
      limit: q.limit ?? 50, ...(q.cursor ? { cursor: q.cursor } : {}), ...(q.archived ? { archived: q.archived } : {}),
      ...(q.status ? { status: q.status } : {}), ...(q.q ? { q: q.q } : {}),
    });
  });

  /** `GET /v1/knowledge/documents/:id` -> 200 document detail; 404 when absent or not visible. */
  app.get('/v1/knowledge/documents/:document_id', { schema: { ...byId, response: { 200: DocumentDetailSchema } } },
    async (req) => documents.detail(requirePrincipal(req), req.params.document_id));

  /** `GET /v1/knowledge/documents/:id/content` -> 200 the text; `?format=original` sends the stored upload as an attachment. */
  app.get('/v1/knowledge/documents/:document_id/content', {
    schema: { params: DocumentIdParamsSchema, querystring: DocumentContentQuerySchema, response: { 200: DocumentContentSchema } },
  }, async (req, reply) => {
    const p = requirePrincipal(req);
    if (req.query.format === 'original') {
      const o = await documents.original(p, req.params.document_id);
      if (!o) throw notFound('this document has no stored original file');
      const safe = o.filename.replace(/[^\w.-]+/g, '_');
      // A Buffer is sent as it is (the 200 schema types only the JSON answer, and serialises nothing else).
      return reply.type(o.mime).header('content-disposition', `attachment; filename="${safe}"`).header('x-content-type-options', 'nosniff').send(o.data as never);
    }
    return documents.content(p, req.params.document_id);
  });

  /** `PATCH /v1/knowledge/documents/:id` (owner or admin) -> 200 document detail. */
  app.patch('/v1/knowledge/documents/:document_id', {
    schema: { ...byId, body: DocumentPatchRequestSchema, response: { 200: DocumentDetailSchema } },
  }, async (req) => documents.update(requirePrincipal(req), req.params.document_id, req.body));

  /** `POST /v1/knowledge/documents/:id/reindex` (owner or admin) -> 200 the state after indexing again. */
  app.post('/v1/knowledge/documents/:document_id/reindex', { schema: { ...byId, response: { 200: ReindexResultSchema } } },
    async (req) => ingest.reindex(requirePrincipal(req), req.params.document_id));

  /** `DELETE /v1/knowledge/documents/:id` (owner or admin) -> 200 `{document_id, deleted: true}`. */
  app.delete('/v1/knowledge/documents/:document_id', { schema: { ...byId, response: { 200: DocumentDeletedSchema } } }, async (req) => {
    await documents.delete(requirePrincipal(req), req.params.document_id);
    return { document_id: req.params.document_id, deleted: true as const };
  });

  /** `POST /v1/knowledge/documents/:id/archive` (owner or admin) -> 200 the document. */
  app.post('/v1/knowledge/documents/:document_id/archive', { schema: { ...byId, response: { 200: DocumentViewSchema } } },
    async (req) => documents.setArchived(requirePrincipal(req), req.params.document_id, true));

  /** `POST /v1/knowledge/documents/:id/restore` (owner or admin) -> 200 the document. */
  app.post('/v1/knowledge/documents/:document_id/restore', { schema: { ...byId, response: { 200: DocumentViewSchema } } },
    async (req) => documents.setArchived(requirePrincipal(req), req.params.document_id, false));
};
