/**
 * Chat routes (spec "Chat", "Chat stream events", "Errors"; issue 5 item 1):
 * - `POST /v1/chat` body `ChatRequest` -> 200 `ChatResponse`; 400 `invalid_request`;
 *   404 `session_not_found`, `document_not_found` (a file part naming a document the user may not
 *   read; issue 12 item 7); inference failures 503 (`backend_unavailable`, `role_not_configured`, ...),
 *   400 `model_unknown`, 429 `budget_exceeded` (contracts.ts `AGENT_RUNTIME_ERRORS`).
 * - `POST /v1/chat/stream` body `ChatRequest` -> 200 `text/event-stream`: records `event: <name>` +
 *   `data: <json>` + blank line, in the spec's order, ending with `done` or `error`. Request errors
 *   (400, 404) answer JSON before the stream starts; every later failure, a missing provider included,
 *   is an `error` event (never a 502). A comment line `: keep-alive` goes out every 15 s while a run
 *   waits (approvals).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { CHAT_BODY_LIMIT, ChatRequestSchema, ChatResponseSchema, ChatStreamSchema, type StreamEventMap, type StreamEventName } from '../contracts.js';
import type { ChatEngine, EventSink } from '../domain/chat-engine.js';
import { invalidField } from '../domain/errors.js';
import { turnIdentity, type RouteScope } from './identity.js';

/** Options of the chat routes. */
export interface ChatRoutesOptions extends RouteScope {
  engine: ChatEngine;
}

/** Interval of the `: keep-alive` comment while a stream waits, ms. */
const KEEP_ALIVE_MS = 15_000;

/** Format one SSE record. */
export function sseRecord(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * preValidation of chat bodies: `content` must already be a string or an array. The shared
 * validator coerces types, which would turn `42` into `"42"`; a chat message is never a number.
 * @throws DomainError `invalid_request` naming the field.
 */
async function rejectCoercibleContent(req: FastifyRequest): Promise<void> {
  const msgs = (req.body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(msgs)) return;
  msgs.forEach((m, i) => {
    const c = (m as { content?: unknown } | null)?.content;
    if (c !== undefined && typeof c !== 'string' && !Array.isArray(c)) throw invalidField('content must be a string or an array of parts', `body.messages.${i}.content`);
  });
}

/** Register the chat routes. */
export const chatRoutes: FastifyPluginAsyncTypebox<ChatRoutesOptions> = async (app, { tenantId, engine }) => {
  app.post('/v1/chat', {
    bodyLimit: CHAT_BODY_LIMIT, schema: { body: ChatRequestSchema, response: { 200: ChatResponseSchema } }, preValidation: rejectCoercibleContent,
  }, async (req, reply) => {
    const prepared = await engine.attach(await engine.prepare(req.body, turnIdentity(req, tenantId)));
    const ac = new AbortController();
    // The response closing before it finished means the client went away.
    const onClose = (): void => { if (!reply.raw.writableFinished) ac.abort(); };
    reply.raw.once('close', onClose);
    try {
      return await engine.answer(prepared, ac.signal);
    } finally {
      reply.raw.off('close', onClose);
    }
  });

  app.post('/v1/chat/stream', {
    bodyLimit: CHAT_BODY_LIMIT, schema: { body: ChatRequestSchema, response: { 200: ChatStreamSchema } }, preValidation: rejectCoercibleContent,
  }, async (req, reply) => {
    const who = turnIdentity(req, tenantId);
    const prepared = await engine.attach(await engine.prepare(req.body, who));
    reply.hijack();
    const res = reply.raw;
    const headers: Record<string, string> = {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no',
    };
    if (who.turnId) headers['x-svc-turn-id'] = who.turnId;
    res.writeHead(200, headers);
    res.flushHeaders();
    const ac = new AbortController();
    res.once('close', () => { if (!res.writableFinished) ac.abort(); });
    const sink: EventSink = <K extends StreamEventName>(name: K, data: StreamEventMap[K]): void => {
      if (!res.destroyed && !res.writableEnded) res.write(sseRecord(name, data));
    };
    const keepAlive = setInterval(() => { if (!res.destroyed) res.write(': keep-alive\n\n'); }, KEEP_ALIVE_MS);
    keepAlive.unref();
    try {
      await engine.run(prepared, sink, ac.signal);
    } catch (err) {
      req.log.error({ err }, 'chat stream failed');
      sink('error', { message: 'internal error', code: 'internal_error' });
    } finally {
      clearInterval(keepAlive);
      if (!res.writableEnded) res.end();
    }
  });
};
