/**
 * AG-UI's own run input on `POST /v1/chat/agui/stream` (issue 17 item 5; AG-UI protocol 1.0
 * `RunAgentInput` as `@ag-ui/core` publishes it). A body with `threadId` or `runId` is a
 * RunAgentInput: it is validated with `@ag-ui/core`'s `RunAgentInputSchema` (a malformed one is a
 * 400 `invalid_request` before any `RUN_STARTED`) and mapped to the runtime's chat body. Any other
 * body is the runtime's chat body, forwarded as it is. Pure.
 *
 * | RunAgentInput | chat body |
 * |---|---|
 * | threadId | `session_id` (the handler retries without it when the runtime does not know the session) |
 * | messages | with a session: the messages after the last assistant message (the new ones: user text, or `tool` results `{tool_call_id}`); without: every user/system/assistant text message (`developer` is `system`) |
 * | context | one leading `system` message "Context from the client" listing `description: value` |
 * | tools | `client_tools` `{name, description, parameters}`: offered to the model, calls handed back |
 * | forwardedProps.agent_id | `agent_id` |
 * | state, runId, parentRunId | not used (runId of the events is the turn id, so a client finds the receipt) |
 * | resume | answers approval interrupts (handler.ts, interrupts.ts) |
 */
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { RunAgentInput } from '@ag-ui/core';

/** What a request body is. */
export type RunInputRead =
  | { kind: 'chat' }
  | { kind: 'invalid'; message: string }
  | { kind: 'input'; input: RunAgentInput };

/** One chat message as the runtime takes it. */
interface ChatMessage { role: 'system' | 'user' | 'assistant' | 'tool'; content: string; tool_call_id?: string }

function parse(body: unknown): unknown {
  if (Buffer.isBuffer(body)) { try { return JSON.parse(body.toString('utf8')); } catch { return undefined; } }
  if (typeof body === 'string') { try { return JSON.parse(body); } catch { return undefined; } }
  return body;
}

/**
 * Classify and validate a request body.
 * @returns `chat` for the runtime's own body (or a body that is not JSON: the runtime answers it),
 *   `invalid` with the first schema issue, or the validated input.
 */
export function readRunInput(body: unknown): RunInputRead {
  const v = parse(body);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { kind: 'chat' };
  const o = v as Record<string, unknown>;
  if (!('threadId' in o) && !('runId' in o)) return { kind: 'chat' };
  const r = RunAgentInputSchema.safeParse(o);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    return { kind: 'invalid', message: `invalid RunAgentInput at ${where}: ${issue?.message ?? 'does not validate'}` };
  }
  return { kind: 'input', input: r.data as RunAgentInput };
}

/** The text of an AG-UI message content (a string, or the text of its parts; other parts are left out). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((p): p is { type: 'text'; text: string } => !!p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string')
    .map((p) => p.text).join('\n');
}

/** AG-UI messages -> chat messages (roles the runtime does not take are left out). */
function chatMessages(messages: RunAgentInput['messages']): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const content = textOf((m as { content?: unknown }).content);
    if (m.role === 'user' || m.role === 'system') { if (content.trim()) out.push({ role: m.role, content }); } else if (m.role === 'developer') {
      if (content.trim()) out.push({ role: 'system', content });
    } else if (m.role === 'assistant') { if (content.trim()) out.push({ role: 'assistant', content }); } else if (m.role === 'tool') out.push({ role: 'tool', content, tool_call_id: m.toolCallId });
  }
  return out;
}

/**
 * The runtime chat body of a RunAgentInput.
 * @param withSession whether `threadId` is sent as the session (only the new messages go), or a new
 *   session is started from the whole history (tool results and tool calls left out).
 */
export function chatBodyOf(input: RunAgentInput, withSession: boolean): Record<string, unknown> {
  let msgs = input.messages;
  if (withSession) {
    const lastAssistant = msgs.map((m) => m.role).lastIndexOf('assistant');
    msgs = msgs.slice(lastAssistant + 1);
  }
  let messages = chatMessages(msgs);
  if (!withSession) messages = messages.filter((m) => m.role !== 'tool');
  const context = (input.context ?? []).filter((c) => c.description || c.value);
  if (context.length) {
    messages.unshift({ role: 'system', content: `Context from the client:\n${context.map((c) => `- ${c.description}: ${c.value}`).join('\n')}` });
  }
  const agentId = (input.forwardedProps as { agent_id?: unknown } | undefined)?.agent_id;
  const tools = (input.tools ?? []).map((t) => ({ name: t.name, description: t.description, ...(t.parameters && typeof t.parameters === 'object' ? { parameters: t.parameters } : {}) }));
  return {
    messages,
    ...(withSession ? { session_id: input.threadId } : {}),
    ...(typeof agentId === 'string' ? { agent_id: agentId } : {}),
    ...(tools.length ? { client_tools: tools } : {}),
  };
}

/** An approval decision a resume entry asks for: `resolved` with `payload.approved !== false` approves. */
export interface ResumeDecision { approvalId: string; approve: boolean; reason?: string }

/** The decisions of `input.resume` (empty when the run resumes nothing). */
export function resumeDecisions(input: RunAgentInput): ResumeDecision[] {
  return (input.resume ?? []).map((r) => {
    const p = (r.payload && typeof r.payload === 'object' ? r.payload : {}) as { approved?: unknown; reason?: unknown };
    return {
      approvalId: r.interruptId, approve: r.status === 'resolved' && p.approved !== false && r.payload !== false,
      ...(typeof p.reason === 'string' ? { reason: p.reason.slice(0, 1000) } : {}),
    };
  });
}
