/**
 * The gateway's `POST /v1/chat/agui/stream` handler (spec "Chat": "The AG-UI stream is produced by
 * the gateway from the upstream stream", records `data: <json>` only; "Versioning" 2).
 *
 * The `gateway-agui` plugin (routes/agui.ts) calls `aguiStreamHandler(req, reply, forwardToRuntime)`
 * after the admission chain (bearer, stamping, `turn_started`) ran. `forwardToRuntime(body?)` opens the runtime's
 * `POST /v1/chat/stream` with the stamped headers (and `body`, default the request's) and returns the
 * upstream answer with its body as a stream.
 *
 * Answers:
 * - 200 `text/event-stream` of AG-UI events (translate.ts), RUN_STARTED first and RUN_FINISHED or
 *   RUN_ERROR last; a provider that is missing arrives as `RUN_ERROR {code: backend_unavailable}`;
 * - the runtime's own status and `{error, code}` body when it refused the request before streaming
 *   (400 `invalid_request`, 404 `session_not_found`, 401...);
 * - 502 `{"error":"service unavailable"}` when the runtime cannot be reached (spec "Errors").
 *
 * `threadId` is the session id (from the request, or the runtime's `session_created`); `runId` is
 * the turn id (`X-Svc-Turn-Id`), so a client finds the receipt of the run.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_UNAVAILABLE_BODY } from '../contracts.js';
import { SseParser } from './sse.js';
import { AguiSchemaError, AguiTranslator, aguiRecord, type AguiEvent } from './translate.js';

/** The runtime's answer as `forwardToRuntime` returns it. */
export interface UpstreamStream {
  statusCode: number;
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>;
  body: Readable;
}

/**
 * Opens the upstream `POST /v1/chat/stream` with the gateway-stamped headers.
 * @param body the bytes to send; default the inbound request's body.
 * @throws when the runtime cannot be reached (the handler answers 502).
 */
export type ForwardToRuntime = (body?: Buffer) => Promise<UpstreamStream>;

function header(h: UpstreamStream['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The session id named by the request body, when it is JSON and names one. */
export function sessionIdOf(body: unknown): string | null {
  let parsed: unknown = body;
  if (Buffer.isBuffer(body)) {
    try { parsed = JSON.parse(body.toString('utf8')); } catch { return null; }
  } else if (typeof body === 'string') {
    try { parsed = JSON.parse(body); } catch { return null; }
  }
  const sid = (parsed as { session_id?: unknown } | null)?.session_id;
  return typeof sid === 'string' && sid.length > 0 && sid.length <= 128 ? sid : null;
}

/**
 * Serve one AG-UI stream. Resolves once the answer is started (the stream then runs on its own);
 * the gateway route returns `reply` after awaiting it.
 */
export async function aguiStreamHandler(req: FastifyRequest, reply: FastifyReply, forwardToRuntime: ForwardToRuntime): Promise<void> {
  let upstream: UpstreamStream;
  try {
    upstream = await forwardToRuntime();
  } catch (err) {
    req.log.warn({ err: (err as Error).message }, 'agent runtime unavailable for the AG-UI stream');
    await reply.code(502).type('application/json').send(SERVICE_UNAVAILABLE_BODY);
    return;
  }
  const type = header(upstream.headers, 'content-type') ?? '';
  if (upstream.statusCode !== 200 || !type.includes('text/event-stream')) {
    // Refused before streaming: pass the runtime's status and error body through.
    const chunks: Buffer[] = [];
    for await (const c of upstream.body) chunks.push(typeof c === 'string' ? Buffer.from(c) : c as Buffer);
    await reply.code(upstream.statusCode === 200 ? 502 : upstream.statusCode).type(type || 'application/json')
      .send(upstream.statusCode === 200 ? SERVICE_UNAVAILABLE_BODY : Buffer.concat(chunks));
    return;
  }
  const turnId = header(upstream.headers, 'x-svc-turn-id') ?? (reply.getHeader('x-svc-turn-id') as string | undefined) ?? randomUUID();
  const translator = new AguiTranslator({ runId: turnId, threadId: sessionIdOf(req.body) });
  const parser = new SseParser();
  const out = new PassThrough();
  out.on('close', () => { if (!upstream.body.destroyed) upstream.body.destroy(); });
  void reply.code(200).headers({
    'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no', 'x-svc-turn-id': turnId,
  }).send(out);

  const write = async (events: AguiEvent[]): Promise<void> => {
    for (const e of events) {
      if (out.destroyed) return;
      if (!out.write(aguiRecord(e))) await new Promise<void>((r) => { out.once('drain', r); out.once('close', r); });
    }
  };
  const translate = (fn: () => AguiEvent[]): AguiEvent[] => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof AguiSchemaError)) throw err;
      req.log.error({ err: err.message }, 'AG-UI translation produced an invalid event');
      return translator.fail('the stream could not be translated', 'translation_error');
    }
  };
  void (async () => {
    try {
      upstream.body.setEncoding('utf8');
      for await (const chunk of upstream.body) {
        for (const rec of parser.push(chunk as string)) await write(translate(() => translator.push(rec)));
        if (translator.done) break;
      }
      if (!translator.done) for (const rec of parser.end()) await write(translate(() => translator.push(rec)));
      await write(translate(() => translator.end()));
    } catch (err) {
      if (!out.destroyed) {
        req.log.warn({ err: (err as Error).message }, 'AG-UI upstream stream broke');
        await write(translate(() => translator.fail('the upstream stream broke', 'backend_unavailable'))).catch(() => undefined);
      }
    } finally {
      if (!upstream.body.destroyed) upstream.body.destroy();
      out.end();
    }
  })();
}
