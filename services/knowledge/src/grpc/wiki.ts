/**
 * Knowledge's gRPC adapter (issue 20 item 2; spec "Transport split": POST /v1/knowledge/wiki and
 * GET /v1/knowledge/wiki/{topic} over gRPC): `svc.v1.Wiki/Upsert` and `Get` call the same `Wiki`
 * use case as routes/wiki.ts, with the same schemas (the GET's `topic` and `tenant_id` travel in
 * the request message).
 */
import type { GrpcBinding } from '../../../shared/grpc/server.js';
import type { SchemaNode } from '../../../shared/grpc/schema-codec.js';
import { TenantQuerySchema, TopicParamsSchema, WikiPageSchema, WikiWriteRequestSchema, type WikiWriteRequest } from '../contracts.js';
import type { Wiki } from '../domain/wiki.js';

const S = (x: unknown): SchemaNode => x as SchemaNode;

/** The `Wiki` service over `wiki`. */
export function wikiGrpc(wiki: Wiki): GrpcBinding {
  return {
    service: 'Wiki',
    unary: [
      {
        name: 'Upsert', method: 'POST', url: '/v1/knowledge/wiki', body: S(WikiWriteRequestSchema), response: S(WikiPageSchema),
        run: async (c, req) => {
          const r = await wiki.write(c.principal, req.body as WikiWriteRequest);
          return { status: r.created ? 201 : 200, body: r.page };
        },
      },
      {
        name: 'Get', method: 'GET', url: '/v1/knowledge/wiki/:topic', params: S(TopicParamsSchema), querystring: S(TenantQuerySchema), response: S(WikiPageSchema),
        run: async (c, req) => ({ status: 200, body: await wiki.read(c.principal, req.params['topic'] as string) }),
      },
    ],
  };
}
