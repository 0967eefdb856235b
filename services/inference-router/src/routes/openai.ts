/**
 * OpenAI-compatible routes (spec "Inference router"; DESIGN.md: `/v1/chat/completions` and
 * `/v1/embeddings` through the gateway, `model` a role alias or a concrete model id):
 * - `GET /v1/models` -> 200 `{object: "list", data: ModelView[]}`: every provider's models, then the
 *   configured role aliases (`svc_role: true`)
 * - `GET /v1/routes` -> 200 `{items: RouteView[]}`: each configured role's ordered targets with health
 * - `POST /v1/chat/completions` body OpenAI chat request -> 200 `chat.completion`, or with
 *   `stream: true` a `text/event-stream` of `chat.completion.chunk` ending `data: [DONE]`.
 *   Response header `x-svc-generation-id` names the generation record (GET /v1/generations/{id}).
 * - `POST /v1/embeddings` body `{model, input, ...}` -> 200 OpenAI embedding list
 * Errors `{error, code}`: 400 `invalid_request`; 404 `model_unknown`; 503 `role_not_configured`,
 * `role_no_backend`, `backend_unavailable`, `provider_key_missing`; 429 `budget_exceeded`.
 * A role's targets are tried in order; a failing backend cools down (see `Cooldowns`). Once a stream
 * has started, a failure is sent as a final `data: {"error": {...}}` event.
 */
import { once } from 'node:events';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/http/errors.js';
import { requirePrincipal } from '../../../shared/http/server.js';
import { ulidFactory } from '../../../shared/identity/ulid.js';
import type { ActiveSpan } from '../../../observability/src/client.js';
import type { GenerationInput } from '../../../observability/src/contracts.js';
import { readText, send } from '../adapters/http.js';
import { localDeterministic } from '../adapters/local.js';
import { UpstreamError, type Backend, type ChatRequest, type Usage } from '../adapters/types.js';
import { MODEL_ROLES, type ModelView, type RouteView } from '../contracts.js';
import type { RouterContext } from '../domain/context.js';

declare module 'fastify' {
  interface FastifyRequest { routerSpan: ActiveSpan | null }
}

const nextEventId = ulidFactory();

/** JSON schema of the chat request (fields the router relies on; the rest passes through). */
export const CHAT_SCHEMA = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 512 },
    messages: {
      type: 'array', minItems: 1, maxItems: 100_000,
      items: {
        type: 'object', required: ['role'],
        properties: {
          role: { type: 'string', enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
          content: { anyOf: [{ type: 'string' }, { type: 'array' }, { type: 'null' }] },
          tool_calls: { type: 'array' }, tool_call_id: { type: 'string' },
        },
      },
    },
    stream: { type: 'boolean' },
    stream_options: { type: ['object', 'null'] },
    max_tokens: { type: ['integer', 'null'], minimum: 1 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    seed: { type: ['integer', 'null'] },
    stop: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 16 }, { type: 'null' }] },
    tools: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } } },
  },
} as const;

const EMBEDDINGS_SCHEMA = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 512 },
    input: { anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, maxItems: 4096 }] },
  },
} as const;

/** State of one call while it runs, for its generation record. */
interface CallState {
  eventId: string;
  createdAt: string;
  t0: number;
  requestedModel: string;
  role: string | null;
  stream: boolean;
  attempts: number;
  backend: Backend | null;
  providerVersion: string | null;
  ttftMs: number | null;
  usage: Usage | null;
  deterministic: boolean;
}

function ms(t0: number): number { return Math.round((performance.now() - t0) * 1000) / 1000; }

/** Register the OpenAI-compatible routes. */
export function openaiRoutes(ctx: RouterContext) {
  /** Post the call's generation record (background; weight hash awaited for local models). */
  function record(req: FastifyRequest, st: CallState, status: GenerationInput['status'], httpStatus: number, errorCode: string | null): void {
    const p = req.principal;
    const span = req.routerSpan;
    const b = st.backend;
    const latency = ms(st.t0);
    const u = st.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    void (async () => {
      let weightHash: string | null = null;
      if (b?.adapter === 'local' && b.modelPath) {
        const f = ctx.registry.localModels.find((x) => x.path === b.modelPath);
        weightHash = f ? await ctx.hasher.hash(f).catch(() => null) : null;
      }
      ctx.reporter.report({
        event_id: st.eventId, created_at: st.createdAt, user_id: p?.id ?? null, turn_id: req.turnId, trace_id: span?.traceId ?? null, span_id: span?.spanId ?? null,
        role: st.role, requested_model: st.requestedModel, model: b?.model ?? st.requestedModel, provider_id: b?.providerId ?? 'none', provider_name: b?.providerName ?? 'none',
        backend: b ? (b.adapter === 'local' ? 'local_llama_cpp' : b.adapter) : 'none', provider_version: st.providerVersion,
        deterministic: b?.adapter === 'local' ? st.deterministic : false, weight_hash: weightHash, stream: st.stream, status, error_code: errorCode,
        http_status: httpStatus, latency_ms: latency, ttft_ms: st.ttftMs, prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens,
        total_tokens: u.total_tokens, attempts: st.attempts,
      }, span ? span.traceparent() : null);
      if (st.usage) ctx.budget.invalidate();
    })();
  }

  /** Budget gate: 429 on a hard limit; returns a warning header value on a soft one. */
  async function budgetGate(): Promise<string | null> {
    const b = await ctx.budget.status();
    if (b?.state === 'hard_exceeded') {
      throw new AppError(429, 'budget_exceeded', `the ${b.period}ly budget of tenant ${b.tenant_id} is spent (${b.spend_usd} of ${b.hard_limit_usd} USD); an admin can raise it`);
    }
    return b?.state === 'soft_exceeded' ? `soft budget reached: ${b.spend_usd} of ${b.soft_limit_usd} USD this ${b.period}` : null;
  }

  function finalError(errors: UpstreamError[], what: string): AppError {
    const detail = errors.map((e) => e.message).join('; ');
    if (errors.length > 0 && errors.every((e) => e.kind === 'key_missing')) return new AppError(503, 'provider_key_missing', `${what}: ${detail}`);
    return new AppError(503, 'backend_unavailable', `no backend could serve ${what}: ${detail}`);
  }

  function headersFor(st: CallState, warning: string | null): Record<string, string> {
    const h: Record<string, string> = { 'x-svc-generation-id': st.eventId };
    if (st.backend) h['x-svc-route'] = `${st.backend.providerName}/${st.backend.model}`;
    if (warning) h['x-svc-budget-warning'] = warning;
    return h;
  }

  async function streamTo(req: FastifyRequest, reply: FastifyReply, st: CallState, pieces: AsyncIterable<{ sse: string | Buffer; content: boolean; usage: Usage | null }>, warning: string | null, ac: AbortController, attemptSpan: ActiveSpan): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...headersFor(st, warning) });
    const closed = once(res, 'close').catch(() => undefined);
    let corked = false;
    const uncork = (): void => { if (corked) { corked = false; res.uncork(); } };
    let status: GenerationInput['status'] = 'ok';
    let code: string | null = null;
    try {
      for await (const p of pieces) {
        if (p.content && st.ttftMs === null) st.ttftMs = ms(st.t0);
        if (p.usage) st.usage = p.usage;
        if (p.sse.length > 0) {
          // Coalesce the pieces that arrive within one event-loop turn into one socket write.
          if (!corked) { corked = true; res.cork(); setImmediate(uncork); }
          if (!res.write(p.sse)) { uncork(); await Promise.race([once(res, 'drain'), closed]); }
        }
        if (ac.signal.aborted) break;
      }
      if (ac.signal.aborted) { status = 'aborted'; code = 'client_closed'; }
    } catch (err) {
      if (ac.signal.aborted) { status = 'aborted'; code = 'client_closed'; } else {
        status = 'error'; code = 'backend_unavailable';
        ctx.cooldowns.fail(st.backend!);
        const msg = err instanceof Error ? err.message : String(err);
        if (!res.destroyed) res.write(`data: ${JSON.stringify({ error: { message: `the stream from ${st.backend!.providerName} broke: ${msg}`, code } })}\n\n`);
      }
    }
    uncork();
    if (!res.destroyed) res.end();
    attemptSpan.end(status === 'error' ? 'error' : 'ok', { 'gen_ai.usage.input_tokens': st.usage?.prompt_tokens ?? null, 'gen_ai.usage.output_tokens': st.usage?.completion_tokens ?? null, outcome: status });
    req.routerSpan?.end(status === 'error' ? 'error' : 'ok', { 'http.status_code': 200, outcome: status });
    record(req, st, status, 200, code);
  }

  return async (app: FastifyInstance): Promise<void> => {
    app.get('/v1/models', async () => {
      const snap = ctx.registry.snapshot;
      const data: ModelView[] = [];
      for (const p of snap.providers.values()) {
        const created = p.createdAt ? Math.floor(Date.parse(p.createdAt) / 1000) : 0;
        for (const m of p.models) {
          const v: ModelView = { id: m, object: 'model', created, owned_by: p.name, provider_id: p.id };
          if (p.adapter === 'local') v.weight_hash = ctx.hasher.peek(p.paths?.get(m) ?? '');
          data.push(v);
        }
      }
      for (const role of MODEL_ROLES) if (snap.roles.has(role)) data.push({ id: role, object: 'model', created: 0, owned_by: 'svc', provider_id: null, svc_role: true });
      return { object: 'list', data };
    });

    app.get('/v1/routes', async () => {
      const snap = ctx.registry.snapshot;
      const items: RouteView[] = [];
      for (const role of MODEL_ROLES) {
        const targets = snap.roles.get(role);
        if (!targets) continue;
        items.push({
          role, targets: targets.map((t) => {
            const p = snap.providers.get(t.provider_id);
            const b = snap.backend(t);
            const until = b ? ctx.cooldowns.coolingUntil(b) : null;
            return {
              ...t, provider_name: p?.name ?? null, adapter: p ? (p.adapter === 'local' ? 'chat_completions' : p.adapter) : null, available: b !== null,
              cooling_down_until: until === null ? null : new Date(until).toISOString(),
            };
          }),
        });
      }
      return { items };
    });

    app.post<{ Body: ChatRequest }>('/v1/chat/completions', { schema: { body: CHAT_SCHEMA } }, async (req, reply) => {
      requirePrincipal(req);
      const body = req.body;
      const st: CallState = {
        eventId: nextEventId(), createdAt: new Date().toISOString(), t0: performance.now(), requestedModel: body.model, role: null, stream: body.stream === true,
        attempts: 0, backend: null, providerVersion: null, ttftMs: null, usage: null, deterministic: localDeterministic(body),
      };
      req.routerSpan?.set({ 'gen_ai.request.model': body.model, stream: st.stream, 'svc.generation_id': st.eventId });
      let warning: string | null;
      let candidates: Backend[];
      try {
        warning = await budgetGate();
        const r = ctx.registry.snapshot.resolve(body.model);
        st.role = r.role;
        candidates = ctx.cooldowns.order(r.backends);
      } catch (err) {
        if (err instanceof AppError) record(req, st, 'error', err.status, err.code);
        throw err;
      }
      const ac = new AbortController();
      const onClose = (): void => { if (!reply.raw.writableFinished) ac.abort(); };
      reply.raw.once('close', onClose);
      const errors: UpstreamError[] = [];
      for (const b of candidates) {
        st.attempts++;
        st.backend = b;
        const attempt = (req.routerSpan ?? ctx.tracer.start('chat', 'server', null)).child(`chat ${b.providerName}/${b.model}`, 'client')
          .set({ 'gen_ai.system': b.adapter, 'gen_ai.request.model': b.model, 'svc.provider_id': b.providerId, attempt: st.attempts });
        const adapter = ctx.adapters[b.adapter];
        const call = { signal: ac.signal, traceparent: attempt.traceparent(), timeoutMs: ctx.cfg.upstreamTimeoutMs, dispatcher: ctx.dispatcher };
        try {
          if (st.stream) {
            const sr = await adapter.stream(b, body, call);
            st.providerVersion = sr.providerVersion;
            ctx.cooldowns.ok(b);
            await streamTo(req, reply, st, sr.pieces, warning, ac, attempt);
            st.providerVersion = sr.providerVersion;
            return reply;
          }
          const cr = await adapter.complete(b, body, call);
          ctx.cooldowns.ok(b);
          st.providerVersion = cr.providerVersion; st.usage = cr.usage; st.ttftMs = ms(st.t0);
          attempt.end('ok', { 'gen_ai.usage.input_tokens': cr.usage?.prompt_tokens ?? null, 'gen_ai.usage.output_tokens': cr.usage?.completion_tokens ?? null });
          record(req, st, 'ok', 200, null);
          reply.raw.off('close', onClose);
          return reply.headers(headersFor(st, warning)).send(cr.body);
        } catch (err) {
          if (!(err instanceof UpstreamError)) { attempt.end('error'); throw err; }
          attempt.end('error', { error: err.message, 'error.kind': err.kind });
          if (err.kind === 'aborted') { record(req, st, 'aborted', 499, 'client_closed'); return reply.code(499).send(); }
          if (!err.retryable) {
            const e = new AppError(err.status === 413 ? 413 : 400, 'invalid_request', err.message);
            record(req, st, 'error', e.status, e.code);
            throw e;
          }
          ctx.log.warn({ provider: b.providerName, model: b.model, kind: err.kind, err: err.message }, 'backend failed; trying the next');
          ctx.cooldowns.fail(b);
          errors.push(err);
        }
      }
      const e = finalError(errors, `model "${body.model}"`);
      record(req, st, 'error', e.status, e.code);
      throw e;
    });

    app.post<{ Body: { model: string; input: unknown; [k: string]: unknown } }>('/v1/embeddings', { schema: { body: EMBEDDINGS_SCHEMA } }, async (req, reply) => {
      requirePrincipal(req);
      const body = req.body;
      const st: CallState = {
        eventId: nextEventId(), createdAt: new Date().toISOString(), t0: performance.now(), requestedModel: body.model, role: null, stream: false,
        attempts: 0, backend: null, providerVersion: null, ttftMs: null, usage: null, deterministic: false,
      };
      let warning: string | null;
      let candidates: Backend[];
      try {
        warning = await budgetGate();
        const r = ctx.registry.snapshot.resolve(body.model);
        st.role = r.role;
        candidates = ctx.cooldowns.order(r.backends).filter((b) => b.adapter !== 'local');
        if (candidates.length === 0) throw new AppError(400, 'invalid_request', `model "${body.model}" is served by the local engine, which does not compute embeddings`);
      } catch (err) {
        if (err instanceof AppError) record(req, st, 'error', err.status, err.code);
        throw err;
      }
      const errors: UpstreamError[] = [];
      for (const b of candidates) {
        st.attempts++;
        st.backend = b;
        const attempt = (req.routerSpan ?? ctx.tracer.start('embeddings', 'server', null)).child(`embeddings ${b.providerName}/${b.model}`, 'client');
        try {
          const res = await send(ctx.dispatcher, `${b.baseUrl}/embeddings`, {
            method: 'POST', body: JSON.stringify({ ...body, model: b.model }), apiKey: b.apiKey, traceparent: attempt.traceparent(), timeoutMs: ctx.cfg.upstreamTimeoutMs,
          });
          const json = JSON.parse(await readText(res.body, 256 * 1024 * 1024)) as { usage?: { prompt_tokens?: number; total_tokens?: number } };
          ctx.cooldowns.ok(b);
          const pt = Number(json.usage?.prompt_tokens ?? json.usage?.total_tokens ?? 0) || 0;
          st.usage = { prompt_tokens: pt, completion_tokens: 0, total_tokens: pt };
          st.ttftMs = ms(st.t0);
          attempt.end('ok');
          record(req, st, 'ok', 200, null);
          return reply.headers(headersFor(st, warning)).send(json);
        } catch (err) {
          attempt.end('error');
          if (!(err instanceof UpstreamError)) {
            if (err instanceof SyntaxError) { errors.push(new UpstreamError(`${b.providerName} answered something other than JSON`, 'bad_response')); ctx.cooldowns.fail(b); continue; }
            throw err;
          }
          if (!err.retryable) {
            const e = new AppError(400, 'invalid_request', err.message);
            record(req, st, 'error', e.status, e.code);
            throw e;
          }
          ctx.cooldowns.fail(b);
          errors.push(err);
        }
      }
      const e = finalError(errors, `embeddings model "${body.model}"`);
      record(req, st, 'error', e.status, e.code);
      throw e;
    });
  };
}
