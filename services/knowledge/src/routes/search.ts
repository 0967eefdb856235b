/** `POST /v1/knowledge/search` and `GET /v1/knowledge/status`. */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { SearchRequest } from '../contracts.js';
import type { KnowledgeContext } from './context.js';

/** Register the search routes. */
export function searchRoutes(ctx: KnowledgeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: SearchRequest }>('/v1/knowledge/search', {
      schema: {
        body: {
          type: 'object', required: ['query'],
          properties: {
            tenant_id: { type: 'string', maxLength: 256 }, query: { type: 'string', minLength: 1, maxLength: 8000 },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 }, score_threshold: { type: 'number', minimum: 0, maximum: 1 },
            group_by_document: { type: 'boolean' },
          },
        },
      },
    }, async (req) => {
      const b = req.body;
      return ctx.svc.search(requirePrincipal(req), b.query, {
        limit: b.limit ?? 10, turnId: req.turnId,
        ...(b.score_threshold !== undefined ? { threshold: b.score_threshold } : {}),
        ...(b.group_by_document !== undefined ? { groupByDocument: b.group_by_document } : {}),
      });
    });

    app.get('/v1/knowledge/status', async (req) => { requirePrincipal(req); return ctx.svc.status(); });
  };
}
