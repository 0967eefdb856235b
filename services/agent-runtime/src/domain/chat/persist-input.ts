/**
 * Step 2 of a turn: store this turn's messages (a new session with them). A message the input
 * guardrail excluded is kept for the user, flagged so it never reaches the model.
 */
import { partsText } from '../history.js';
import type { MessageRow, NewMessage } from '../ports.js';
import type { GuardedInput } from './guard-input.js';
import { nextId, type ChatDeps, type Turn } from './turn.js';

/**
 * Persist the input and set `turn.userMessageId`.
 * @returns the history before this turn: the conversation's items when the turn runs over one, else the session's (empty for a new session).
 */
export async function persistInput(d: Pick<ChatDeps, 'sessions'>, turn: Turn, g: GuardedInput): Promise<MessageRow[]> {
  const { session, isNew, who } = turn.p;
  const now = new Date().toISOString();
  const inputRows: NewMessage[] = g.input.map((m, i) => ({
    id: nextId(), role: m.role, content: partsText(m.content), parts: typeof m.content === 'string' ? null : JSON.stringify(m.content),
    tool_calls: null, tool_call_id: m.tool_call_id ?? null, name: null, turn_id: who.turnId,
    trace: g.excluded !== null && i === g.input.length - 1 ? JSON.stringify({ excluded: true, reason: g.excluded }) : null, receipt: null, created_at: now,
  }));
  turn.userMessageId = inputRows[inputRows.length - 1]!.id;
  const historyRows = turn.p.conversation?.history ?? (isNew ? [] : await d.sessions.messages(session.id));
  if (isNew) {
    const fallback = g.userText.trim().replace(/\s+/g, ' ').slice(0, 60) || 'New chat';
    await d.sessions.create({ ...session, title: fallback, title_source: 'fallback' }, inputRows);
  } else await d.sessions.appendMessages(session.id, inputRows, now);
  return historyRows;
}
