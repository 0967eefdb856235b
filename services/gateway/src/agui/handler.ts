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
 *
 * Issue 17 item 5: the body may also be AG-UI's own `RunAgentInput` (run-input.ts): a malformed one
 * answers 400 `{error, code: invalid_request}` before anything is sent upstream; a valid one is
 * mapped to the chat body (threadId -> session, retried as a new session when the runtime does not
 * know it). Such a run ends on a tool approval with an AG-UI interrupt and is resumed by a
 * RunAgentInput whose `resume` answers it (interrupts.ts).
 */
import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SERVICE_UNAVAILABLE_BODY } from '../contracts.js';
import { SseParser } from './sse.js';
import { AguiSchemaError, AguiTranslator, aguiRecord, type AguiEvent } from './translate.js';
import { chatBodyOf, readRunInput, resumeDecisions } from './run-input.js';
import { dropRun, findPaused, pauseRun, pauseTtl, type RunSource } from './interrupts.js';
import type { RunAgentInput } from '@ag-ui/core';
import type { TurnSeal } from '../plugins/admission-steps.js';

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

/** A decision answer of the runtime's approvals API. */
export interface DecisionAnswer { statusCode: number; body: Buffer }

/** What the handler needs beyond the stream (issue 17 item 5). */
export interface AguiHandlerOptions {
  /**
   * Decide an approval as the caller (`POST /v1/user/approvals/{id}/approve|reject` of the runtime);
   * absent = resuming an interrupt is refused (404 `interrupt_not_found`).
   */
  decideApproval?(approvalId: string, approve: boolean, reason?: string): Promise<DecisionAnswer>;
  /** The caller (`<tenant>/<user id>`): a paused run is resumed only by who ran it. */
  caller?: string | null;
  /**
   * Several gateways (issue 21): a run was paused here on approval ids `ids` for `ttlMs` (tell the
   * shared directory) / was resumed here (forget it). Called without waiting; they must not throw.
   */
  onPaused?(ids: readonly string[], ttlMs: number): void;
  onResumed?(ids: readonly string[]): void;
  /**
   * A resume whose run is not paused here: answer it from the gateway holding the run, when another
   * one does. @returns true when `reply` was answered (forwarded), false to answer 404 here.
   */
  forwardResume?(approvalIds: readonly string[]): Promise<boolean>;
}

/** A thread id the runtime could know as a session id (its id pattern). */
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

async function collect(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(typeof c === 'string' ? Buffer.from(c) : c as Buffer);
  return Buffer.concat(chunks);
}

function codeOf(body: Buffer): string | undefined {
  try { return (JSON.parse(body.toString('utf8')) as { code?: string }).code; } catch { return undefined; }
}

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
export async function aguiStreamHandler(req: FastifyRequest, reply: FastifyReply, forwardToRuntime: ForwardToRuntime, opts: AguiHandlerOptions = {}): Promise<void> {
  const read = readRunInput(req.body);
  if (read.kind === 'invalid') {
    await reply.code(400).type('application/json').send({ error: read.message, code: 'invalid_request' });
    return;
  }
  if (read.kind === 'input' && read.input.resume?.length) { await resumeRun(req, reply, read.input, opts); return; }
  let upstream: UpstreamStream;
  let threadId = read.kind === 'input' ? null : sessionIdOf(req.body);
  try {
    if (read.kind === 'input') {
      const withSession = SESSION_ID.test(read.input.threadId);
      upstream = await forwardToRuntime(Buffer.from(JSON.stringify(chatBodyOf(read.input, withSession))));
      if (withSession && upstream.statusCode === 404) {
        const refused = await collect(upstream.body);
        if (codeOf(refused) === 'session_not_found') upstream = await forwardToRuntime(Buffer.from(JSON.stringify(chatBodyOf(read.input, false))));
        else upstream = { ...upstream, body: Readable.from([refused]) };
      } else if (withSession) threadId = read.input.threadId;
    } else upstream = await forwardToRuntime();
  } catch (err) {
    req.log.warn({ err: (err as Error).message }, 'agent runtime unavailable for the AG-UI stream');
    await reply.code(502).type('application/json').send(SERVICE_UNAVAILABLE_BODY);
    return;
  }
  const type = header(upstream.headers, 'content-type') ?? '';
  if (upstream.statusCode !== 200 || !type.includes('text/event-stream')) {
    // Refused before streaming: pass the runtime's status and error body through.
    const refused = await collect(upstream.body);
    await reply.code(upstream.statusCode === 200 ? 502 : upstream.statusCode).type(type || 'application/json')
      .send(upstream.statusCode === 200 ? SERVICE_UNAVAILABLE_BODY : refused);
    return;
  }
  const turnId = header(upstream.headers, 'x-svc-turn-id') ?? (reply.getHeader('x-svc-turn-id') as string | undefined) ?? randomUUID();
  upstream.body.setEncoding('utf8');
  const src: RunSource = { body: upstream.body, it: upstream.body[Symbol.asyncIterator]() as AsyncIterator<string>, parser: new SseParser(), pending: [] };
  streamRun(req, reply, src, new AguiTranslator({ runId: turnId, threadId, interrupts: read.kind === 'input' }), turnId, opts.caller ?? null, null, opts);
}

/**
 * Resume a run paused on interrupts: decide each approval as the caller, then stream the rest of
 * the paused turn. Answers 404 `interrupt_not_found` when no paused run waits on the entries, and a
 * decision's refusal (404 `approval_not_found`, ...) as the runtime answered it, before RUN_STARTED.
 */
async function resumeRun(req: FastifyRequest, reply: FastifyReply, input: RunAgentInput, opts: AguiHandlerOptions): Promise<void> {
  const decisions = resumeDecisions(input);
  const run = findPaused(decisions.map((d) => d.approvalId), opts.caller ?? null);
  if (!run && opts.forwardResume && await opts.forwardResume(decisions.map((d) => d.approvalId))) return;
  if (!run || !opts.decideApproval) {
    await reply.code(404).type('application/json').send({ error: 'no paused run waits on these interrupts', code: 'interrupt_not_found' });
    return;
  }
  for (const d of decisions) {
    let ans: DecisionAnswer;
    try {
      ans = await opts.decideApproval(d.approvalId, d.approve, d.reason);
    } catch (err) {
      req.log.warn({ err: (err as Error).message }, 'agent runtime unavailable for an approval decision');
      await reply.code(502).type('application/json').send(SERVICE_UNAVAILABLE_BODY);
      return;
    }
    // 409: decided already (e.g. from the approvals page): the paused turn went on; stream it.
    if (ans.statusCode >= 300 && ans.statusCode !== 409) { await reply.code(ans.statusCode).type('application/json').send(ans.body); return; }
  }
  if (!dropRun(run)) {
    await reply.code(404).type('application/json').send({ error: 'no paused run waits on these interrupts', code: 'interrupt_not_found' });
    return;
  }
  opts.onResumed?.(run.ids);
  streamRun(req, reply, run.src, new AguiTranslator({ runId: run.turnId, threadId: run.threadId, interrupts: true }), run.turnId, run.owner, run.seal, opts);
}

/** Answer 200 and translate `src` into the reply; a run ending on an interrupt is paused, its upstream kept. */
function streamRun(
  req: FastifyRequest, reply: FastifyReply, src: RunSource, translator: AguiTranslator, turnId: string, owner: string | null, seal: TurnSeal | null,
  opts: Pick<AguiHandlerOptions, 'onPaused'>,
): void {
  const out = new PassThrough();
  let paused = false;
  let broke = false;
  out.on('close', () => { if (!paused && !src.body.destroyed) src.body.destroy(); });
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
      while (src.pending.length && !translator.done) await write(translate(() => translator.push(src.pending.shift()!)));
      while (!translator.done) {
        const next = await src.it.next();
        if (next.done) break;
        const recs = src.parser.push(next.value);
        while (recs.length && !translator.done) await write(translate(() => translator.push(recs.shift()!)));
        src.pending = recs;
      }
      if (!translator.done) for (const rec of src.parser.end()) await write(translate(() => translator.push(rec)));
      await write(translate(() => translator.end()));
      if (translator.interrupted.length && !out.destroyed && !src.body.destroyed) {
        paused = true;
        // The turn goes on after the resume: its terminal event waits for the continuation's end.
        const ttl = pauseTtl(translator.interruptExpiries);
        pauseRun(src, turnId, translator.thread, translator.interrupted, owner, seal ?? req.gw?.deferTerminal() ?? null, ttl);
        opts.onPaused?.(translator.interrupted, ttl);
      }
    } catch (err) {
      broke = true;
      if (!out.destroyed) {
        req.log.warn({ err: (err as Error).message }, 'AG-UI upstream stream broke');
        await write(translate(() => translator.fail('the upstream stream broke', 'backend_unavailable'))).catch(() => undefined);
      }
    } finally {
      if (!paused && !src.body.destroyed) src.body.destroy();
      // A resumed run ends the paused turn here (its own request's turn ends as usual).
      if (!paused) seal?.(200, broke || out.destroyed);
      out.end();
    }
  })();
}
