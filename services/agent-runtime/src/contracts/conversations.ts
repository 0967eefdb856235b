/**
 * Durable conversations (spec "Agent runtime surfaces": `/v1/conversations`, enabled only when
 * AGENT_RUNTIME_CONVERSATIONS_ENABLED is set; issue 13 item 4). Objects are shaped like OpenAI's
 * Conversations API where it fits: a conversation `{id, object: "conversation", created_at (Unix
 * seconds), metadata}`, items `{id, type: "message", role, content: [{type: "input_text" |
 * "output_text", text}], status}` plus `function_call` / `function_call_output` items for tool
 * calls; lists are DESIGN.md's `{items, next_cursor?}`. A run (`object: "conversation.run"`) is one
 * chat turn over the conversation: its answer and tool calls are appended as items.
 *
 * Routes (owner only; another user's conversation is 404 `conversation_not_found`; with the
 * feature off every route is 404 `conversations_disabled`):
 * - `POST /v1/conversations` body `{metadata?, items?}` -> 201 `Conversation`
 * - `GET /v1/conversations?limit&cursor` -> 200 `{items: Conversation[], next_cursor?}` (newest first)
 * - `GET /v1/conversations/{id}` -> 200 `Conversation`; `POST /v1/conversations/{id}` body `{metadata}` -> 200
 * - `DELETE /v1/conversations/{id}` -> 200 `{id, object: "conversation.deleted", deleted: true}`
 * - `GET /v1/conversations/{id}/items?limit&cursor|after&order` -> 200 `{items: ConversationItem[], next_cursor?}`
 * - `POST /v1/conversations/{id}/items` body `{items: [...]}` (1-20) -> 201 `{items}` (the created items)
 * - `GET /v1/conversations/{id}/items/{item_id}` -> 200 item; `DELETE` -> 200 `Conversation`
 * - `POST /v1/conversations/{id}/runs` body `{agent_id?, items?}` -> 201 `ConversationRun` in its final state
 * - `GET /v1/conversations/{id}/runs?limit` -> 200 `{items: ConversationRun[]}` (newest first)
 * - `GET /v1/conversations/{id}/runs/{run_id}` -> 200 `ConversationRun`
 * - `POST /v1/conversations/{id}/runs/{run_id}/cancel` -> 200 `ConversationRun` (`cancelled`); 409 `conversation_run_finished`
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { AgentId, Id, InOrder, OrNull, StringEnum } from './atoms.js';
import { MAX_MESSAGE_CHARS, ReceiptAnswerSchema } from './chat.js';

/** Most items one `POST .../items` or `POST /v1/conversations` may carry (OpenAI's limit). */
export const MAX_ITEMS_PER_APPEND = 20;

/** Most metadata pairs; longest key and value, characters (OpenAI's limits). */
export const MAX_METADATA_PAIRS = 16;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;

/** Default and largest page of conversation, item and run lists. */
export const CONVERSATION_PAGE_DEFAULT = 20;
export const CONVERSATION_PAGE_MAX = 100;

/** Longest function call arguments or output, characters. */
export const MAX_TOOL_TEXT_CHARS = 200_000;

/** Message roles an item may have (`developer` reaches the model as `system`). */
export const ITEM_ROLES = ['user', 'assistant', 'system', 'developer'] as const;
/** An item's role. */
export type ItemRole = (typeof ITEM_ROLES)[number];

/** Item types. */
export const ITEM_TYPES = ['message', 'function_call', 'function_call_output'] as const;
/** An item's type. */
export type ItemType = (typeof ITEM_TYPES)[number];

/** Item statuses (OpenAI's): `incomplete` marks an input the guardrail excluded (never sent to the model). */
export const ITEM_STATUSES = ['completed', 'in_progress', 'incomplete'] as const;
/** An item's status. */
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** Run statuses. */
export const RUN_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
/** A run's status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Conversation metadata: up to 16 string pairs, keys up to 64 and values up to 512 characters. */
export const ConversationMetadataSchema = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: MAX_METADATA_PAIRS,
  propertyNames: { maxLength: MAX_METADATA_KEY_CHARS, minLength: 1 },
  additionalProperties: { type: 'string', maxLength: MAX_METADATA_VALUE_CHARS },
});

/** A content part of a message item (answers and requests). */
export interface ItemContentPart {
  type: 'input_text' | 'output_text' | 'input_image' | 'input_file';
  /** input_text, output_text. */
  text?: string;
  /** input_image: an http(s) or `data:image/` URL. */
  image_url?: string;
  /** input_file: a knowledge document id (copied into the chat's sandbox workspace as a chat file part). */
  file_id?: string;
  /** input_file: the document's file name, set by the runtime. */
  filename?: string;
}

/** A content part as requests carry it: `type` picks the required field. */
export const ItemContentPartInputSchema = Type.Unsafe<ItemContentPart>({
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['input_text', 'output_text', 'input_image', 'input_file'] },
    text: { type: 'string', maxLength: MAX_MESSAGE_CHARS },
    image_url: { type: 'string', minLength: 1, maxLength: 20_000_000, pattern: '^(https?://|data:image/)' },
    file_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' },
    filename: { type: 'string', maxLength: 512 },
  },
  allOf: [
    { if: { properties: { type: { enum: ['input_text', 'output_text'] } } }, then: { required: ['text'] } },
    { if: { properties: { type: { const: 'input_image' } } }, then: { required: ['image_url'] } },
    { if: { properties: { type: { const: 'input_file' } } }, then: { required: ['file_id'] } },
  ],
});

/** An item as requests carry it (`type` defaults to `message`; a message's `content` may be a plain string). */
export interface ItemInput {
  type?: ItemType;
  role?: ItemRole;
  content?: string | ItemContentPart[];
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
}

/** An item to append: a message `{role, content}`, a `function_call {call_id, name, arguments}` or a `function_call_output {call_id, output}`. */
export const ItemInputSchema = Type.Unsafe<ItemInput>({
  type: 'object',
  properties: {
    type: { type: 'string', enum: [...ITEM_TYPES] },
    role: { type: 'string', enum: [...ITEM_ROLES] },
    // One schema with two types, not `anyOf`: with the shared validator's `coerceTypes: 'array'` an
    // `anyOf` string branch would refuse a one-part array before the array branch saw it.
    content: { type: ['string', 'array'], maxLength: MAX_MESSAGE_CHARS, items: ItemContentPartInputSchema, minItems: 1, maxItems: 64 },
    call_id: { type: 'string', minLength: 1, maxLength: 128 },
    name: { type: 'string', minLength: 1, maxLength: 128 },
    arguments: { type: 'string', maxLength: MAX_TOOL_TEXT_CHARS },
    output: { type: 'string', maxLength: MAX_TOOL_TEXT_CHARS },
    status: { type: 'string', enum: [...ITEM_STATUSES] },
    id: { type: 'string', maxLength: 128 },
  },
  allOf: [
    { if: { properties: { type: { const: 'function_call' } }, required: ['type'] }, then: { required: ['call_id', 'name', 'arguments'] } },
    { if: { properties: { type: { const: 'function_call_output' } }, required: ['type'] }, then: { required: ['call_id', 'output'] } },
    { if: { anyOf: [{ not: { required: ['type'] } }, { properties: { type: { const: 'message' } } }] }, then: { required: ['role', 'content'] } },
  ],
});

/** A content part in answers. */
export const ItemContentPartSchema = Type.Object({
  type: Type.String(),
  text: Type.Optional(Type.String()),
  image_url: Type.Optional(Type.String()),
  file_id: Type.Optional(Type.String()),
  filename: Type.Optional(Type.String()),
});

/** A conversation item (OpenAI's item shape; `created_at` Unix seconds is ours). */
export const ConversationItemSchema = InOrder(Type.Object({
  id: Type.String(),
  type: StringEnum(ITEM_TYPES),
  status: StringEnum(ITEM_STATUSES),
  role: Type.Optional(StringEnum(ITEM_ROLES)),
  content: Type.Optional(Type.Array(ItemContentPartSchema)),
  call_id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  arguments: Type.Optional(Type.String()),
  output: Type.Optional(Type.String()),
  created_at: Type.Integer({ description: 'Unix seconds' }),
}));
/** A conversation item. */
export type ConversationItem = Static<typeof ConversationItemSchema>;

/** A conversation: OpenAI's object plus `session_id`, the chat session its turns run in (null before the first). */
export const ConversationSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('conversation'),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  metadata: Type.Object({}, { additionalProperties: true }),
  session_id: OrNull(Type.String()),
});
/** A conversation. */
export type Conversation = Static<typeof ConversationSchema>;

/** Answer of `DELETE /v1/conversations/{id}`. */
export const ConversationDeletedSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('conversation.deleted'),
  deleted: Type.Literal(true),
});
/** Answer of `DELETE /v1/conversations/{id}`. */
export type ConversationDeleted = Static<typeof ConversationDeletedSchema>;

/** `GET /v1/conversations` answer, newest first. */
export const ConversationPageSchema = Type.Object({ items: Type.Array(ConversationSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of conversations. */
export type ConversationPage = Static<typeof ConversationPageSchema>;

/** `GET .../items` answer, and `POST .../items` (the created items, no cursor). */
export const ConversationItemPageSchema = Type.Object({ items: Type.Array(ConversationItemSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of items. */
export type ConversationItemPage = Static<typeof ConversationItemPageSchema>;

/** A run over a conversation: one chat turn; `output` holds the items it appended (answer, tool calls and results). Times in Unix seconds. */
export const ConversationRunSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('conversation.run'),
  conversation_id: Type.String(),
  status: StringEnum(RUN_STATUSES),
  agent_id: Type.String(),
  created_at: Type.Integer(),
  started_at: OrNull(Type.Integer()),
  completed_at: OrNull(Type.Integer()),
  /** The turn the run ran in (its receipt's turn), or null without one. */
  turn_id: OrNull(Type.String()),
  model: OrNull(Type.String()),
  output: Type.Array(ConversationItemSchema),
  usage: OrNull(Type.Object({}, { additionalProperties: true })),
  receipt: OrNull(ReceiptAnswerSchema),
  error: OrNull(Type.Object({ code: Type.String(), message: Type.String() })),
});
/** A run. */
export type ConversationRun = Static<typeof ConversationRunSchema>;

/** `GET .../runs` answer, newest first. */
export const ConversationRunPageSchema = Type.Object({ items: Type.Array(ConversationRunSchema) });
/** A list of runs. */
export type ConversationRunPage = Static<typeof ConversationRunPageSchema>;

/** Body of `POST /v1/conversations` (may be absent or null). */
export const ConversationCreateSchema = Type.Unsafe<{ metadata?: Record<string, string>; items?: ItemInput[] } | null>({
  type: ['object', 'null'],
  properties: { metadata: ConversationMetadataSchema, items: { type: 'array', items: ItemInputSchema, maxItems: MAX_ITEMS_PER_APPEND } },
});
/** Body of `POST /v1/conversations`. */
export type ConversationCreate = NonNullable<Static<typeof ConversationCreateSchema>>;

/** Body of `POST /v1/conversations/{id}`: replace the metadata. */
export const ConversationUpdateSchema = Type.Object({ metadata: ConversationMetadataSchema });

/** Body of `POST /v1/conversations/{id}/items`. */
export const ItemsAppendSchema = Type.Object({ items: Type.Array(ItemInputSchema, { minItems: 1, maxItems: MAX_ITEMS_PER_APPEND }) });

/** Body of `POST /v1/conversations/{id}/runs` (may be absent or null): the agent, and items appended before the run starts. */
export const RunCreateSchema = Type.Unsafe<{ agent_id?: string; items?: ItemInput[] } | null>({
  type: ['object', 'null'],
  properties: { agent_id: AgentId, items: { type: 'array', items: ItemInputSchema, maxItems: MAX_ITEMS_PER_APPEND } },
});
/** Body of `POST /v1/conversations/{id}/runs`. */
export type RunCreate = NonNullable<Static<typeof RunCreateSchema>>;

/** Query of `GET /v1/conversations`. */
export const ConversationQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX })),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});
/** Query of `GET /v1/conversations`. */
export type ConversationQuery = Static<typeof ConversationQuerySchema>;

/** Query of `GET .../items`: `cursor` (opaque, from `next_cursor`) or `after` (an item id); `order` default `desc` as OpenAI's. */
export const ItemQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX })),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
  after: Type.Optional(Id),
  order: Type.Optional(StringEnum(['asc', 'desc'] as const)),
});
/** Query of `GET .../items`. */
export type ItemQuery = Static<typeof ItemQuerySchema>;

/** Query of `GET .../runs`. */
export const RunQuerySchema = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX })) });

/** `{id, item_id}` path parameters. */
export const ItemParams = Type.Object({ id: Id, item_id: Id });

/** `{id, run_id}` path parameters. */
export const RunParams = Type.Object({ id: Id, run_id: Id });
