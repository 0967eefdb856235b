/**
 * Step 5 of a turn: the model and tool loop (issue 5 items 1 and 3). Each step sends the prompt
 * (streamed: tokens and thinking go to the stream as they come), captures the prompt and the answer
 * as turn events with artifacts, and runs the tools the model asked for; the last step offers no
 * tools, so the loop ends with an answer. A failed model call ends the turn with `error` (never a throw).
 */
import type { ToolPolicy } from '../../contracts.js';
import { InferenceError, classifyThrown } from '../inference-errors.js';
import type { ModelResult, NewMessage, OpenAiMessage } from '../ports.js';
import type { RegisteredTool } from '../tool-registry.js';
import { gatedPolicy, resolvePolicy } from '../tool-policy.js';
import { agentAllows } from '../agents/catalog.js';
import type { Prompt } from './build-prompt.js';
import { failTurn } from './deliver.js';
import { runToolCalls, type ToolRound } from './tool-calls.js';
import { clientClosed, emitTurnEvent, round, type ChatDeps, type Turn, type TurnOutcome } from './turn.js';

/** Source of the per-turn `load_skill` tool (issue 17 item 2). */
const SKILLS_SOURCE = 'skills';

/** Rank of a policy, strictest highest. */
const POLICY_RANK: Record<ToolPolicy, number> = { auto: 0, ask: 1, deny: 2 };

/** The stricter of a tool's policy and an agent's approval floor (issue 17 item 1: `tool_approval`). */
export function stricterPolicy(p: ToolPolicy, floor: ToolPolicy): ToolPolicy {
  return POLICY_RANK[floor] > POLICY_RANK[p] ? floor : p;
}

/** How the loop ended: with the final answer (null when the step limit hit mid-tools) and what to store, or with an outcome. */
export type LoopEnd = { final: ModelResult | null; persist: NewMessage[] } | { outcome: TurnOutcome };

/** Record one model answer in the trace and as a `model_response` event with its body. */
function recordResponse(d: ChatDeps, turn: Turn, step: number, result: ModelResult): void {
  const { trace } = turn;
  trace.model = result.model;
  if (trace.timings.ttft_ms === null && result.ttftMs !== null) trace.timings.ttft_ms = round(performance.now() - turn.t0 - (result.latencyMs - result.ttftMs));
  if (result.usage) { trace.usage.prompt_tokens += result.usage.prompt_tokens; trace.usage.completion_tokens += result.usage.completion_tokens; }
  turn.journal?.ended('model_call', result.latencyMs, 'ok', {
    call: step, model: result.model, model_role: turn.trace.model_role, latency_ms: round(result.latencyMs), ttft_ms: result.ttftMs === null ? null : round(result.ttftMs),
    prompt_tokens: result.usage?.prompt_tokens ?? null, completion_tokens: result.usage?.completion_tokens ?? null, finish_reason: result.finishReason, tool_calls: result.toolCalls.map((c) => c.name),
  });
  const responseJson = JSON.stringify({ model: result.model, content: result.content, reasoning: result.reasoning || undefined, tool_calls: result.toolCalls, finish_reason: result.finishReason, usage: result.usage });
  emitTurnEvent(d, turn, 'model_response', {
    step, model: result.model, finish_reason: result.finishReason, tool_calls: result.toolCalls.map((c) => c.name), usage: result.usage,
    latency_ms: round(result.latencyMs), ttft_ms: result.ttftMs === null ? null : round(result.ttftMs),
  }, { kind: 'model_response', body: responseJson });
}

/** Call the model until it answers without tools, the step limit is reached, or the turn ends. */
export async function modelAndToolLoop(d: ChatDeps, turn: Turn, prompt: Prompt): Promise<LoopEnd> {
  const s = d.settings;
  const { who, agentId } = turn.p;
  const { trace, sink, signal } = turn;
  const { messages, role } = prompt;
  const rules = await d.policyRules(who.tenantId);
  const gate = (await d.toolGate?.(who.tenantId, who)) ?? null;
  // Issue 17 item 1: the agent's approval floor and tool allow-list; item 2: `load_skill` when skills are offered.
  const agent = turn.p.agent;
  const turnTools: RegisteredTool[] = prompt.skills && d.skills ? [{ ...d.skills.tool, source: SKILLS_SOURCE }] : [];
  const allowed = (t: RegisteredTool): boolean => t.source === SKILLS_SOURCE || !agent
    || (agentAllows(agent.tools, t.definition.function.name, t.source) && !(agent.memoryScope === 'none' && t.source === 'memory'));
  const policyOf = (t: RegisteredTool): ToolPolicy => {
    const p = gatedPolicy(gate, t.definition.function.name, resolvePolicy(rules, who.tenantId, agentId, t.definition.function.name, t.policy ?? 'auto').policy);
    return t.source === SKILLS_SOURCE ? p : stricterPolicy(p, agent?.toolApproval ?? 'auto');
  };
  const offered = [...d.tools.list().filter(allowed), ...turnTools].filter((t) => policyOf(t) !== 'deny');
  const find = (name: string): RegisteredTool | undefined => {
    const t = turnTools.find((x) => x.definition.function.name === name) ?? d.tools.get(name);
    return t && allowed(t) ? t : undefined;
  };
  // Issue 17 item 5: tools the client declared (a registered tool of the same name wins).
  const clientTools = (turn.p.clientTools ?? []).filter((c) => !d.tools.get(c.name));
  const clientDefs = clientTools.map((c) => ({ type: 'function' as const, function: { name: c.name, description: c.description ?? '', parameters: c.parameters ?? { type: 'object', properties: {} } } }));
  const toolRound: ToolRound = { messages, persist: [], policyOf, find, streamed: '', clientTools: new Set(clientTools.map((c) => c.name)), handedBack: [] };
  for (let step = 1; step <= s.maxToolSteps; step++) {
    trace.steps = step;
    const tools = step < s.maxToolSteps ? offered : [];
    const defs = [...d.tools.definitions(tools), ...(step < s.maxToolSteps ? clientDefs : [])];
    // Issue 17 item 1: an agent's concrete `model` is what the router is asked for; else the role routes.
    const asked = prompt.model ?? role;
    const body = { model: asked, messages, ...(defs.length ? { tools: defs } : {}) };
    const promptJson = JSON.stringify(body);
    emitTurnEvent(d, turn, 'prompt_generated', { step, model_role: role, ...(prompt.model ? { model: prompt.model } : {}), message_count: messages.length, tools: defs.map((t) => t.function.name), agent_id: agentId, ...(prompt.skills ? { skills_offered: prompt.skills } : {}), ...(step === 1 ? { summary: promptSummary(messages) } : {}) }, { kind: 'prompt', body: promptJson });
    emitTurnEvent(d, turn, 'model_invoked', { step, model: asked, stream: true });
    let result: ModelResult;
    const called = performance.now();
    try {
      result = await d.model.stream(body, who.headers, {
        onToken: (text) => { toolRound.streamed += text; sink('token', { content: text }); },
        onThinking: (text) => sink('thinking', { content: text }),
      }, signal);
    } catch (err) {
      if (signal.aborted) return { outcome: clientClosed(turn) };
      const e = err instanceof InferenceError ? err : classifyThrown(err);
      turn.journal?.ended('model_call', performance.now() - called, 'error', { call: step, model_role: role, ...(prompt.model ? { model: prompt.model } : {}), code: e.code });
      return { outcome: await failTurn(d, turn, e.code, e.message) };
    }
    recordResponse(d, turn, step, result);
    if (result.toolCalls.length === 0) return { final: result, persist: toolRound.persist };
    const ended = await runToolCalls(d, turn, toolRound, result);
    if (ended) return { outcome: ended };
    // Calls to client tools end the turn: handed back (the stream's tool_call), answered next turn.
    if (toolRound.handedBack?.length) return { final: { ...result, content: '' }, persist: toolRound.persist };
  }
  return { final: null, persist: toolRound.persist };
}

/** Longest receipt summary the runtime sends, characters. */
const SUMMARY_CHARS = 80;

/**
 * The first words of the user's message as the model gets it (after the input guardrail: redacted
 * text, never a blocked one, which does not reach the model), one line, at most 80 characters: the
 * `summary` of the first `prompt_generated`, which the receipts list shows (issue 13 item 7; seen
 * by whoever sees the receipt). @returns null when the prompt has no user text.
 */
export function promptSummary(messages: readonly OpenAiMessage[]): string | null {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last?.content) return null;
  const text = typeof last.content === 'string'
    ? last.content
    : last.content.filter((p) => p.type === 'text' && typeof p.text === 'string').map((p) => p.text as string).join(' ');
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length === 0 ? null : chars.length <= SUMMARY_CHARS ? flat : `${chars.slice(0, SUMMARY_CHARS - 1).join('').trimEnd()}…`;
}
