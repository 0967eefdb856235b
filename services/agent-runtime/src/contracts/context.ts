/**
 * Context trace contracts (spec "Agent runtime surfaces": `any /v1/context/*` "per-turn context
 * surfaces and trace"; issue 13 item 5): for one chat turn, what was put in front of the model and
 * why (the prompt's parts with their estimated tokens: system prompt, profile, memories with scores,
 * knowledge chunks with document, chunk and score, skills, history kept or dropped by the context
 * budget, this turn's input) and the trace of its steps (guard input, prefetch, each model call,
 * each tool call, guard output).
 *
 * - `GET /v1/context/turns/{turn_id}` -> 200 `ContextRecord`; 404 `context_not_found` (absent, or
 *   another user's turn for a caller without the admin role; admins read any turn of their tenant)
 * - `GET /v1/context/turns/{turn_id}/trace` -> 200 `ContextTrace`; same 404
 *
 * Records are written when the turn ends and bounded: long texts are cut with `CUT_MARKER`, lists
 * keep their first `CONTEXT_ITEMS_MAX` entries, a record over `CONTEXT_RECORD_MAX_BYTES` loses its
 * texts (`truncated: true`). Tokens are the runtime's estimates (domain/history.ts), not a tokenizer's.
 */
import { Type, type Static } from '../../../shared/kit/typebox.js';
import { Id, OrNull, StringEnum, Timestamp } from './atoms.js';

/** Longest text a part keeps (system prompt, profile, input), characters. */
export const CONTEXT_TEXT_MAX = 4000;
/** Longest text of one item (a memory, a chunk), characters. */
export const CONTEXT_ITEM_TEXT_MAX = 1000;
/** Longest preview of a history message, characters. */
export const CONTEXT_PREVIEW_MAX = 200;
/** Most items one part lists (the rest are counted in `items_omitted`). */
export const CONTEXT_ITEMS_MAX = 50;
/** Most trace steps a record keeps (the rest are counted in `steps_omitted`). */
export const CONTEXT_STEPS_MAX = 200;
/** Largest serialised record, bytes; beyond it texts are dropped. */
export const CONTEXT_RECORD_MAX_BYTES = 256 * 1024;
/** Default of AGENT_RUNTIME_CONTEXT_RECORDS_PER_USER: records kept per user, the oldest removed first. */
export const CONTEXT_RECORDS_PER_USER_DEFAULT = 1000;
/** What replaces the cut end of a long text: `…[cut N characters]`. */
export const CUT_MARKER = '…[cut';

/**
 * Kind of a prompt part: `system` (the configured system prompt, or another named system part of the
 * prompt builder), `profile` (the user's accepted profile), `memory`, `knowledge`, `skills`,
 * `history` (earlier messages of the session), `input` (this turn's messages).
 */
export const CONTEXT_PART_KINDS = ['system', 'profile', 'memory', 'knowledge', 'skills', 'history', 'input'] as const;
/** A part kind. */
export type ContextPartKind = (typeof CONTEXT_PART_KINDS)[number];

/**
 * One item of a part: a memory (`id`, `text`, `score`), a knowledge chunk (`document_id`,
 * `document_title`, `chunk_index`, `text`, `score`), a skill (`id`, `text`), or a history message
 * (`role`, `text` preview, `tokens`, `included`: false when the context budget dropped it).
 */
export const ContextItemSchema = Type.Object({
  id: Type.Optional(Type.String()),
  role: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  /** Relevance the source answered (0-1), or null when it gave none. */
  score: Type.Optional(OrNull(Type.Number())),
  document_id: Type.Optional(Type.String()),
  document_title: Type.Optional(Type.String()),
  chunk_index: Type.Optional(Type.Integer()),
  source: Type.Optional(Type.String()),
  tokens: Type.Optional(Type.Integer()),
  included: Type.Optional(Type.Boolean()),
});
/** One item of a part. */
export type ContextItem = Static<typeof ContextItemSchema>;

/**
 * One part of the prompt with its estimated tokens. `state` says why a part is empty: `included`,
 * `empty` (nothing matched), `disabled` (prefetch off), `unavailable` (the source did not answer),
 * `not_sent` (the turn ended before the model was called).
 */
export const ContextPartSchema = Type.Object({
  name: Type.String(),
  kind: StringEnum(CONTEXT_PART_KINDS),
  tokens: Type.Integer({ minimum: 0 }),
  state: StringEnum(['included', 'empty', 'disabled', 'unavailable', 'not_sent'] as const),
  text: Type.Optional(Type.String()),
  items: Type.Optional(Type.Array(ContextItemSchema)),
  /** Items left out of `items` by the record's bound. */
  items_omitted: Type.Optional(Type.Integer({ minimum: 0 })),
  /** History: messages the context budget dropped (oldest first). */
  dropped: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Why the part is empty or unavailable. */
  detail: Type.Optional(Type.String()),
});
/** One prompt part. */
export type ContextPart = Static<typeof ContextPartSchema>;

/**
 * One step of the turn: `guard_input`, `prefetch`, `model_call` (detail: `call`, `model`, `model_role`,
 * `latency_ms`, `ttft_ms`, `prompt_tokens`, `completion_tokens`, `finish_reason`, `tool_calls`),
 * `tool_call` (detail: `tool`, `call_id`, `policy`, `approval_id?`), `guard_output`. `started_at` is
 * wall time, `duration_ms` measured with a monotonic clock. `status`: the guard's decision
 * (`allow`, `block`, `redact`, `unavailable`), `ok`, `error`, or a tool call's status (`denied`,
 * `not_approved`, `invalid`).
 */
export const ContextStepSchema = Type.Object({
  step: Type.String(),
  started_at: Timestamp,
  duration_ms: Type.Number({ minimum: 0 }),
  status: Type.String(),
  detail: Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true })),
});
/** One trace step. */
export type ContextStep = Static<typeof ContextStepSchema>;

/** `GET /v1/context/turns/{turn_id}`: the context record of one turn. */
export const ContextRecordSchema = Type.Object({
  turn_id: Type.String(),
  session_id: Type.String(),
  agent_id: Type.String(),
  /** How the turn ended. */
  status: StringEnum(['completed', 'blocked', 'failed'] as const),
  assistant_message_id: OrNull(Type.String()),
  model_role: Type.String(),
  /** Model id the router reported for the last call, or null. */
  model: OrNull(Type.String()),
  parts: Type.Array(ContextPartSchema),
  /** The prompt budget the history was trimmed to (AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS minus the response reserve). */
  budget_tokens: Type.Integer({ minimum: 0 }),
  /** Estimated tokens of the first model call's prompt (0 when no prompt was built). */
  total_tokens: Type.Integer({ minimum: 0 }),
  /** Tokens the router counted over every model call of the turn. */
  usage: Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer() }),
  trace: Type.Array(ContextStepSchema),
  steps_omitted: Type.Integer({ minimum: 0 }),
  /** True when texts were cut or dropped to keep the record within its bound. */
  truncated: Type.Boolean(),
  created_at: Timestamp,
});
/** The context record of a turn. */
export type ContextRecord = Static<typeof ContextRecordSchema>;

/** `GET /v1/context/turns/{turn_id}/trace`: the step trace alone. */
export const ContextTraceSchema = Type.Object({
  turn_id: Type.String(),
  session_id: Type.String(),
  status: ContextRecordSchema.properties.status,
  trace: Type.Array(ContextStepSchema),
  steps_omitted: Type.Integer({ minimum: 0 }),
});
/** The step trace of a turn. */
export type ContextTrace = Static<typeof ContextTraceSchema>;

/** `{turn_id}` path parameter. */
export const TurnIdParams = Type.Object({ turn_id: Id });
