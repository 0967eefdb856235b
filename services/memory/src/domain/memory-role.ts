/**
 * Calls to the `memory` model role through the inference router (`POST /v1/chat/completions`,
 * model "memory"), with the caller's stamped headers. Any failure (role_not_configured, router
 * unreachable, a non-JSON answer) returns null, and callers take their deterministic path.
 */
import { request } from 'undici';

/** Headers forwarded to the router: the caller's principal, turn and capability token. */
export type StampedHeaders = Record<string, string>;

/** Ask the memory role; returns the parsed JSON object of its answer, or null. */
export async function askMemoryRole(routerUrl: string, headers: StampedHeaders, system: string, user: string, timeoutMs = 20_000): Promise<Record<string, unknown> | null> {
  try {
    const res = await request(`${routerUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'memory', temperature: 0, messages: [{ role: 'system', content: system }, { role: 'user', content: user }] }),
      headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) return null;
    const body = JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> };
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== 'string') return null;
    const m = /\{[\s\S]*\}/.exec(content.replace(/```(?:json)?/g, ''));
    if (!m) return null;
    const parsed = JSON.parse(m[0]) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/** System prompt of extraction. */
export const EXTRACT_PROMPT = `You extract durable memories about the user from a conversation.
Return JSON only: {"memories": [{"content": "...", "memory_type": "user|feedback|project|reference", "why_stored": "..."}]}.
Types: user = facts and preferences about the user; feedback = how the user wants the assistant to behave;
project = ongoing work, goals, deadlines; reference = pointers to documents, links, systems.
Keep each memory one self-contained sentence in the third person. Skip small talk and one-off requests. Return {"memories": []} when nothing is worth keeping.`;

/** System prompt of consolidation. */
export const CONSOLIDATE_PROMPT = `You maintain a user's memory store. You get a group of similar memories (id, content, updated_at).
Decide for each id one event: "NONE" (keep as is), "UPDATE" (keep with new "content" merging the group's facts), or "DELETE" (redundant or superseded).
Keep at least one memory of the group. Return JSON only: {"decisions": [{"memory_id": "...", "event": "NONE|UPDATE|DELETE", "content": "...", "reason": "..."}]}.`;
