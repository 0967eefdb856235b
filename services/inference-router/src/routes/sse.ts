/**
 * Streaming chat answers as HTTP (spec "Inference router": `text/event-stream` of
 * `chat.completion.chunk` ending `data: [DONE]`): the reply is taken over from fastify, the
 * provider's SSE pieces are written as they come (pieces arriving within one event-loop turn are
 * coalesced into one socket write; backpressure waits for `drain`), and a stream that breaks after it
 * started ends with a final `data: {"error": {...}}` event.
 */
import { once } from 'node:events';
import type { FastifyReply } from 'fastify';
import type { AnswerMeta, ChatStream } from '../domain/inference.js';
import { answerHeaders } from './headers.js';

/**
 * Write `stream` to the client as SSE and report its end to the domain.
 * @param signal aborted when the client went away (the stream then ends `aborted`).
 */
export async function writeSse(reply: FastifyReply, meta: AnswerMeta, stream: ChatStream, signal: AbortSignal): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...answerHeaders(meta) });
  const closed = once(res, 'close').catch(() => undefined);
  let corked = false;
  const uncork = (): void => { if (corked) { corked = false; res.uncork(); } };
  let status: 'ok' | 'aborted' | 'error' = 'ok';
  try {
    for await (const p of stream.pieces) {
      if (p.sse.length > 0) {
        // Coalesce the pieces that arrive within one event-loop turn into one socket write.
        if (!corked) { corked = true; res.cork(); setImmediate(uncork); }
        if (!res.write(p.sse)) { uncork(); await Promise.race([once(res, 'drain'), closed]); }
      }
      if (signal.aborted) break;
    }
    if (signal.aborted) status = 'aborted';
  } catch (err) {
    if (signal.aborted) status = 'aborted'; else {
      status = 'error';
      const event = stream.broke(err);
      if (!res.destroyed) res.write(`data: ${JSON.stringify({ error: event })}\n\n`);
    }
  }
  uncork();
  if (!res.destroyed) res.end();
  stream.end(status);
}
