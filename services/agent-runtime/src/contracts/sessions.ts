/**
 * Session and folder contracts (spec "Agent runtime surfaces": sessions, branching, titles, folders;
 * issue 5 item 2): request bodies and query strings, and the views the routes answer.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { AgentId, Id, InOrder, Name, OrNull, StringEnum, Timestamp } from './atoms.js';
import { ProcessingTraceSchema, ReceiptAnswerSchema, type ChatContentPart } from './chat.js';

/** A folder reference in a body: an id, or null for "no folder". */
const FolderRef = OrNull(Id);

/** A session (spec "Agent runtime surfaces": sessions). */
export const SessionViewSchema = Type.Object({
  id: Type.String(),
  agent_id: Type.String(),
  title: OrNull(Type.String()),
  folder_id: OrNull(Type.String()),
  branched_from: OrNull(Type.Object({ session_id: Type.String(), message_id: Type.String() })),
  message_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A session. */
export type SessionView = Static<typeof SessionViewSchema>;

/** A stored content part, as the request carried it. */
const StoredPartSchema = Type.Unsafe<ChatContentPart>({ type: 'object', additionalProperties: true, properties: {} });

/**
 * The trace stored with a message: the turn's processing trace on its answer (with `excluded: true`
 * when the input was blocked), `{excluded: true, reason}` on a user message the input guardrail kept
 * from the model. Serialised in stored order, whatever fields it holds.
 */
const StoredTraceSchema = InOrder(ProcessingTraceSchema);

/** A stored message as `GET /v1/sessions/{id}` lists it. */
export const MessageViewSchema = Type.Object({
  id: Type.String(),
  role: StringEnum(['system', 'user', 'assistant', 'tool'] as const),
  content: Type.String(),
  parts: Type.Optional(Type.Array(StoredPartSchema)),
  tool_calls: Type.Optional(Type.Array(Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() }))),
  tool_call_id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  turn_id: OrNull(Type.String()),
  processing_trace: Type.Optional(StoredTraceSchema),
  receipt: Type.Optional(ReceiptAnswerSchema),
  created_at: Timestamp,
});
/** A stored message. */
export type MessageView = Static<typeof MessageViewSchema>;

/** A session with its messages in order. */
export const SessionDetailSchema = Type.Object({ ...SessionViewSchema.properties, messages: Type.Array(MessageViewSchema) });
/** A session with its messages. */
export type SessionDetail = Static<typeof SessionDetailSchema>;

/** `GET /v1/sessions` answer: most recently updated first. */
export const SessionPageSchema = Type.Object({ items: Type.Array(SessionViewSchema), next_cursor: Type.Optional(Type.String()) });
/** A page of sessions. */
export type SessionPage = Static<typeof SessionPageSchema>;

/** Body of `POST /v1/sessions` (may be absent or null). */
export const SessionCreateSchema = Type.Unsafe<{ title?: string; agent_id?: string; folder_id?: string | null } | null>({
  type: ['object', 'null'],
  properties: { title: Name, agent_id: AgentId, folder_id: FolderRef },
});
/** Body of `POST /v1/sessions`. */
export type SessionCreate = NonNullable<Static<typeof SessionCreateSchema>>;

/** Query of `GET /v1/sessions`: `q` searches titles and message text; `folder_id=none` = in no folder. */
export const SessionQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  folder_id: Type.Optional(Id),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  cursor: Type.Optional(Type.String({ maxLength: 400 })),
});
/** Query of `GET /v1/sessions`. */
export type SessionQuery = Static<typeof SessionQuerySchema>;

/** Body of `PATCH /v1/sessions/{id}`: rename, move (null = no folder) or change agent. */
export const SessionPatchSchema = Type.Object({
  title: Type.Optional(Name),
  folder_id: Type.Optional(FolderRef),
  agent_id: Type.Optional(AgentId),
}, { minProperties: 1 });
/** Body of `PATCH /v1/sessions/{id}`. */
export type SessionPatch = Static<typeof SessionPatchSchema>;

/** Body of `PUT /v1/sessions/{id}/folder`. */
export const SessionMoveSchema = Type.Object({ folder_id: FolderRef });

/** Body of `POST /v1/sessions/{id}/branch`: the last message to copy, and a title. */
export const BranchRequestSchema = Type.Object({ message_id: Id, title: Type.Optional(Name) });

/** 200 body of `POST /v1/sessions/{id}/title`: the title in force afterwards. */
export const TitleResponseSchema = Type.Object({ title: OrNull(Type.String()) });

/** A folder (spec "Agent runtime surfaces": folders). */
export const FolderViewSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
/** A folder. */
export type FolderView = Static<typeof FolderViewSchema>;

/** `GET /v1/folders` answer. */
export const FolderListSchema = Type.Object({ items: Type.Array(FolderViewSchema) });

/** A folder with its sessions. */
export const FolderDetailSchema = Type.Object({ ...FolderViewSchema.properties, sessions: Type.Array(SessionViewSchema) });
/** A folder with its sessions. */
export type FolderDetail = Static<typeof FolderDetailSchema>;

/** Body of `POST /v1/folders` and `PATCH /v1/folders/{id}`. */
export const FolderNameSchema = Type.Object({ name: Name });
