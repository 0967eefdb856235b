/**
 * What the memory domain asks the `memory` model role (spec "Memory": extraction and
 * consolidation), and how it reads the answers. The call itself goes through the `MemoryRole` port.
 */
import { MEMORY_TYPES, type MemoryType } from '../contracts.js';
import type { Candidate } from './extract.js';

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

/**
 * Candidates from an extraction answer (`{memories: [...]}`); entries without content are skipped,
 * unknown types become `fallbackType`. @returns null when the answer has no `memories` array.
 */
export function candidatesFromRole(answer: Record<string, unknown> | null, fallbackType: MemoryType): Candidate[] | null {
  if (!Array.isArray(answer?.memories)) return null;
  return (answer.memories as unknown[]).flatMap((x): Candidate[] => {
    const o = x as { content?: unknown; memory_type?: unknown; why_stored?: unknown };
    if (typeof o.content !== 'string' || !o.content.trim()) return [];
    const t = MEMORY_TYPES.includes(o.memory_type as MemoryType) ? o.memory_type as MemoryType : fallbackType;
    return [{ content: o.content.trim().slice(0, 4000), memory_type: t, why_stored: typeof o.why_stored === 'string' ? o.why_stored.slice(0, 1000) : 'extracted by the memory role' }];
  });
}
