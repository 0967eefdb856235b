/**
 * Before a turn runs: validate the request against the caller's sessions and resolve the session
 * (a new one when the request names none). Nothing is written yet, so a request error answers
 * JSON before a stream starts.
 */
import type { ChatRequest } from '../../contracts.js';
import { invalidField, runtimeError } from '../errors.js';
import { hasImage, partsText } from '../history.js';
import { hasFilePart } from './attach-files.js';
import type { SessionRow } from '../ports.js';
import { bindConversation } from '../conversations/binding.js';
import { nextId, type ChatDeps, type PreparedTurn, type TurnIdentity } from './turn.js';

/**
 * Validate `req` for `who` and resolve its session.
 * @throws DomainError `invalid_request` (last message not the user's, empty content), `session_not_found`,
 *   the conversation codes of `ConversationPort.bind` (`conversation_id`, `conversation: true`),
 *   `agent_not_allowed` (403) when the caller's permission profiles do not open the agent (issue 13 item 8).
 */
export function prepareTurn(d: Pick<ChatDeps, 'sessions' | 'settings' | 'conversations' | 'agentGate'>, req: ChatRequest, who: TurnIdentity): PreparedTurn {
  const prepared = resolveTurn(d, req, who);
  const gate = d.agentGate?.(who.tenantId, who) ?? null;
  if (gate && !gate(prepared.agentId)) throw runtimeError('agent_not_allowed', `your permission profiles do not open the agent "${prepared.agentId}"`);
  return prepared;
}

/** The session and agent of `req` (validated, nothing written). */
function resolveTurn(d: Pick<ChatDeps, 'sessions' | 'settings' | 'conversations'>, req: ChatRequest, who: TurnIdentity): PreparedTurn {
  const last = req.messages[req.messages.length - 1];
  if (!last || last.role !== 'user') throw invalidField('the last message must have role "user"', 'body.messages');
  for (const [i, m] of req.messages.entries()) {
    if (typeof m.content !== 'string' && m.content.length === 0) throw invalidField('content parts must not be empty', `body.messages.${i}.content`);
    if (partsText(m.content).trim() === '' && !hasImage(m.content) && !hasFilePart(m.content)) throw invalidField('message content must not be empty', `body.messages.${i}.content`);
  }
  const bound = bindConversation(d.conversations, req, who);
  if (bound?.sessionId) req = { ...req, session_id: bound.sessionId };
  const conv = bound ? { conversation: bound.binding } : {};
  const now = new Date().toISOString();
  if (req.session_id !== undefined) {
    const s = d.sessions.get(req.session_id, who.tenantId, who.userId);
    if (!s) throw runtimeError('session_not_found', `no session ${req.session_id}`);
    return { who, session: s, isNew: false, agentId: req.agent_id ?? s.agent_id, input: req.messages, ...conv };
  }
  const agentId = req.agent_id ?? d.settings.defaultAgentId;
  const session: SessionRow = {
    id: nextId(), tenant_id: who.tenantId, user_id: who.userId, agent_id: agentId, title: null, title_source: 'none', folder_id: null,
    branched_from_session: null, branched_from_message: null, message_count: 0, created_at: now, updated_at: now,
  };
  return { who, session, isNew: true, agentId, input: req.messages, ...conv };
}
