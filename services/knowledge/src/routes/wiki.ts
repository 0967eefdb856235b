/** Wiki routes (spec "Knowledge"): create or update, read, list, delete, by topic slug. */
import type { FastifyInstance } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { WikiWriteRequest } from '../contracts.js';
import type { KnowledgeContext } from './context.js';

const TOPIC = { type: 'object', required: ['topic'], properties: { topic: { type: 'string', minLength: 1, maxLength: 128 } } } as const;

/** Register the wiki routes. */
export function wikiRoutes(ctx: KnowledgeContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: WikiWriteRequest }>('/v1/knowledge/wiki', {
      schema: {
        body: {
          type: 'object', required: ['topic', 'title', 'content'],
          properties: {
            tenant_id: { type: 'string' }, topic: { type: 'string', minLength: 1, maxLength: 128 }, title: { type: 'string', minLength: 1, maxLength: 500 },
            summary: { type: 'string', maxLength: 4000 }, tags: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 64 } },
            content: { type: 'string', maxLength: 1_000_000 }, visibility_mode: { type: 'string', enum: ['private', 'shared', 'restricted'] },
            audience_tags: { type: 'array', maxItems: 100, items: { type: 'string' } }, user_grants: { type: 'array', maxItems: 10_000, items: { type: 'string' } },
            confirm_tenant_wide: { type: 'boolean' },
          },
        },
      },
    }, async (req, reply) => {
      const r = ctx.svc.writeWiki(requirePrincipal(req), req.body);
      return reply.code(r.created ? 201 : 200).send(r.page);
    });
    app.get('/v1/knowledge/wiki', async (req) => ctx.svc.listWiki(requirePrincipal(req)));
    app.get<{ Params: { topic: string } }>('/v1/knowledge/wiki/:topic', { schema: { params: TOPIC } }, async (req) => ctx.svc.readWiki(requirePrincipal(req), req.params.topic));
    app.delete<{ Params: { topic: string } }>('/v1/knowledge/wiki/:topic', { schema: { params: TOPIC } }, async (req) => {
      ctx.svc.deleteWiki(requirePrincipal(req), req.params.topic);
      return { topic: req.params.topic.toLowerCase(), deleted: true };
    });
  };
}
