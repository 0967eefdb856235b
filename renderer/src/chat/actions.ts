/**
 * What the chat does when the user acts: send (stream a turn), stop, regenerate, branch, copy,
 * decide an approval. Abort controllers live here, not in the store (they are not state).
 */
import { api } from '../api/http';
import { invalidate } from '../api/cache';
import { ApiError } from '../api/http';
import { useApp, NEW_CONV, type ConvKey } from '../store';
import { streamChat } from './agui';
import { failTurn, reduceTurn, startTurn, stopTurn, withTurnId } from './turn-reducer';
import type { SessionDetail } from '../api/types';
import { agentField } from '../agents/catalog';

const controllers = new Map<string, AbortController>();
let seq = 0;

/** Messages for the stream's error codes (spec "Errors": inference codes). */
export function chatErrorMessage(code: string | null, fallback: string): string {
  switch (code) {
    case 'backend_unavailable': return 'No model provider is reachable. An administrator can add one under Admin → Providers.';
    case 'role_not_configured': case 'role_no_backend': return 'No model is assigned to the chat role yet. An administrator can set it under Admin → Providers.';
    case 'provider_key_missing': return 'The model provider needs an API key. An administrator can add it under Admin → Providers.';
    case 'budget_exceeded': return 'The tenant budget is used up for this period.';
    case 'network_error': return 'The gateway cannot be reached.';
    default: return fallback || 'The turn failed.';
  }
}

/** True while a turn of `key` streams. */
export function isStreaming(key: ConvKey): boolean {
  return (useApp.getState().live[key] ?? []).some((t) => t.status === 'streaming');
}

/** Send `text` in conversation `key` (a session id, or NEW_CONV) and stream the answer. */
export async function sendMessage(key: ConvKey, text: string): Promise<void> {
  const body = text.trim();
  if (!body || isStreaming(key)) return;
  const localId = `t${Date.now().toString(36)}${(seq++).toString(36)}`;
  const sessionId = key === NEW_CONV ? null : key;
  const store = useApp.getState();
  store.turnStarted(key, startTurn(localId, sessionId, body));
  store.draftChanged(key, '');
  const ctl = new AbortController();
  controllers.set(localId, ctl);
  let assigned = sessionId;
  const update = useApp.getState().turnUpdated;
  const adopt = (): void => {
    // A new conversation got its session: file the turn under it and show its URL.
    if (assigned) return;
    const turn = Object.values(useApp.getState().live).flat().find((t) => t.localId === localId);
    if (!turn?.sessionId) return;
    assigned = turn.sessionId;
    useApp.getState().sessionAssigned(key, assigned);
    if (useApp.getState().path === '/chat' || useApp.getState().path === '/') useApp.getState().navigated(`/chat/${encodeURIComponent(assigned)}`, { replace: true });
    invalidate('/v1/sessions');
  };
  try {
    await streamChat({ messages: [{ role: 'user', content: body }], ...(sessionId ? { session_id: sessionId } : {}), ...agentField() }, ctl.signal, {
      onTurnId: (id) => update(localId, (t) => withTurnId(t, id)),
      onEvent: (e) => { update(localId, (t) => reduceTurn(t, e)); adopt(); },
    });
    update(localId, (t) => (t.status === 'streaming' ? reduceTurn(t, { type: 'RUN_FINISHED' }) : t));
  } catch (err) {
    const code = err instanceof ApiError ? err.code : null;
    update(localId, (t) => failTurn(t, chatErrorMessage(code, err instanceof Error ? err.message : String(err)), code));
  } finally {
    controllers.delete(localId);
    adopt();
    invalidate('/v1/sessions');
  }
}

/** Stop every turn streaming in `key` (Stop button, Esc). */
export function stopStreaming(key: ConvKey): void {
  for (const t of useApp.getState().live[key] ?? []) {
    if (t.status !== 'streaming') continue;
    controllers.get(t.localId)?.abort();
    useApp.getState().turnUpdated(t.localId, stopTurn);
  }
}

/** Ask again: re-send the last user message of the conversation (the old answer stays above). */
export async function regenerate(key: ConvKey, lastUserText: string): Promise<void> {
  await sendMessage(key, lastUserText);
}

/**
 * Branch the conversation at a message (`POST /v1/sessions/{id}/branch {message_id}`): a new
 * session holding the history up to that message; the UI opens it.
 */
export async function branchAt(sessionId: string, messageId: string): Promise<void> {
  const { id } = await api<SessionDetail>(`/v1/sessions/${encodeURIComponent(sessionId)}/branch`, { method: 'POST', json: { message_id: messageId } });
  invalidate('/v1/sessions');
  useApp.getState().navigated(`/chat/${encodeURIComponent(id)}`);
}

/** Approve or reject a parked tool call; the parked run then continues on the open stream. */
export async function decideApproval(id: string, decision: 'approve' | 'reject'): Promise<void> {
  await api(`/v1/user/approvals/${encodeURIComponent(id)}/${decision}`, { method: 'POST', json: {} });
  invalidate('/v1/user/approvals');
}

/** Copy text to the clipboard; false when the page may not. */
export async function copyText(text: string): Promise<boolean> {
  try { await navigator.clipboard.writeText(text); return true; } catch { return false; }
}
