/**
 * Deterministic extraction of candidate memories from messages (used when the `memory` role is not
 * mapped or not reachable): sentences of the user's messages that state durable facts, preferences,
 * instructions, ongoing work or references, typed by simple cues. Conservative by design: it
 * prefers missing a memory to storing chatter.
 */
import type { MemoryType } from '../contracts.js';

/** A candidate memory. */
export interface Candidate { content: string; memory_type: MemoryType; why_stored: string }

const FEEDBACK = /\b(don't|do not|never|always|stop|please (?:use|answer|reply|write|keep|avoid)|i (?:want|prefer|like) (?:you|answers|responses|replies)|from now on|in future|be more|be less)\b/i;
const PROJECT = /\b(project|deadline|working on|work on|sprint|milestone|launch|release|roadmap|due (?:on|by)|migrat\w+|we are building|i am building|i'm building)\b/i;
const REFERENCE = /(https?:\/\/\S+|\b(?:doc(?:ument)?|wiki|ticket|repo(?:sitory)?|dashboard|spreadsheet|confluence|jira)\b.*\b(?:at|in|on|is)\b)/i;
const USER = /\b(i am|i'm|i work|i live|my (?:name|role|team|job|title|manager|company|email|timezone|favorite|favourite|preference)|call me|i prefer|i like|i love|i hate|i dislike|i use|i speak|i have|remember that|note that)\b/i;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join(' ');
  return '';
}

/** Candidates from the user turns of `messages`. */
export function extractCandidates(messages: ReadonlyArray<{ role: string; content?: unknown }>): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const raw of textOf(m.content).split(/(?<=[.!?])\s+|\n+/)) {
      const s = raw.trim().replace(/^(?:also|and|so|btw|by the way),?\s+/i, '');
      if (s.length < 8 || s.length > 500 || s.endsWith('?')) continue;
      let type: MemoryType | null = null;
      let why = '';
      if (FEEDBACK.test(s)) { type = 'feedback'; why = 'the user said how the assistant should behave'; } else if (REFERENCE.test(s)) { type = 'reference'; why = 'the user pointed to a resource'; } else if (PROJECT.test(s)) { type = 'project'; why = 'the user described ongoing work'; } else if (USER.test(s)) { type = 'user'; why = 'the user stated a fact or preference about themselves'; }
      if (!type) continue;
      const content = s.replace(/^remember (?:that )?/i, '').replace(/^note that /i, '');
      const key = content.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ content: content.charAt(0).toUpperCase() + content.slice(1), memory_type: type, why_stored: why });
    }
  }
  return out;
}
