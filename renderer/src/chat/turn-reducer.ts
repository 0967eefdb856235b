/**
 * Pure reducer of one streamed turn: AG-UI events (spec "Chat": RUN_*, TEXT_MESSAGE_*, TOOL_CALL_*,
 * REASONING_*, CUSTOM carrying the legacy events) applied to the user message and the answer.
 * CUSTOM names follow the legacy stream (spec "Chat stream events"): session_created,
 * approval_required, blocked, retract, user_redaction, mcp_failures, done, error, and `artifact`
 * (a tool's side output; `{type: 'citations'}` from knowledge_search becomes the answer's sources,
 * files a sandbox run produced attach to their tool call by `call_id`).
 */
import type { ApprovalView, Citation, ReceiptRef } from '../api/types';
import { item, mergeCitations, type ChatItem } from './model';
import { artifactsOfEvent, mergeArtifacts } from './sandbox-result';

/** State of a turn in flight (or just finished). */
export interface LiveTurn {
  localId: string;
  sessionId: string | null;
  turnId: string | null;
  user: ChatItem;
  answer: ChatItem;
  status: 'streaming' | 'done' | 'error' | 'stopped';
  error: { message: string; code: string | null } | null;
}

/** A new turn for `text`. */
export function startTurn(localId: string, sessionId: string | null, text: string): LiveTurn {
  const answer = item('assistant', `${localId}-a`);
  answer.streaming = true;
  return { localId, sessionId, turnId: null, user: item('user', `${localId}-u`, text), answer, status: 'streaming', error: null };
}

/** A loosely typed AG-UI event (the stream is validated only as far as the UI needs). */
export interface AguiEvent { type: string; [k: string]: unknown }

const s = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

function withAnswer(t: LiveTurn, patch: Partial<ChatItem>): LiveTurn {
  return { ...t, answer: { ...t.answer, ...patch } };
}

function receiptOf(v: unknown): ReceiptRef | null {
  if (v && typeof v === 'object' && typeof (v as ReceiptRef).turn_id === 'string') return v as ReceiptRef;
  return null;
}

/**
 * Files a tool call produced (the sandbox's `artifact` event, `{call_id, artifacts: [{name, mime,
 * bytes, sha256, url}]}`, or one artifact per event), keyed by `call_id` onto that call. The event
 * comes before the call's result; a call not seen yet is added (its result attaches later).
 */
function withArtifacts(t: LiveTurn, value: Record<string, unknown>): LiveTurn {
  const callId = s(value.call_id);
  const list = artifactsOfEvent(value);
  if (!callId || !list.length) return t;
  const known = t.answer.tools.some((x) => x.id === callId);
  const tools = known
    ? t.answer.tools.map((x) => (x.id === callId ? { ...x, artifacts: mergeArtifacts(x.artifacts ?? [], list) } : x))
    : [...t.answer.tools, { id: callId, name: s(value.tool) || 'tool', args: '', result: null, done: false, artifacts: mergeArtifacts([], list) }];
  return withAnswer(t, { tools });
}

function custom(t: LiveTurn, name: string, value: Record<string, unknown>): LiveTurn {
  switch (name) {
    case 'session_created':
      return { ...t, sessionId: s(value.session_id) || t.sessionId };
    case 'approval_required': {
      const list = Array.isArray(value.approvals) ? value.approvals as ApprovalView[] : [];
      const known = new Set(t.answer.approvals.map((a) => a.id));
      return withAnswer({ ...t, sessionId: t.sessionId ?? (s(value.session_id) || null) }, { approvals: [...t.answer.approvals, ...list.filter((a) => !known.has(a.id))] });
    }
    case 'blocked':
      return withAnswer(t, { notices: [...t.answer.notices, { kind: 'blocked', text: `Blocked by the guardrail: ${s(value.reason) || 'policy'}` }] });
    case 'retract':
      // The output guardrail withdrew what was already shown: the text goes, the notice stays.
      return withAnswer(t, { content: '', notices: [...t.answer.notices, { kind: 'retract', text: `The answer was retracted: ${s(value.reason) || 'policy'}` }] });
    case 'user_redaction': {
      const cats = Array.isArray(value.categories_scrubbed) ? (value.categories_scrubbed as string[]).join(', ') : '';
      const n = typeof value.entities_redacted === 'number' ? value.entities_redacted : 0;
      const display = s(value.display_content);
      return {
        ...t,
        user: { ...t.user, content: display || t.user.content, notices: [...t.user.notices, { kind: 'user_redaction', text: `${n} item${n === 1 ? '' : 's'} redacted before sending${cats ? ` (${cats})` : ''}` }] },
      };
    }
    case 'mcp_failures': {
      const f = Array.isArray(value.failures) ? value.failures as Array<{ server_name?: string; error?: string }> : [];
      return withAnswer(t, { notices: [...t.answer.notices, { kind: 'mcp_failures', text: `Tool servers failed: ${f.map((x) => `${x.server_name ?? '?'} (${x.error ?? 'error'})`).join(', ')}` }] });
    }
    case 'done': {
      const r = receiptOf(value.receipt);
      const next = { ...t, sessionId: s(value.session_id) || t.sessionId, turnId: t.turnId ?? r?.turn_id ?? null };
      return withAnswer(next, { receipt: r ?? t.answer.receipt, serverId: s(value.assistant_message_id) || t.answer.serverId, turnId: next.turnId });
    }
    case 'artifact': {
      if (value.type !== 'citations') return withArtifacts(t, value);
      if (!Array.isArray(value.citations)) return t;
      const list = (value.citations as unknown[]).filter((c): c is Citation => !!c && typeof c === 'object'
        && typeof (c as Citation).index === 'number' && typeof (c as Citation).document_id === 'string');
      return withAnswer(t, { citations: mergeCitations(t.answer.citations, list) });
    }
    case 'error':
      return { ...withAnswer(t, { notices: [...t.answer.notices, { kind: 'error', text: s(value.message) || 'The turn failed.' }] }), error: { message: s(value.message), code: s(value.code) || null } };
    default:
      return t;
  }
}

/** Apply one event. Unknown events leave the turn unchanged. */
export function reduceTurn(t: LiveTurn, e: AguiEvent): LiveTurn {
  switch (e.type) {
    case 'RUN_STARTED':
      // threadId is the session id; before the server names one, the gateway sends the run (turn) id.
      return withTurnId({ ...t, sessionId: t.sessionId ?? (e.threadId && e.threadId !== e.runId ? s(e.threadId) : null) }, t.turnId ?? (s(e.runId) || null));
    case 'TEXT_MESSAGE_START':
      return e.role && e.role !== 'assistant' ? t : withAnswer(t, { serverId: t.answer.serverId ?? (s(e.messageId) || null) });
    case 'TEXT_MESSAGE_CONTENT':
    case 'TEXT_MESSAGE_CHUNK':
      return withAnswer(t, { content: t.answer.content + s(e.delta) });
    case 'REASONING_MESSAGE_CONTENT':
    case 'REASONING_MESSAGE_CHUNK':
    case 'THINKING_TEXT_MESSAGE_CONTENT':
      return withAnswer(t, { reasoning: t.answer.reasoning + s(e.delta) });
    case 'TOOL_CALL_START':
      // A call an artifact event announced first keeps its place and gets its name.
      if (t.answer.tools.some((x) => x.id === s(e.toolCallId))) return withAnswer(t, { tools: t.answer.tools.map((x) => (x.id === s(e.toolCallId) ? { ...x, name: s(e.toolCallName) } : x)) });
      return withAnswer(t, { tools: [...t.answer.tools, { id: s(e.toolCallId), name: s(e.toolCallName), args: '', result: null, done: false }] });
    case 'TOOL_CALL_ARGS':
      return withAnswer(t, { tools: t.answer.tools.map((x) => (x.id === e.toolCallId ? { ...x, args: x.args + s(e.delta) } : x)) });
    case 'TOOL_CALL_END':
      return withAnswer(t, { tools: t.answer.tools.map((x) => (x.id === e.toolCallId ? { ...x, done: true } : x)) });
    case 'TOOL_CALL_RESULT': {
      const known = t.answer.tools.some((x) => x.id === e.toolCallId);
      const tools = known
        ? t.answer.tools.map((x) => (x.id === e.toolCallId ? { ...x, result: s(e.content), done: true } : x))
        : [...t.answer.tools, { id: s(e.toolCallId), name: 'tool', args: '', result: s(e.content), done: true }];
      return withAnswer(t, { tools });
    }
    case 'CUSTOM':
      return custom(t, s(e.name), (e.value && typeof e.value === 'object' ? e.value : {}) as Record<string, unknown>);
    case 'RUN_FINISHED': {
      const result = (e.result && typeof e.result === 'object' ? e.result : {}) as Record<string, unknown>;
      // The gateway puts the legacy `done` payload (session, receipt, message ids) in `result`.
      const fin = Object.keys(result).length ? custom(t, 'done', result) : t;
      return { ...withAnswer(fin, { streaming: false }), status: fin.error ? 'error' : 'done' };
    }
    case 'RUN_ERROR': {
      if (e.code === 'abort') return stopTurn(t);
      const msg = s(e.message) || 'The turn failed.';
      return { ...withAnswer(t, { streaming: false, notices: [...t.answer.notices, { kind: 'error', text: msg }] }), status: 'error', error: { message: msg, code: s(e.code) || null } };
    }
    default:
      return t;
  }
}

/** The user pressed Stop (or Esc). */
export function stopTurn(t: LiveTurn): LiveTurn {
  if (t.status !== 'streaming') return t;
  return { ...withAnswer(t, { streaming: false, notices: [...t.answer.notices, { kind: 'stopped', text: 'Stopped.' }] }), status: 'stopped' };
}

/** The request failed before or while streaming. */
export function failTurn(t: LiveTurn, message: string, code: string | null): LiveTurn {
  return { ...withAnswer(t, { streaming: false, notices: [...t.answer.notices, { kind: 'error', text: message }] }), status: 'error', error: { message, code } };
}

/** Stamp the turn id read from the response header `X-Svc-Turn-Id` (DESIGN.md). */
export function withTurnId(t: LiveTurn, turnId: string | null): LiveTurn {
  if (!turnId) return t;
  return { ...t, turnId, answer: { ...t.answer, turnId }, user: { ...t.user, turnId } };
}
