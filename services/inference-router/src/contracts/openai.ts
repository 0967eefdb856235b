/**
 * OpenAI-compatible shapes of the inference router (spec "Inference router"; DESIGN.md:
 * `/v1/chat/completions` and `/v1/embeddings` through the gateway, `model` a role alias or a
 * concrete model id). The request schemas name the fields the router relies on; every other field
 * passes through to the provider. Answers of chat and embeddings are the provider's (or the local
 * engine's) OpenAI bodies, passed through as open objects.
 *
 * Request schemas emit exactly the JSON schemas the routes validated with before issue 10 (same
 * ajv messages and field paths on a 400).
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Nullable, OrNull, StringEnum } from '../../../shared/kit/schema.js';
import { AdapterKindSchema, ModelViewSchema, MODEL_ROLES } from './registry.js';

/** One typed content part of a chat message (`text`, `image_url`, ...). */
export interface ContentPart { type: string; text?: string; image_url?: unknown }

/** A tool call an assistant message carries. */
export interface ToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }

/** A function tool offered to the model. */
export interface FunctionTool { type: 'function'; function: { name: string; description?: string; parameters?: unknown; strict?: boolean } }

/** JSON schema of one chat message (role required; content a string, typed parts or null). */
export const ChatMessageSchema = Type.Object({
  role: StringEnum(['system', 'developer', 'user', 'assistant', 'tool'] as const),
  content: Type.Optional(Type.Unsafe<string | ContentPart[] | null>({ anyOf: [{ type: 'string' }, { type: 'array' }, { type: 'null' }] })),
  tool_calls: Type.Optional(Type.Unsafe<ToolCall[]>({ type: 'array' })),
  tool_call_id: Type.Optional(Type.String()),
});
/** OpenAI chat message. */
export type ChatMessage = Static<typeof ChatMessageSchema> & { name?: string };

const nullableInt = (min?: number) => Nullable(min === undefined ? Type.Integer() : Type.Integer({ minimum: min }));

/** JSON schema of the chat request (fields the router relies on; the rest passes through). */
export const ChatCompletionRequestSchema = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 512 }),
  messages: Type.Array(ChatMessageSchema, { minItems: 1, maxItems: 100_000 }),
  stream: Type.Optional(Type.Boolean()),
  stream_options: Type.Optional(Type.Unsafe<{ include_usage?: boolean } | null>({ type: ['object', 'null'] })),
  max_tokens: Type.Optional(nullableInt(1)),
  max_completion_tokens: Type.Optional(nullableInt(1)),
  temperature: Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], minimum: 0, maximum: 2 })),
  top_p: Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], minimum: 0, maximum: 1 })),
  seed: Type.Optional(nullableInt()),
  stop: Type.Optional(Type.Unsafe<string | string[] | null>({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 16 }, { type: 'null' }] })),
  tools: Type.Optional(Type.Array(Type.Unsafe<FunctionTool>({
    type: 'object', required: ['type'],
    properties: { type: { type: 'string' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
  }))),
});
/** The OpenAI chat completion request (fields the router reads; others, e.g. `tool_choice`, pass through). */
export type ChatRequest = Static<typeof ChatCompletionRequestSchema> & { tool_choice?: unknown; [k: string]: unknown };

/** JSON schema of the embeddings request (`input` a string or a list of up to 4096 items). */
export const EmbeddingsRequestSchema = Type.Object({
  model: Type.String({ minLength: 1, maxLength: 512 }),
  input: Type.Unsafe<string | unknown[]>({ anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, maxItems: 4096 }] }),
});
/** The OpenAI embeddings request (other fields pass through). */
export type EmbeddingsRequest = Static<typeof EmbeddingsRequestSchema> & { [k: string]: unknown };

/**
 * A provider's `chat.completion`, passed through unchanged (with `stream: true` the answer is a
 * `text/event-stream` of `chat.completion.chunk` ending `data: [DONE]`, written outside the serializer).
 */
export const ChatCompletionAnswerSchema = Type.Object({}, { additionalProperties: true });

/** A provider's embedding list, passed through unchanged (whatever JSON it answered). */
export const EmbeddingsAnswerSchema = Type.Unknown();

/** `GET /v1/models`: every provider's models, then the configured role aliases (`svc_role: true`). */
export const ModelListSchema = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelViewSchema) });
/** Answer of `GET /v1/models`. */
export type ModelList = Static<typeof ModelListSchema>;

/** One target of a role with its health, as `GET /v1/routes` shows it. */
export const RouteTargetSchema = Type.Object({
  provider_id: Type.String(),
  model: Type.String(),
  provider_name: OrNull(Type.String()),
  adapter: Type.Union([AdapterKindSchema, Type.Null()]),
  /** False when the provider is gone or no longer lists the model. */
  available: Type.Boolean(),
  /** RFC 3339 end of the cooldown of a backend that failed recently, else null. */
  cooling_down_until: OrNull(Type.String()),
});

/** One row of `GET /v1/routes`: a configured role's ordered targets with their health. */
export const RouteViewSchema = Type.Object({ role: StringEnum(MODEL_ROLES), targets: Type.Array(RouteTargetSchema) });
/** A role's route. */
export type RouteView = Static<typeof RouteViewSchema>;

/** `GET /v1/routes`. */
export const RouteListSchema = Type.Object({ items: Type.Array(RouteViewSchema) });
/** Answer of `GET /v1/routes`. */
export type RouteList = Static<typeof RouteListSchema>;

/** Response header naming the generation record (`GET /v1/generations/{id}`). */
export const GENERATION_ID_HEADER = 'x-svc-generation-id';
/** Response header naming the backend that served: `<provider name>/<model>`. */
export const ROUTE_HEADER = 'x-svc-route';
/** Response header carrying a soft-budget warning. */
export const BUDGET_WARNING_HEADER = 'x-svc-budget-warning';
/** Response header carrying the trace id of the request's server span. */
export const TRACE_ID_HEADER = 'x-svc-trace-id';
