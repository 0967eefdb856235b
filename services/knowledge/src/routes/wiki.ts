/** Wiki routes (spec "Knowledge"): create or update, read, list, delete, by topic slug (contracts/wiki.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import { TenantQuerySchema, TopicParamsSchema, WikiDeletedSchema, WikiListSchema, WikiPageSchema, WikiWriteRequestSchema } from '../contracts.js';
import type { Wiki } from '../domain/wiki.js';

/** Options of `wikiRoutes`. */
export interface WikiRoutesOptions { wiki: Wiki }

/** Register the wiki routes. */
export const wikiRoutes: FastifyPluginAsyncTypebox<WikiRoutesOptions> = async (app, { wiki }) => {
  /** `POST /v1/knowledge/wiki` -> 201 created / 200 updated `WikiPage`; 409 `wiki_topic_conflict`. */
  app.post('/v1/knowledge/wiki', { schema: { body: WikiWriteRequestSchema, response: { 200: WikiPageSchema, 201: WikiPageSchema } } }, async (req, reply) => {
    const r = await wiki.write(requirePrincipal(req), req.body);
    return reply.code(r.created ? 201 : 200).send(r.page);
  });

  /** `GET /v1/knowledge/wiki` -> 200 `{items}`: pages the caller may read, without content. */
  app.get('/v1/knowledge/wiki', { schema: { querystring: TenantQuerySchema, response: { 200: WikiListSchema } } },
    async (req) => wiki.list(requirePrincipal(req)));

  /** `GET /v1/knowledge/wiki/:topic` -> 200 `WikiPage`; 404 when absent or not readable. */
  app.get('/v1/knowledge/wiki/:topic', { schema: { params: TopicParamsSchema, querystring: TenantQuerySchema, response: { 200: WikiPageSchema } } },
    async (req) => wiki.read(requirePrincipal(req), req.params.topic));

  /** `DELETE /v1/knowledge/wiki/:topic` (owner or admin) -> 200 `{topic, deleted: true}`. */
  app.delete('/v1/knowledge/wiki/:topic', { schema: { params: TopicParamsSchema, querystring: TenantQuerySchema, response: { 200: WikiDeletedSchema } } }, async (req) => {
    await wiki.delete(requirePrincipal(req), req.params.topic);
    return { topic: req.params.topic.toLowerCase(), deleted: true as const };
  });
};
