/**
 * OpenAI-compatible routes (spec "Inference router"; DESIGN.md: `/v1/chat/completions` and
 * `/v1/embeddings` through the gateway, `model` a role alias or a concrete model id):
 * - `GET /v1/models` -> 200 `ModelList`: every provider's models, then the configured role aliases
 * - `GET /v1/routes` -> 200 `RouteList`: each configured role's ordered targets with health
 * - `POST /v1/chat/completions` body `ChatRequest` -> 200 `chat.completion`, or with `stream: true`
 *   a `text/event-stream` of `chat.completion.chunk` ending `data: [DONE]`; 499 (no body) when the
 *   client went away before an answer. Header `x-svc-generation-id` names the generation record.
 * - `POST /v1/embeddings` body `EmbeddingsRequest` -> 200 OpenAI embedding list
 * Errors `{error, code}`: 400 `invalid_request`; 404 `model_unknown`; 503 `role_not_configured`,
 * `role_no_backend`, `backend_unavailable`, `provider_key_missing`; 429 `budget_exceeded`.
 * The use cases live in domain/inference.ts; this file maps them to HTTP.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePrincipal } from '../../../shared/kit/principal.js';
import {
  ChatCompletionAnswerSchema, ChatCompletionRequestSchema, EmbeddingsAnswerSchema, EmbeddingsRequestSchema, ModelListSchema, NoContent, RouteListSchema, type ChatRequest, type EmbeddingsRequest,
} from '../contracts.js';
import { listModels, listRoutes } from '../domain/catalog.js';
import type { InferenceService } from '../domain/inference.js';
import type { WeightHashes } from '../domain/ports.js';
import type { Cooldowns, Snapshot } from '../domain/snapshot.js';
import { answerHeaders } from './headers.js';
import { writeSse } from './sse.js';

/** Options of `openaiRoutes`. */
export interface OpenaiRoutesOptions {
  inference: InferenceService;
  snapshot: () => Snapshot;
  cooldowns: Cooldowns;
  hashes: WeightHashes;
}

/** Register the OpenAI-compatible routes. */
export const openaiRoutes: FastifyPluginAsyncTypebox<OpenaiRoutesOptions> = async (app, { inference, snapshot, cooldowns, hashes }) => {
  app.get('/v1/models', { schema: { response: { 200: ModelListSchema } } }, async () => listModels(snapshot(), hashes));

  app.get('/v1/routes', { schema: { response: { 200: RouteListSchema } } }, async () => listRoutes(snapshot(), cooldowns));

  app.post('/v1/chat/completions', { schema: { body: ChatCompletionRequestSchema, response: { 200: ChatCompletionAnswerSchema, 499: NoContent } } }, async (req, reply) => {
    const p = requirePrincipal(req);
    const raw = reply.raw;
    let ac: AbortController | null = null;
    const onClose = (): void => { if (!raw.writableFinished) ac?.abort(); };
    const out = await inference.chat(req.body as ChatRequest, {
      userId: p.id, turnId: req.turnId, span: req.routerSpan,
      // Watch the connection once the backends are known: a client gone earlier still gets its answer written.
      clientSignal: () => { ac = new AbortController(); raw.once('close', onClose); return ac.signal; },
    });
    if (out.kind === 'aborted') return reply.code(499).send();
    if (out.kind === 'stream') { await writeSse(reply, out.meta, out.stream, ac!.signal); return reply; }
    raw.off('close', onClose);
    return reply.headers(answerHeaders(out.meta)).send(out.body);
  });

  app.post('/v1/embeddings', { schema: { body: EmbeddingsRequestSchema, response: { 200: EmbeddingsAnswerSchema } } }, async (req, reply) => {
    const p = requirePrincipal(req);
    const out = await inference.embeddings(req.body as EmbeddingsRequest, { userId: p.id, turnId: req.turnId, span: req.routerSpan });
    return reply.headers(answerHeaders(out.meta)).send(out.body);
  });
};
