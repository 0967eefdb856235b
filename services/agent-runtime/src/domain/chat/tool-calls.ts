/**
 * The tool half of step 5 (issue 5 item 3; spec "Chat stream events": tool_call, approval_required,
 * tool_result, artifact; "Turn events": tool_called, tool_returned): the model asked for tools. Each
 * call is planned against the registry and the policy (`auto` runs, `ask` parks the run until the
 * owner decides, `deny` never runs), then run in order; every result goes back to the model.
 * Files a call produced (issue 12 item 6) are stored through audit and announced by one `artifact`
 * event (tool-files.ts). Each result passes the guardrail as a `tool` source before the model sees
 * it (issue 16 item 4, guard-context.ts).
 */
import type { ToolOutput, ToolPolicy, ToolResult } from '../../contracts.js';
import type { ModelResult, ModelToolCall, NewMessage, OpenAiMessage } from '../ports.js';
import type { RegisteredTool } from '../tool-registry.js';
import { guardContent } from './guard-context.js';
import { agentServiceCall } from '../agents/scoped-calls.js';
import { checkFiles, committedFiles, storeFiles } from './tool-files.js';
import { clientClosed, cutResult, emitTurnEvent, nextId, round, type ChatDeps, type Turn, type TurnOutcome } from './turn.js';

/** What one round of tool calls works on. */
export interface ToolRound {
  /** The prompt; the assistant's call and each result are appended. */
  messages: OpenAiMessage[];
  /** Messages to store at the end of the turn. */
  persist: NewMessage[];
  /** Policy of a registered tool for this turn's tenant and agent. */
  policyOf(tool: RegisteredTool): ToolPolicy;
  /** Text streamed so far in this turn (carried by `approval_required`). */
  streamed: string;
  /** The tool a call names, as this turn's agent may use it (issue 17 item 1); absent = the registry's. */
  find?(name: string): RegisteredTool | undefined;
  /** Names of the tools the client runs itself (issue 17 item 5); their calls are handed back, not run. */
  clientTools?: ReadonlySet<string>;
  /** The calls to client tools of the last round: the turn ends with them handed back. */
  handedBack?: ModelToolCall[];
}

/** Verdict of a call to a client tool: not run here, handed back to the client (issue 17 item 5). */
const HANDED_BACK = 'handed_back';

/** A call as planned: its tool, parsed arguments, policy, and why it will not run (null = it runs). */
interface PlannedCall {
  call: ModelToolCall;
  tool: RegisteredTool | undefined;
  args: Record<string, unknown> | null;
  policy: ToolPolicy;
  verdict: string | null;
  approvalId?: string;
}

/** Plan every call and announce it (`tool_call`). */
function planCalls(d: Pick<ChatDeps, 'tools'>, turn: Turn, round: ToolRound, calls: readonly ModelToolCall[]): PlannedCall[] {
  return calls.map((call) => {
    const tool = round.find ? round.find(call.name) : d.tools.get(call.name);
    let args: Record<string, unknown> | null = null;
    try {
      const v = call.arguments.trim() ? JSON.parse(call.arguments) as unknown : {};
      if (v && typeof v === 'object' && !Array.isArray(v)) args = v as Record<string, unknown>;
    } catch { args = null; }
    const client = !tool && round.clientTools?.has(call.name) === true;
    const policy: ToolPolicy = tool ? round.policyOf(tool) : client ? 'auto' : 'deny';
    turn.sink('tool_call', { tool: call.name, arguments: args ?? call.arguments, call_id: call.id });
    let verdict: string | null = null;
    if (client) verdict = HANDED_BACK;
    else if (!tool) verdict = `error: unknown tool "${call.name}"`;
    else if (args === null) verdict = 'error: the arguments are not a JSON object';
    else if (policy === 'deny') verdict = 'error: this tool is denied by policy';
    return { call, tool, args, policy, verdict };
  });
}

/**
 * File approvals for the `ask` calls, announce them (`approval_required`) and park until each is
 * decided, expires or the run goes away; a call not approved gets its verdict.
 * @returns the outcome when the client went away meanwhile, else null.
 */
async function awaitApprovals(d: Pick<ChatDeps, 'approvals' | 'settings'>, turn: Turn, asks: PlannedCall[], streamed: string): Promise<TurnOutcome | null> {
  const { who, session, agentId } = turn.p;
  const timeoutMs = d.settings.approvalTimeoutSeconds * 1000;
  const filed = await d.approvals.file(asks.map((x) => ({
    tenantId: who.tenantId, userId: who.userId, sessionId: session.id, agentId, turnId: who.turnId, tool: x.call.name, callId: x.call.id, arguments: x.args,
  })), timeoutMs);
  asks.forEach((x, i) => { x.approvalId = filed[i]!.id; });
  const approvals = turn.approvals;
  approvals.push(...filed);
  // Issue 17 item 3: an MCP tool's approval shows its server beside the arguments.
  const shown = filed.map((a, i) => { const m = asks[i]!.tool?.mcp; return m ? { ...a, server: { id: m.server_id, name: m.server_name, tool: m.tool } } : a; });
  turn.sink('approval_required', { session_id: session.id, agent_id: agentId, approvals: shown, ...(streamed ? { content: streamed } : {}) });
  const waited = turn.journal?.begin('approval_wait');
  const decided = await d.approvals.wait(who.tenantId, filed.map((a) => a.id), timeoutMs, turn.signal);
  waited?.(filed.every((a) => decided.get(a.id)?.status === 'approved') ? 'approved' : 'not_approved', { approvals: filed.map((a) => ({ id: a.id, tool: a.tool, status: decided.get(a.id)?.status ?? 'cancelled' })) });
  for (const x of asks) {
    const v = decided.get(x.approvalId!);
    const i = approvals.findIndex((a) => a.id === x.approvalId);
    if (v && i >= 0) approvals[i] = v;
    if (v?.status !== 'approved') x.verdict = `error: the user did not approve this call (${v?.status ?? 'cancelled'})`;
  }
  turn.sink('trace_update', { patch: { approvals: approvals.map((a) => ({ id: a.id, tool: a.tool, status: a.status })) } });
  return turn.signal.aborted ? clientClosed(turn) : null;
}

/** Run one planned call that may run. A throw, or an answer marked `isError`, comes back as `error: <message>`. */
async function execute(d: Pick<ChatDeps, 'events' | 'audit' | 'serviceUrls' | 'serviceCall' | 'log'>, turn: Turn, x: PlannedCall): Promise<{ res: ToolResult; ok: boolean }> {
  const { who, session, agentId } = turn.p;
  const inputJson = JSON.stringify({ tool: x.call.name, call_id: x.call.id, arguments: x.args });
  emitTurnEvent(d, turn, 'tool_called', { tool: x.call.name, call_id: x.call.id, policy: x.policy, approval_id: x.approvalId ?? null, source: x.tool!.source }, { kind: 'tool_input', body: inputJson });
  const started = performance.now();
  let res: ToolResult;
  let ok = true;
  try {
    res = await x.tool!.execute(x.args!, {
      tenantId: who.tenantId, userId: who.userId, agentId, sessionId: session.id, turnId: who.turnId, callId: x.call.id,
      // Issue 17 item 1: the agent's knowledge filter and memory scope apply to the tool's service calls.
      headers: who.headers, serviceUrls: d.serviceUrls, signal: turn.signal, callService: agentServiceCall(d.serviceCall(who.headers, turn.signal), agentId, turn.p.agent),
    });
    if (typeof res !== 'string' && res.isError) throw new Error(res.content);
  } catch (err) {
    ok = false;
    res = `error: ${(err as Error).message ?? String(err)}`;
    // Issue 17 item 3: an MCP server that failed during the turn is reported; the turn goes on.
    const failure = (err as { failure?: { server_id: string; server_name: string; error: string } } | null)?.failure;
    if (failure?.server_id) turn.sink('mcp_failures', { failures: [failure] });
  }
  const text = typeof res === 'string' ? res : res.content;
  // Files (sandbox figures): committed by sha256 in tool_returned, stored under its id, announced once.
  const files = typeof res !== 'string' && res.files?.length ? checkFiles(res.files) : null;
  if (files?.dropped.length) d.log.warn({ tool: x.call.name, dropped: files.dropped }, 'tool files over the limits were dropped');
  const commit = typeof res !== 'string' && res.commit ? res.commit : {};
  const eventId = emitTurnEvent(d, turn, 'tool_returned', {
    ...commit, tool: x.call.name, call_id: x.call.id, ok, duration_ms: round(performance.now() - started), ...(files?.kept.length ? { artifacts: committedFiles(files.kept) } : {}),
  }, { kind: 'tool_output', body: text });
  if (files?.kept.length) turn.sink('artifact', { call_id: x.call.id, artifacts: await storeFiles(d, who.turnId, eventId, files.kept) });
  if (typeof res !== 'string') for (const a of artifactsOf(x.call.name, res)) turn.sink('artifact', { ...a, call_id: x.call.id });
  return { res, ok };
}

/** What a tool's answer announces: its artifacts, then its citations as one `citations` artifact. */
function artifactsOf(tool: string, out: ToolOutput): Array<Record<string, unknown>> {
  const list = [...(out.artifacts ?? [])];
  if (out.citations?.length) list.push({ type: 'citations', tool, citations: out.citations });
  return list;
}

/**
 * Run the tool calls of one model answer: store the assistant's call, plan, await approvals, run
 * each call in order and hand every result to the model and the stream.
 * @returns the outcome when the client went away while the run was parked, else null (go on).
 */
export async function runToolCalls(d: ChatDeps, turn: Turn, round: ToolRound, result: ModelResult): Promise<TurnOutcome | null> {
  const { who } = turn.p;
  const { messages, persist } = round;
  messages.push({ role: 'assistant', content: result.content || null, tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
  persist.push({ id: nextId(), role: 'assistant', content: result.content, parts: null, tool_calls: JSON.stringify(result.toolCalls), tool_call_id: null, name: null, turn_id: who.turnId, trace: null, receipt: null, created_at: new Date().toISOString() });
  const planned = planCalls(d, turn, round, result.toolCalls);
  const asks = planned.filter((x) => x.verdict === null && x.policy === 'ask');
  if (asks.length) {
    const ended = await awaitApprovals(d, turn, asks, round.streamed);
    if (ended) return ended;
  }
  for (const x of planned) {
    if (x.verdict === HANDED_BACK) {
      round.handedBack?.push(x.call);
      turn.trace.tool_calls.push({ tool: x.call.name, call_id: x.call.id, policy: x.policy, status: HANDED_BACK });
      continue;
    }
    let text: string;
    let status = 'ok';
    const began = performance.now();
    if (x.verdict !== null) { text = x.verdict; status = x.approvalId ? 'not_approved' : x.policy === 'deny' ? 'denied' : 'invalid'; } else {
      const { res, ok } = await execute(d, turn, x);
      text = typeof res === 'string' ? res : res.content;
      if (!ok) status = 'error';
    }
    // Issue 16 item 4: a tool's result passes the guardrail before the model (or the history) sees it.
    if (x.verdict === null) text = (await guardContent(d, turn, text, 'tool')).text;
    turn.trace.tool_calls.push({ tool: x.call.name, call_id: x.call.id, policy: x.policy, status, ...(x.approvalId ? { approval_id: x.approvalId } : {}) });
    turn.journal?.ended('tool_call', performance.now() - began, status, { tool: x.call.name, call_id: x.call.id, policy: x.policy, ...(x.approvalId ? { approval_id: x.approvalId } : {}) });
    turn.sink('tool_result', { tool: x.call.name, result: cutResult(text), call_id: x.call.id });
    messages.push({ role: 'tool', tool_call_id: x.call.id, content: text });
    persist.push({ id: nextId(), role: 'tool', content: text, parts: null, tool_calls: null, tool_call_id: x.call.id, name: x.call.name, turn_id: who.turnId, trace: null, receipt: null, created_at: new Date().toISOString() });
  }
  return null;
}
