/**
 * Durable conversation routes (spec "Agent runtime surfaces": `/v1/conversations`, `/v1/conversations/*`
 * "durable conversations, items, runs; enabled only when AGENT_RUNTIME_CONVERSATIONS_ENABLED is set";
 * issue 13 item 4). Shapes and statuses: contracts/conversations.ts. All scoped to the caller;
 * another user's conversation is 404 `conversation_not_found`. With the feature off, every
 * `/v1/conversations*` request (any method, any body) answers 404 `conversations_disabled`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ConversationCreateSchema, ConversationDeletedSchema, ConversationItemPageSchema, ConversationItemSchema, ConversationPageSchema, ConversationQuerySchema,
  ConversationRunPageSchema, ConversationRunSchema, ConversationSchema, ConversationUpdateSchema, IdParams, ItemParams, ItemQuerySchema, ItemsAppendSchema,
  RunCreateSchema, RunParams, RunQuerySchema,
} from '../contracts.js';
import type { ConversationRuns } from '../domain/conversations/runs.js';
import type { ConversationService } from '../domain/conversations/service.js';
import { ownerOf, turnIdentity, type RouteScope } from './identity.js';

/** Options of the conversation routes. */
export interface ConversationRoutesOptions extends RouteScope {
  enabled: boolean;
  conversations: ConversationService;
  runs: ConversationRuns;
}

/** Register the conversation routes (or, when off, the `conversations_disabled` answer for all of them). */
export const conversationRoutes: FastifyPluginAsyncTypebox<ConversationRoutesOptions> = async (app, { tenantId, enabled, conversations, runs }) => {
  if (!enabled) {
    const off = async (): Promise<never> => { conversations.assertEnabled(); throw new Error('unreachable'); };
    // Before the body is parsed: a malformed body still answers `conversations_disabled`.
    app.addHook('onRequest', off);
    app.all('/v1/conversations', off);
    app.all('/v1/conversations/*', off);
    return;
  }

  app.post('/v1/conversations', {
    schema: { body: ConversationCreateSchema, response: { 201: ConversationSchema } },
  }, async (req, reply) => reply.code(201).send(await conversations.create(ownerOf(req, tenantId), req.body ?? {})));

  app.get('/v1/conversations', {
    schema: { querystring: ConversationQuerySchema, response: { 200: ConversationPageSchema } },
  }, async (req) => conversations.list(ownerOf(req, tenantId), req.query));

  app.get('/v1/conversations/:id', {
    schema: { params: IdParams, response: { 200: ConversationSchema } },
  }, async (req) => conversations.get(req.params.id, ownerOf(req, tenantId)));

  app.post('/v1/conversations/:id', {
    schema: { params: IdParams, body: ConversationUpdateSchema, response: { 200: ConversationSchema } },
  }, async (req) => conversations.update(req.params.id, ownerOf(req, tenantId), req.body.metadata));

  app.delete('/v1/conversations/:id', {
    schema: { params: IdParams, response: { 200: ConversationDeletedSchema } },
  }, async (req) => conversations.delete(req.params.id, ownerOf(req, tenantId)));

  app.get('/v1/conversations/:id/items', {
    schema: { params: IdParams, querystring: ItemQuerySchema, response: { 200: ConversationItemPageSchema } },
  }, async (req) => conversations.listItems(req.params.id, ownerOf(req, tenantId), req.query));

  app.post('/v1/conversations/:id/items', {
    schema: { params: IdParams, body: ItemsAppendSchema, response: { 201: ConversationItemPageSchema } },
  }, async (req, reply) => {
    const who = turnIdentity(req, tenantId);
    const items = await conversations.appendItems(req.params.id, { tenantId: who.tenantId, userId: who.userId }, req.body.items, who.turnId);
    return reply.code(201).send({ items });
  });

  app.get('/v1/conversations/:id/items/:item_id', {
    schema: { params: ItemParams, response: { 200: ConversationItemSchema } },
  }, async (req) => conversations.getItem(req.params.id, req.params.item_id, ownerOf(req, tenantId)));

  app.delete('/v1/conversations/:id/items/:item_id', {
    schema: { params: ItemParams, response: { 200: ConversationSchema } },
  }, async (req) => conversations.deleteItem(req.params.id, req.params.item_id, ownerOf(req, tenantId)));

  app.post('/v1/conversations/:id/runs', {
    schema: { params: IdParams, body: RunCreateSchema, response: { 201: ConversationRunSchema } },
  }, async (req, reply) => {
    const ac = new AbortController();
    // The response closing before it finished means the client went away: the run is cancelled.
    const onClose = (): void => { if (!reply.raw.writableFinished) ac.abort(); };
    reply.raw.once('close', onClose);
    try {
      const run = await runs.start(turnIdentity(req, tenantId), req.params.id, req.body ?? {}, ac.signal);
      return reply.code(201).send(run);
    } finally {
      reply.raw.off('close', onClose);
    }
  });

  app.get('/v1/conversations/:id/runs', {
    schema: { params: IdParams, querystring: RunQuerySchema, response: { 200: ConversationRunPageSchema } },
  }, async (req) => runs.list(ownerOf(req, tenantId), req.params.id, req.query.limit));

  app.get('/v1/conversations/:id/runs/:run_id', {
    schema: { params: RunParams, response: { 200: ConversationRunSchema } },
  }, async (req) => runs.get(ownerOf(req, tenantId), req.params.id, req.params.run_id));

  app.post('/v1/conversations/:id/runs/:run_id/cancel', {
    schema: { params: RunParams, response: { 200: ConversationRunSchema } },
  }, async (req) => runs.cancel(ownerOf(req, tenantId), req.params.id, req.params.run_id));
};
