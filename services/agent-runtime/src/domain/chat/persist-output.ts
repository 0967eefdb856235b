/**
 * Step 7 of a turn: settle the receipt and store the answer. The runtime's turn events are
 * delivered first (after the captured bodies were uploaded, bounded), so audit knows the turn's
 * receipt; the assistant's message carries the trace and the receipt.
 */
import type { ReceiptRef } from '../../contracts.js';
import type { NewMessage } from '../ports.js';
import { pendingReceipt, type ChatDeps, type Turn } from './turn.js';

/** How long captures may delay the receipt, ms. */
const CAPTURE_WAIT_MS = 3000;

/**
 * Wait for the captures (at most 3 s), deliver this runtime's events, then ask audit for the receipt.
 * @returns audit's receipt, the pending receipt when audit does not know the turn yet, or null without a turn id.
 */
export async function settleReceipt(d: Pick<ChatDeps, 'events' | 'audit'>, turn: Turn): Promise<ReceiptRef | null> {
  const turnId = turn.p.who.turnId;
  if (!turnId) return null;
  await Promise.race([Promise.allSettled(turn.captures), new Promise((r) => setTimeout(r, CAPTURE_WAIT_MS).unref())]);
  await d.events.deliver();
  return (await d.audit.receipt(turnId)) ?? pendingReceipt(turnId);
}

/** The assistant's message of a turn. */
export function assistantRow(turn: Turn, id: string, content: string, trace: string, receipt: ReceiptRef | null): NewMessage {
  return {
    id, role: 'assistant', content, parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: turn.p.who.turnId,
    trace, receipt: receipt ? JSON.stringify(receipt) : null, created_at: new Date().toISOString(),
  };
}

/** Append the turn's output messages (tool exchanges, then the answer) to its session. */
export async function persistOutput(d: Pick<ChatDeps, 'sessions'>, turn: Turn, rows: NewMessage[]): Promise<void> {
  await d.sessions.appendMessages(turn.p.session.id, rows, new Date().toISOString());
}
