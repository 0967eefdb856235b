/**
 * Chat contracts (spec "Chat request and response", "Chat stream events", "Receipt", "Limits"):
 * the request body of `POST /v1/chat` and `/v1/chat/stream`, the JSON answer, the processing trace,
 * the receipt reference and the stream events.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { AgentId, Id, InOrder, OrNull, StringEnum } from './atoms.js';
import { ToolPolicySchema } from './settings.js';

/** Largest text of one message, characters. */
export const MAX_MESSAGE_CHARS = 200_000;

/** Largest chat body, bytes (images travel inline as data URLs). */
export const CHAT_BODY_LIMIT = 32 * 1024 * 1024;

/** Longest `tool_result.result` in the stream, characters (spec "Limits"). */
export const TOOL_RESULT_STREAM_LIMIT = 2000;

/** A text part of a multimodal message (OpenAI chat format). */
export const TextPartSchema = Type.Object({ type: Type.Literal('text'), text: Type.String({ maxLength: MAX_MESSAGE_CHARS }) });

/** An image part: an http(s) URL or a `data:image/...` URL. */
export const ImagePartSchema = Type.Object({
  type: Type.Literal('image_url'),
  image_url: Type.Object({
    url: Type.String({ minLength: 1, maxLength: 20_000_000, pattern: '^(https?://|data:image/)' }),
    detail: Type.Optional(StringEnum(['auto', 'low', 'high'] as const)),
  }),
});

/** Most file parts in one chat request (issue 12 item 7). */
export const MAX_FILE_PARTS = 10;

/** Largest attached document, bytes (one sandbox copy call carries it as base64). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Largest sum of the attached documents of one request, bytes. */
export const MAX_ATTACHMENTS_TOTAL_BYTES = 32 * 1024 * 1024;

/** Where the runtime copies attached documents in the sandbox workspace (`data/<file name>`). */
export const ATTACHMENT_DIR = 'data';

/** A knowledge document id as a file part names it. */
const DocumentId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' });

/**
 * A file part (issue 12 item 7): an uploaded knowledge document the user may read, copied into the
 * chat's sandbox workspace before the model runs. Requests carry `{type: "file", document_id}`; the
 * runtime stores the part with `filename` and the workspace `path` it copied it to, or `error` when
 * it could not (client values of these three are replaced).
 */
export const FilePartSchema = Type.Object({
  type: Type.Literal('file'),
  document_id: DocumentId,
  /** Set by the runtime: the document's file name. */
  filename: Type.Optional(Type.String()),
  /** Set by the runtime: the workspace-relative path, e.g. `data/sales.csv`. */
  path: Type.Optional(Type.String()),
  /** Set by the runtime: why the file is not in the workspace. */
  error: Type.Optional(Type.String()),
});
/** A file part. */
export type ChatFilePart = Static<typeof FilePartSchema>;

/** A multimodal content part over HTTP. */
export type ChatContentPart = Static<typeof TextPartSchema> | Static<typeof ImagePartSchema> | ChatFilePart;

/**
 * One content part as requests carry it: `type` picks which of `text` / `image_url` / `document_id`
 * is required (one object schema with conditionals, so a failure names the missing field).
 */
export const ContentPartSchema = Type.Unsafe<ChatContentPart>({
  type: 'object',
  required: ['type'],
  properties: {
    type: StringEnum(['text', 'image_url', 'file'] as const),
    text: TextPartSchema.properties.text,
    image_url: ImagePartSchema.properties.image_url,
    document_id: DocumentId,
  },
  allOf: [
    { if: { properties: { type: { const: 'text' } } }, then: { required: ['text'] } },
    { if: { properties: { type: { const: 'image_url' } } }, then: { required: ['image_url'] } },
    { if: { properties: { type: { const: 'file' } } }, then: { required: ['document_id'] } },
  ],
});

/**
 * One input message (spec "Chat request and response"). Role `tool` (issue 17 item 5) answers a
 * client tool call the previous turn of the session handed back: it names the call in
 * `tool_call_id` and is accepted only on an existing session, after which the model goes on.
 */
export const ChatMessageInputSchema = Type.Object({
  role: StringEnum(['system', 'user', 'assistant', 'tool'] as const),
  /** With role `tool`: the id of the handed-back call this result answers. */
  tool_call_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  // One schema with two types, not `anyOf`: under the shared validator's `coerceTypes: 'array'` an
  // `anyOf` string branch coerced a one-part array to its element and refused it before the array
  // branch saw it (`[{type: "text", text}]` answered 400).
  content: Type.Unsafe<string | Static<typeof ContentPartSchema>[]>({
    type: ['string', 'array'], maxLength: MAX_MESSAGE_CHARS, items: ContentPartSchema, minItems: 1, maxItems: 64,
  }),
});
/** One input message. */
export type ChatMessageInput = Static<typeof ChatMessageInputSchema>;

/** Most client tools in one chat request (issue 17 item 5). */
export const MAX_CLIENT_TOOLS = 64;

/**
 * A tool the client declares and runs itself (AG-UI frontend tools, issue 17 item 5): offered to the
 * model beside the runtime's tools (a registered tool of the same name wins); a call to it ends the
 * turn with the call handed back (`tool_call` event, trace status `handed_back`), and the client
 * answers it in the session's next turn with a `tool` message.
 */
export const ClientToolSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  description: Type.Optional(Type.String({ maxLength: 4096 })),
  /** JSON Schema of the arguments (an object schema). */
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
/** A client-declared tool. */
export type ClientTool = Static<typeof ClientToolSchema>;

/**
 * Body of `POST /v1/chat` and `/v1/chat/stream`. `tenant_id` and `user_id` are ignored: the
 * stamped principal decides. With `session_id`, `messages` are the new messages of this turn
 * (history comes from the session); without, a session is created from them. The last message
 * must be the user's. With `conversation_id` (or `conversation: true`, which starts one and emits
 * `conversation_created`), the turn runs over a durable conversation (issue 13 item 4): its items
 * are the history and the turn's messages are appended to it.
 */
export const ChatRequestSchema = Type.Object({
  messages: Type.Array(ChatMessageInputSchema, { minItems: 1, maxItems: 500 }),
  session_id: Type.Optional(Id),
  conversation_id: Type.Optional(Id),
  conversation: Type.Optional(Type.Boolean()),
  agent_id: Type.Optional(AgentId),
  /** Tools the client runs itself (issue 17 item 5). */
  client_tools: Type.Optional(Type.Array(ClientToolSchema, { maxItems: MAX_CLIENT_TOOLS })),
  tenant_id: Type.Optional(Type.String({ maxLength: 256 })),
  user_id: Type.Optional(Type.String({ maxLength: 256 })),
});
/** Body of the chat routes. */
export type ChatRequest = Static<typeof ChatRequestSchema>;

/** The receipt of a turn as chat answers carry it (spec "Receipt"); `sealed` turns true later. */
export const ReceiptRefSchema = Type.Object({
  /** Receipt ULID, when audit already knows the turn. */
  id: Type.Optional(Type.String()),
  turn_id: Type.String(),
  /** Always `attestable`. */
  tier: Type.String(),
  status: StringEnum(['pending', 'sealed', 'verified'] as const),
  sealed: Type.Boolean(),
  receipt_url: Type.String(),
  proof_url: Type.String(),
  bundle_url: Type.String(),
}, { additionalProperties: true });
/** The receipt of a turn as chat answers carry it. */
export type ReceiptRef = Static<typeof ReceiptRefSchema>;

/** A receipt as answers carry it (declared order). */
export const ReceiptAnswerSchema = InOrder(ReceiptRefSchema);

/** What a context source contributed: a count, or why nothing. */
const ContextCount = Type.Union([Type.Number(), Type.Literal('unavailable'), Type.Literal('disabled')]);

/** Token usage, as the provider reported it (summed over the turn's model calls). */
const UsageSchema = Type.Unsafe<{ prompt_tokens: number; completion_tokens: number }>({
  type: 'object', additionalProperties: true, properties: {},
  description: '{prompt_tokens, completion_tokens}',
});

/** One tool call of a turn as the trace records it. */
export const TraceToolCallSchema = Type.Object({
  tool: Type.String(),
  call_id: Type.String(),
  policy: ToolPolicySchema,
  /** `ok`, `error`, `denied`, `invalid` or `not_approved`. */
  status: Type.String(),
  approval_id: Type.Optional(Type.String()),
});

/** What the runtime records about how it answered (spec: `message.processing_trace`). Stored traces may carry more (`excluded`). */
export const ProcessingTraceSchema = Type.Object({
  turn_id: OrNull(Type.String()),
  agent_id: Type.String(),
  model_role: Type.String(),
  model: OrNull(Type.String()),
  steps: Type.Integer(),
  guardrail: Type.Object({ input: Type.String(), output: Type.String(), reason: Type.Optional(Type.String()) }),
  context: Type.Object({ memories: ContextCount, knowledge: ContextCount }),
  history: Type.Object({ messages_sent: Type.Integer(), messages_trimmed: Type.Integer(), estimated_tokens: Type.Integer() }),
  tool_calls: Type.Array(TraceToolCallSchema),
  usage: UsageSchema,
  /** Milliseconds (3 decimals); `ttft_ms` null when no token came. */
  timings: Type.Object({ ttft_ms: OrNull(Type.Number()), total_ms: Type.Number() }),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
}, { additionalProperties: true });
/** The processing trace of a turn. */
export type ProcessingTrace = Static<typeof ProcessingTraceSchema>;

/** 200 body of `POST /v1/chat` (spec "Chat request and response"). */
export const ChatResponseSchema = Type.Object({
  message: Type.Object({
    role: Type.Literal('assistant'),
    content: Type.String(),
    processing_trace: ProcessingTraceSchema,
    receipt: OrNull(ReceiptAnswerSchema),
  }),
  session_id: Type.String(),
  agent_id: Type.String(),
  receipt: OrNull(ReceiptAnswerSchema),
  assistant_message_id: OrNull(Type.String()),
  user_message_id: Type.String(),
  /** The durable conversation the turn ran over, when it ran over one. */
  conversation_id: Type.Optional(Type.String()),
});
/** 200 body of `POST /v1/chat`. */
export type ChatResponse = Static<typeof ChatResponseSchema>;

/** 200 answer of `POST /v1/chat/stream`: SSE records `event: <name>` + `data: <json>` (see `StreamEventMap`). */
export const ChatStreamSchema = Type.String({ description: 'text/event-stream of StreamEventMap records' });
