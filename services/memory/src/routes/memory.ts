/**
 * Memory routes (spec "Memory"): thin HTTP over the use cases; schemas, bodies and status codes in
 * contracts.ts. Every route needs the gateway-stamped principal.
 */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  ConsolidateRequestSchema, ConsolidationReportSchema, DeleteResultSchema, ForgetRequestSchema, ListQuerySchema, MemoryDetailSchema,
  MemoryIdParamsSchema, MemoryPageSchema, MemoryRecordSchema, MemoryStatusSchema, PrefetchRequestSchema, PrefetchResultSchema,
  ScopeQuerySchema, SearchRequestSchema, SearchResultSchema, StoreRequestSchema, StoreResultSchema, UpdateRequestSchema, type MemoryScope,
} from '../contracts.js';
import type { Consolidator } from '../domain/consolidate.js';
import type { DenseIndex } from '../domain/dense.js';
import type { MemoryEditor } from '../domain/edit.js';
import type { MemoryRecall } from '../domain/recall.js';
import type { Caller } from '../domain/scopes.js';
import type { MemoryWriter } from '../domain/write.js';

/** Options of `memoryRoutes`: the use cases. */
export interface MemoryRoutesOptions {
  writer: MemoryWriter;
  recall: MemoryRecall;
  editor: MemoryEditor;
  consolidator: Consolidator;
  dense: DenseIndex;
}

/** Stamped headers forwarded to the memory role. */
const FORWARDED = ['x-svc-principal', 'x-svc-turn-id', 'x-svc-cap-token'];

/** The caller with the stamped headers forwarded to the memory role. */
export function callerOf(req: FastifyRequest): Caller {
  const headers: Record<string, string> = {};
  for (const h of FORWARDED) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  return { principal: requirePrincipal(req), turnId: req.turnId, headers };
}

/** Register the memory routes. */
export const memoryRoutes: FastifyPluginAsyncTypebox<MemoryRoutesOptions> = async (app, { writer, recall, editor, consolidator, dense }) => {
  app.post('/v1/memory', {
    schema: { body: StoreRequestSchema, response: { 200: StoreResultSchema, 201: StoreResultSchema } },
  }, async (req, reply) => {
    const r = await writer.store(callerOf(req), req.body);
    return reply.code(r.created ? 201 : 200).send(r.result);
  });

  app.post('/v1/memory/search', {
    schema: { body: SearchRequestSchema, response: { 200: SearchResultSchema } },
  }, async (req) => recall.search(callerOf(req), req.body));

  app.post('/v1/memory/prefetch', {
    schema: { body: PrefetchRequestSchema, response: { 200: PrefetchResultSchema } },
  }, async (req) => recall.prefetch(callerOf(req), req.body));

  app.post('/v1/memory/consolidate', {
    schema: { body: ConsolidateRequestSchema, response: { 200: ConsolidationReportSchema } },
  }, async (req) => consolidator.forCaller(callerOf(req), req.body?.scope));

  app.get('/v1/memory/status', { schema: { response: { 200: MemoryStatusSchema } } }, async (req) => dense.status(requirePrincipal(req)));

  app.get('/v1/memory', {
    schema: { querystring: ListQuerySchema, response: { 200: MemoryPageSchema } },
  }, async (req) => editor.list(requirePrincipal(req), req.query));

  app.get('/v1/memory/:memory_id', {
    schema: { params: MemoryIdParamsSchema, querystring: ScopeQuerySchema, response: { 200: MemoryDetailSchema } },
  }, async (req) => editor.get(requirePrincipal(req), req.params.memory_id, req.query));

  app.put('/v1/memory/:memory_id', {
    schema: { params: MemoryIdParamsSchema, body: UpdateRequestSchema, response: { 200: MemoryRecordSchema } },
  }, async (req) => editor.update(callerOf(req), req.params.memory_id, req.body));

  app.delete('/v1/memory/:memory_id', {
    schema: { params: MemoryIdParamsSchema, querystring: ScopeQuerySchema, response: { 200: DeleteResultSchema } },
  }, async (req) => editor.remove(callerOf(req), req.params.memory_id, req.query, false));

  app.post('/v1/memory/:memory_id/forget', {
    schema: { params: MemoryIdParamsSchema, querystring: ScopeQuerySchema, body: ForgetRequestSchema, response: { 200: DeleteResultSchema } },
  }, async (req) => {
    const b = req.body ?? {};
    const scope: MemoryScope = { ...req.query, ...(b.tenant_id ? { tenant_id: b.tenant_id } : {}), ...(b.user_id ? { user_id: b.user_id } : {}), ...(b.scope ?? {}) };
    return editor.remove(callerOf(req), req.params.memory_id, scope, true);
  });
};
