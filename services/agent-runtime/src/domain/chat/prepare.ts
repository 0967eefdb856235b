/**
 * Before a turn runs: validate the request against the caller's sessions and resolve the session
 * (a new one when the request names none). Nothing is written yet, so a request error answers
 * JSON before a stream starts.
 */
import type { ChatRequest } from '../../contracts.js';
import { isDomainError } from '../../../../shared/kit/domain-error.js';
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
 *   `agent_not_allowed` (403) when the caller's permission profiles do not open the agent (issue 13 item 8),
 *   `agent_not_found` (404) when the named agent is unknown or another user's personal agent (issue 17 item 1).
 */
export async function prepareTurn(d: Pick<ChatDeps, 'sessions' | 'settings' | 'conversations' | 'agentGate' | 'agents'>, req: ChatRequest, who: TurnIdentity): Promise<PreparedTurn> {
  const prepared = await withAgent(d, req, who, await resolveTurn(d, req, who));
  const gate = (await d.agentGate?.(who.tenantId, who)) ?? null;
  if (gate && !gate(prepared.agentId)) throw runtimeError('agent_not_allowed', `your permission profiles do not open the agent "${prepared.agentId}"`);
  return req.client_tools?.length ? { ...prepared, clientTools: req.client_tools } : prepared;
}

/**
 * The turn with its agent's configuration (issue 17 item 1). An agent the request names must be one
 * the caller may use (404 `agent_not_found`: unknown, or another user's personal agent); a session's
 * agent that is gone since runs as the default agent. The permission-profile gate runs after, on the
 * agent that runs.
 */
async function withAgent(d: Pick<ChatDeps, 'settings' | 'agents' | 'agentGate'>, req: ChatRequest, who: TurnIdentity, p: PreparedTurn): Promise<PreparedTurn> {
  if (!d.agents) return p;
  const gate = (await d.agentGate?.(who.tenantId, who)) ?? null;
  // A profile that does not open the agent answers 403 whether or not the agent exists (as before the catalog).
  if (gate && !gate(p.agentId)) return p;
  try {
    return { ...p, agent: await d.agents.resolve(who.tenantId, who.userId, p.agentId) };
  } catch (err) {
    if (req.agent_id !== undefined || !isDomainError(err)) throw err;
    const agentId = d.settings.defaultAgentId;
    return { ...p, agentId, agent: await d.agents.resolve(who.tenantId, who.userId, agentId) };
  }
}

/** The session and agent of `req` (validated, nothing written). */
async function resolveTurn(d: Pick<ChatDeps, 'sessions' | 'settings' | 'conversations'>, req: ChatRequest, who: TurnIdentity): Promise<PreparedTurn> {
  const last = req.messages[req.messages.length - 1];
  // Issue 17 item 5: a turn may instead end with `tool` results answering calls handed back to the client.
  const answersTools = last?.role === 'tool' && req.session_id !== undefined && req.conversation_id === undefined && !req.conversation;
  if (!last || (last.role !== 'user' && !answersTools)) throw invalidField('the last message must have role "user"', 'body.messages');
  for (const [i, m] of req.messages.entries()) {
    if (m.role === 'tool' && (!answersTools || !m.tool_call_id)) throw invalidField('a "tool" message needs tool_call_id, an existing session and no conversation', `body.messages.${i}`);
    if (typeof m.content !== 'string' && m.content.length === 0) throw invalidField('content parts must not be empty', `body.messages.${i}.content`);
    if (partsText(m.content).trim() === '' && !hasImage(m.content) && !hasFilePart(m.content)) throw invalidField('message content must not be empty', `body.messages.${i}.content`);
  }
  const bound = await bindConversation(d.conversations, req, who);
  if (bound?.sessionId) req = { ...req, session_id: bound.sessionId };
  const conv = bound ? { conversation: bound.binding } : {};
  const now = new Date().toISOString();
  if (req.session_id !== undefined) {
    const s = await d.sessions.get(req.session_id, who.tenantId, who.userId);
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
