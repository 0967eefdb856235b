/**
 * Chat routes (spec "Chat", "Chat stream events", "Errors"; issue 5 item 1):
 * - `POST /v1/chat` body `ChatRequest` -> 200 `ChatResponse`; 400 `invalid_request`;
 *   404 `session_not_found`; inference failures 503 (`backend_unavailable`, `role_not_configured`, ...),
 *   400 `model_unknown`, 429 `budget_exceeded`.
 * - `POST /v1/chat/stream` body `ChatRequest` -> 200 `text/event-stream`: records `event: <name>` +
 *   `data: <json>` + blank line, in the spec's order, ending with `done` or `error`. Request errors
 *   (400, 404) answer JSON before the stream starts; every later failure, a missing provider included,
 *   is an `error` event (never a 502). A comment line `: keep-alive` goes out every 15 s while a run
 *   waits (approvals).
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import type { ChatRequest, ChatResponse, StreamEventMap, StreamEventName } from '../contracts.js';
import type { EventSink, TurnOutcome, TurnIdentity, PreparedTurn } from '../domain/chat-engine.js';
import { statusForCode } from '../domain/inference-errors.js';
import { turnIdentity, type RuntimeContext } from './context.js';
import { CHAT_BODY, rejectCoercibleContent } from './schemas.js';

/** Largest chat body, bytes (images travel inline as data URLs). */
export const CHAT_BODY_LIMIT = 32 * 1024 * 1024;

/** Format one SSE record. */
export function sseRecord(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Register the chat routes. */
export function chatRoutes(ctx: RuntimeContext) {
  /** After a new session's first turn, title it through the `title` role (best effort, in the background). */
  const titleLater = (p: PreparedTurn, who: TurnIdentity, o: TurnOutcome): void => {
    if (!ctx.settings.titleGeneration || !p.isNew || o.status === 'failed') return;
    ctx.sessions.generateTitle(o.sessionId, { tenantId: who.tenantId, userId: who.userId }, who.headers)
      .catch((err: unknown) => ctx.log.warn({ err: (err as Error).message, session_id: o.sessionId }, 'title generation failed'));
  };

  return async (app: FastifyInstance): Promise<void> => {
    app.post<{ Body: ChatRequest }>('/v1/chat', { bodyLimit: CHAT_BODY_LIMIT, schema: { body: CHAT_BODY }, preValidation: async (req) => rejectCoercibleContent(req.body) }, async (req, reply) => {
      const who = turnIdentity(req, ctx.tenantId);
      const prepared = ctx.engine.prepare(req.body, who);
      const ac = new AbortController();
      // The response closing before it finished means the client went away.
      const onClose = (): void => { if (!reply.raw.writableFinished) ac.abort(); };
      reply.raw.once('close', onClose);
      const sink: EventSink = () => {};
      let o: TurnOutcome;
      try {
        o = await ctx.engine.run(prepared, sink, ac.signal);
      } finally {
        reply.raw.off('close', onClose);
      }
      if (o.status === 'failed') {
        const code = o.error?.code ?? 'inference_error';
        throw new AppError(code === 'client_closed' ? 499 : statusForCode(code), code, o.error?.message ?? 'chat failed');
      }
      titleLater(prepared, who, o);
      const body: ChatResponse = {
        message: { role: 'assistant', content: o.content, processing_trace: o.trace, receipt: o.receipt },
        session_id: o.sessionId, agent_id: o.agentId, receipt: o.receipt, assistant_message_id: o.assistantMessageId, user_message_id: o.userMessageId,
      };
      return body;
    });

    app.post<{ Body: ChatRequest }>('/v1/chat/stream', { bodyLimit: CHAT_BODY_LIMIT, schema: { body: CHAT_BODY }, preValidation: async (req) => rejectCoercibleContent(req.body) }, async (req, reply) => {
      const who = turnIdentity(req, ctx.tenantId);
      const prepared = ctx.engine.prepare(req.body, who);
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
      const keepAlive = setInterval(() => { if (!res.destroyed) res.write(': keep-alive\n\n'); }, 15_000);
      keepAlive.unref();
      try {
        const o = await ctx.engine.run(prepared, sink, ac.signal);
        titleLater(prepared, who, o);
      } catch (err) {
        req.log.error({ err }, 'chat stream failed');
        sink('error', { message: 'internal error', code: 'internal_error' });
      } finally {
        clearInterval(keepAlive);
        if (!res.writableEnded) res.end();
      }
    });
  };
}
