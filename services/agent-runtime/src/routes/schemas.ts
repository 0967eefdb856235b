/**
 * JSON schemas of the runtime's routes (bodies, params, query strings). Failures answer 400
 * `invalid_request` with the field path (services/shared/http/server.ts).
 */
import { invalidRequest } from '../../../shared/http/errors.js';

/** A ULID-like or opaque id in a path or body. */
export const ID = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' } as const;

/** An agent id. */
export const AGENT_ID = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' } as const;

/** Largest text of one message, characters. */
export const MAX_MESSAGE_CHARS = 200_000;

const PART = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['text', 'image_url'] },
    text: { type: 'string', maxLength: MAX_MESSAGE_CHARS },
    image_url: {
      type: 'object', required: ['url'],
      properties: { url: { type: 'string', minLength: 1, maxLength: 20_000_000, pattern: '^(https?://|data:image/)' }, detail: { type: 'string', enum: ['auto', 'low', 'high'] } },
    },
  },
  allOf: [
    { if: { properties: { type: { const: 'text' } } }, then: { required: ['text'] } },
    { if: { properties: { type: { const: 'image_url' } } }, then: { required: ['image_url'] } },
  ],
} as const;

/** Body of POST /v1/chat and /v1/chat/stream (spec "Chat request and response"). */
export const CHAT_BODY = {
  type: 'object',
  required: ['messages'],
  properties: {
    messages: {
      type: 'array', minItems: 1, maxItems: 500,
      items: {
        type: 'object', required: ['role', 'content'],
        properties: {
          role: { type: 'string', enum: ['system', 'user', 'assistant'] },
          content: { anyOf: [{ type: 'string', maxLength: MAX_MESSAGE_CHARS }, { type: 'array', minItems: 1, maxItems: 64, items: PART }] },
        },
      },
    },
    session_id: ID,
    agent_id: AGENT_ID,
    tenant_id: { type: 'string', maxLength: 256 },
    user_id: { type: 'string', maxLength: 256 },
  },
} as const;

/** `{id}` path parameter. */
export const ID_PARAM = { type: 'object', required: ['id'], properties: { id: ID } } as const;

/** A title or folder name. */
export const NAME = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** Tool policy values. */
export const POLICY = { type: 'string', enum: ['auto', 'ask', 'deny'] } as const;

/** Approval statuses. */
export const APPROVAL_STATUS = { type: 'string', enum: ['pending', 'approved', 'rejected', 'expired', 'cancelled'] } as const;

/**
 * preValidation for chat bodies: `content` must already be a string or an array. The shared
 * validator coerces types, which would turn `42` into `"42"`; a chat message is never a number.
 * @throws AppError 400 `invalid_request` naming the field.
 */
export function rejectCoercibleContent(body: unknown): void {
  const msgs = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(msgs)) return;
  msgs.forEach((m, i) => {
    const c = (m as { content?: unknown } | null)?.content;
    if (c !== undefined && typeof c !== 'string' && !Array.isArray(c)) throw invalidRequest('content must be a string or an array of parts', `body.messages.${i}.content`);
  });
}
