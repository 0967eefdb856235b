/** `POST /v1/knowledge/search` and `GET /v1/knowledge/status` (contracts/search.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { KnowledgeStatusSchema, SearchRequestSchema, SearchResponseSchema, TenantQuerySchema } from '../contracts.js';
import type { Search } from '../domain/search.js';
import type { StatusReport } from '../domain/status.js';

/** Options of `searchRoutes`. */
export interface SearchRoutesOptions {
  search: Search;
  status: StatusReport;
}

/** Register the search and status routes. */
export const searchRoutes: FastifyPluginAsyncTypebox<SearchRoutesOptions> = async (app, { search, status }) => {
  /** `POST /v1/knowledge/search` -> 200 `{results, retrieval}` (`filter` narrows within visibility); within a turn, `rag_chunks_retrieved` is recorded first. */
  app.post('/v1/knowledge/search', { schema: { body: SearchRequestSchema, response: { 200: SearchResponseSchema } } }, async (req) => {
    const b = req.body;
    return search.search(requirePrincipal(req), b.query, {
      limit: b.limit ?? 10, turnId: req.turnId,
      ...(b.score_threshold !== undefined ? { threshold: b.score_threshold } : {}),
      ...(b.group_by_document !== undefined ? { groupByDocument: b.group_by_document } : {}),
      ...(b.filter !== undefined ? { filter: b.filter } : {}),
    });
  });

  /** `GET /v1/knowledge/status` -> 200 `KnowledgeStatus` (the embedder's reason and folder for admins only). */
  app.get('/v1/knowledge/status', { schema: { querystring: TenantQuerySchema, response: { 200: KnowledgeStatusSchema } } }, async (req) => status.status(requirePrincipal(req)));
};
