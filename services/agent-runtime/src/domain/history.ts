/**
 * Conversation history for the next model call (issue 5 item 2: "History is persisted and sent to
 * the model on the next turn, trimmed to the model's context budget"). Pure.
 *
 * Token counts are estimates (about 4 characters per token, plus a small per-message overhead, and a
 * fixed 765 tokens per image as OpenAI bills a high-detail tile set); the router does not expose a
 * tokenizer. Trimming drops the oldest messages first and never leaves a `tool` message without the
 * assistant message that called it.
 */
import type { OpenAiMessage } from './ports.js';
import type { ChatContentPart } from '../contracts.js';

/** Estimated tokens of one image part. */
export const IMAGE_TOKENS = 765;
/** Estimated overhead tokens per message (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Estimated tokens of a text. */
export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Estimated tokens of one message, content parts and tool calls included. */
export function messageTokens(m: OpenAiMessage): number {
  let n = MESSAGE_OVERHEAD_TOKENS;
  if (typeof m.content === 'string') n += textTokens(m.content);
  else if (Array.isArray(m.content)) {
    for (const p of m.content) n += p.type === 'image_url' ? IMAGE_TOKENS : textTokens(String((p as { text?: unknown }).text ?? ''));
  }
  for (const t of m.tool_calls ?? []) n += textTokens(t.function.name) + textTokens(t.function.arguments) + 4;
  return n;
}

/** Result of trimming. */
export interface Trimmed {
  messages: OpenAiMessage[];
  /** History messages left out. */
  dropped: number;
  estimatedTokens: number;
}

/**
 * Fit `system` + `history` + `input` into `budget` estimated tokens. System messages and the input
 * (this turn's new messages) are always kept; history is cut from the oldest end.
 */
export function trimToBudget(system: OpenAiMessage[], history: OpenAiMessage[], input: OpenAiMessage[], budget: number): Trimmed {
  const fixed = [...system, ...input].reduce((a, m) => a + messageTokens(m), 0);
  let room = budget - fixed;
  let start = history.length;
  // Walk back from the newest history message while it fits.
  for (let i = history.length - 1; i >= 0; i--) {
    const t = messageTokens(history[i]!);
    if (t > room) break;
    room -= t;
    start = i;
  }
  // A kept tool result whose calling assistant message was cut would be rejected by providers.
  while (start < history.length && history[start]!.role === 'tool') start++;
  const kept = history.slice(start);
  const messages = [...system, ...kept, ...input];
  return { messages, dropped: start, estimatedTokens: messages.reduce((a, m) => a + messageTokens(m), 0) };
}

/** Text of content parts (text parts joined by newlines); a string is returned as is. */
export function partsText(content: string | ChatContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.filter((p): p is { type: 'text'; text: string } => p.type === 'text').map((p) => p.text).join('\n');
}

/** True when the content carries an image part. */
export function hasImage(content: string | ChatContentPart[]): boolean {
  return Array.isArray(content) && content.some((p) => p.type === 'image_url');
}
