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
import type { Prompt } from './build-prompt.js';
import { failTurn } from './deliver.js';
import { runToolCalls, type ToolRound } from './tool-calls.js';
import { clientClosed, emitTurnEvent, round, type ChatDeps, type Turn, type TurnOutcome } from './turn.js';

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
  const rules = d.policyRules(who.tenantId);
  const gate = d.toolGate?.(who.tenantId, who) ?? null;
  const policyOf = (t: RegisteredTool): ToolPolicy => gatedPolicy(gate, t.definition.function.name, resolvePolicy(rules, who.tenantId, agentId, t.definition.function.name, t.policy ?? 'auto').policy);
  const offered = d.tools.list().filter((t) => policyOf(t) !== 'deny');
  const toolRound: ToolRound = { messages, persist: [], policyOf, streamed: '' };
  for (let step = 1; step <= s.maxToolSteps; step++) {
    trace.steps = step;
    const tools = step < s.maxToolSteps ? offered : [];
    const body = { model: role, messages, ...(tools.length ? { tools: d.tools.definitions(tools) } : {}) };
    const promptJson = JSON.stringify(body);
    emitTurnEvent(d, turn, 'prompt_generated', { step, model_role: role, message_count: messages.length, tools: tools.map((t) => t.definition.function.name), ...(step === 1 ? { summary: promptSummary(messages) } : {}) }, { kind: 'prompt', body: promptJson });
    emitTurnEvent(d, turn, 'model_invoked', { step, model: role, stream: true });
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
      turn.journal?.ended('model_call', performance.now() - called, 'error', { call: step, model_role: role, code: e.code });
      return { outcome: await failTurn(d, turn, e.code, e.message) };
    }
    recordResponse(d, turn, step, result);
    if (result.toolCalls.length === 0) return { final: result, persist: toolRound.persist };
    const ended = await runToolCalls(d, turn, toolRound, result);
    if (ended) return { outcome: ended };
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
