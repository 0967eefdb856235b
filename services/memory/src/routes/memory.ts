/** Memory routes (spec "Memory"); bodies and status codes in contracts.ts. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../../../shared/http/server.js';
import type { MemoryScope, PrefetchRequest, SearchRequest, StoreRequest, UpdateRequest } from '../contracts.js';
import type { Caller, MemoryService } from '../domain/memory-service.js';

const SCOPE = {
  type: 'object',
  properties: {
    tenant_id: { type: ['string', 'null'], maxLength: 256 }, user_id: { type: ['string', 'null'], maxLength: 256 },
    agent_id: { type: ['string', 'null'], maxLength: 256 }, session_id: { type: ['string', 'null'], maxLength: 256 },
  },
} as const;
const TYPE = { type: 'string', enum: ['user', 'feedback', 'project', 'reference'] } as const;
const MESSAGES = { type: 'array', maxItems: 500, items: { type: 'object', required: ['role'], properties: { role: { type: 'string' }, content: {} } } } as const;
const ID = { type: 'object', required: ['memory_id'], properties: { memory_id: { type: 'string', minLength: 1, maxLength: 64 } } } as const;
const SCOPE_QUERY = {
  type: 'object',
  properties: { tenant_id: { type: 'string' }, user_id: { type: 'string' }, agent_id: { type: 'string' }, session_id: { type: 'string' } },
} as const;

/** The caller with the stamped headers forwarded to the memory role. */
export function callerOf(req: FastifyRequest): Caller {
  const headers: Record<string, string> = {};
  for (const h of ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token']) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  return { principal: requirePrincipal(req), turnId: req.turnId, headers };
}

/** Register the memory routes. */
export function memoryRoutes(svc: MemoryService) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: StoreRequest }>('/v1/memory', {
      schema: {
        body: {
          type: 'object',
          properties: {
            content: { type: 'string', maxLength: 8000 }, messages: MESSAGES, memory_type: TYPE, scope: SCOPE, pinned: { type: 'boolean' },
            expires_at: { type: ['string', 'null'] }, why_stored: { type: ['string', 'null'], maxLength: 1000 }, source: { type: ['string', 'null'], maxLength: 256 },
          },
        },
      },
    }, async (req, reply) => {
      const r = await svc.store(callerOf(req), req.body);
      return reply.code(r.created ? 201 : 200).send(r.result);
    });

    app.post<{ Body: SearchRequest }>('/v1/memory/search', {
      schema: {
        body: {
          type: 'object', required: ['query'],
          properties: { query: { type: 'string', minLength: 1, maxLength: 8000 }, scope: SCOPE, memory_type: TYPE, limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 }, min_score: { type: 'number', minimum: 0, maximum: 1 } },
        },
      },
    }, async (req) => svc.search(callerOf(req), req.body));

    app.post<{ Body: PrefetchRequest }>('/v1/memory/prefetch', {
      schema: {
        body: {
          type: 'object',
          properties: { query: { type: 'string', maxLength: 16000 }, messages: MESSAGES, scope: SCOPE, token_budget: { type: 'integer', minimum: 16, maximum: 32768 }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
        },
      },
    }, async (req) => svc.prefetch(callerOf(req), req.body));

    app.post<{ Body: { scope?: MemoryScope } | undefined }>('/v1/memory/consolidate', {
      schema: { body: { type: ['object', 'null'], properties: { scope: SCOPE } } },
    }, async (req) => {
      const c = callerOf(req);
      const scope = svc.resolveScope(c.principal, req.body?.scope);
      return svc.consolidate(c.principal.id, c.headers, scope);
    });

    app.get('/v1/memory/status', async (req) => { requirePrincipal(req); return svc.status(); });

    app.get<{ Querystring: { tenant_id?: string; user_id?: string; agent_id?: string; session_id?: string; memory_type?: string; limit?: number; cursor?: string; include_expired?: boolean } }>('/v1/memory', {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            ...SCOPE_QUERY.properties, memory_type: TYPE, limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 }, cursor: { type: 'string', maxLength: 32 },
            include_expired: { type: 'boolean' },
          },
        },
      },
    }, async (req) => svc.list(requirePrincipal(req), req.query));

    app.get<{ Params: { memory_id: string }; Querystring: MemoryScope }>('/v1/memory/:memory_id', { schema: { params: ID, querystring: SCOPE_QUERY } }, async (req) => svc.get(requirePrincipal(req), req.params.memory_id, req.query));

    app.put<{ Params: { memory_id: string }; Body: UpdateRequest }>('/v1/memory/:memory_id', {
      schema: {
        params: ID,
        body: {
          type: 'object',
          properties: { content: { type: 'string', minLength: 1, maxLength: 8000 }, scope: SCOPE, memory_type: TYPE, pinned: { type: 'boolean' }, expires_at: { type: ['string', 'null'] }, why_stored: { type: ['string', 'null'], maxLength: 1000 } },
        },
      },
    }, async (req) => svc.update(callerOf(req), req.params.memory_id, req.body));

    app.delete<{ Params: { memory_id: string }; Querystring: MemoryScope }>('/v1/memory/:memory_id', { schema: { params: ID, querystring: SCOPE_QUERY } }, async (req) => svc.remove(callerOf(req), req.params.memory_id, req.query, false));

    app.post<{ Params: { memory_id: string }; Querystring: MemoryScope; Body: { scope?: MemoryScope; tenant_id?: string; user_id?: string } | undefined }>('/v1/memory/:memory_id/forget', {
      schema: { params: ID, querystring: SCOPE_QUERY, body: { type: ['object', 'null'], properties: { scope: SCOPE, tenant_id: { type: 'string' }, user_id: { type: 'string' } } } },
    }, async (req) => {
      const b = req.body ?? {};
      const scope: MemoryScope = { ...req.query, ...(b.tenant_id ? { tenant_id: b.tenant_id } : {}), ...(b.user_id ? { user_id: b.user_id } : {}), ...(b.scope ?? {}) };
      return svc.remove(callerOf(req), req.params.memory_id, scope, true);
    });
  };
}
