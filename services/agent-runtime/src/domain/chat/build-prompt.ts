/**
 * Step 4 of a turn: the prompt. System prompt, the agent's instructions and the skills offered (issue 17), the user's profile (`profile` part) and context first, then the session's history
 * trimmed to the context budget (oldest first), then this turn's messages; the `vision` role when
 * an image is in it. File parts reach the model as text notes naming their workspace path
 * (attach-files.ts). The stream gets a `trace_update` with what was sent.
 */
import type { ChatContentPart, ChatMessageInput } from '../../contracts.js';
import { partsText, trimToBudget } from '../history.js';
import { modelContent } from './attach-files.js';
import type { MessageRow, OpenAiMessage } from '../ports.js';
import type { ChatDeps, Turn } from './turn.js';
import type { NamedPart } from '../context/journal.js';
import { skillsPromptPart } from '../skills/load-tool.js';

/**
 * One named system part of the prompt, in prompt order: `system_prompt`, `context` (the prefetched
 * memories and knowledge), and any other part the builder adds (e.g. `profile`). The context trace
 * (issue 13 item 5) records every part by its name with its estimated tokens.
 */
export type PromptPart = NamedPart;

/** The prompt of the first model call. */
export interface Prompt {
  /** Messages to send; the tool loop appends to it. */
  messages: OpenAiMessage[];
  /** Model role: `vision` when an image is in the prompt, else the agent's role or `default`. */
  role: string;
  /** The concrete model the completions ask for (an agent's `model`, issue 17 item 1; not with an image: `vision` routes), or null (the role routes). */
  model?: string | null;
  /** The named system parts at the head of `messages`. */
  parts: PromptPart[];
  /** How many skills the `skills` part offers (issue 17 item 2); 0 = none, and no `load_skill` tool. */
  skills?: number;
}

/**
 * The budget the prompt is trimmed to, estimated tokens: AGENT_RUNTIME_CONTEXT_BUDGET_TOKENS minus
 * AGENT_RUNTIME_RESPONSE_RESERVE_TOKENS, at least 256.
 */
export function promptBudgetTokens(s: Pick<ChatDeps['settings'], 'contextBudgetTokens' | 'responseReserveTokens'>): number {
  return Math.max(256, s.contextBudgetTokens - s.responseReserveTokens);
}

/** Stored message rows -> model messages (rows flagged `excluded` are left out). */
export function rowsToModelMessages(rows: readonly MessageRow[]): OpenAiMessage[] {
  const out: OpenAiMessage[] = [];
  for (const r of rows) {
    if (r.trace && r.trace.includes('"excluded":true')) continue;
    // The empty answer of a turn that handed tool calls back (issue 17 item 5): the results follow the calls.
    if (r.role === 'assistant' && !r.tool_calls && !r.parts && r.content === '') continue;
    if (r.role === 'tool') { out.push({ role: 'tool', tool_call_id: r.tool_call_id ?? '', content: r.content }); continue; }
    if (r.role === 'assistant' && r.tool_calls) {
      const calls = JSON.parse(r.tool_calls) as Array<{ id: string; name: string; arguments: string }>;
      out.push({ role: 'assistant', content: r.content || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      continue;
    }
    const parts = r.parts ? JSON.parse(r.parts) as ChatContentPart[] : null;
    out.push({ role: r.role as OpenAiMessage['role'], content: parts ? modelContent(parts) : r.content });
  }
  return out;
}

function inputToModel(m: ChatMessageInput): OpenAiMessage {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? '', content: partsText(m.content) };
  return { role: m.role, content: typeof m.content === 'string' ? m.content : modelContent(m.content) };
}

/**
 * Build the prompt from the history, this turn's input and the context message, and record the
 * history figures and model role in the trace.
 */
export async function buildPrompt(d: Pick<ChatDeps, 'settings' | 'profile' | 'skills'>, turn: Turn, history: readonly MessageRow[], input: readonly ChatMessageInput[], context: OpenAiMessage | null): Promise<Prompt> {
  const s = d.settings;
  const { trace } = turn;
  const parts: PromptPart[] = [];
  if (s.systemPrompt) parts.push({ name: 'system_prompt', message: { role: 'system', content: s.systemPrompt } });
  // The agent's instructions (issue 17 item 1), then the skills' names and descriptions (item 2; bodies load with `load_skill`).
  const agent = turn.p.agent;
  if (agent?.instructions) parts.push({ name: 'agent_instructions', message: { role: 'system', content: agent.instructions } });
  const skills = (await d.skills?.offered(turn.p.who.tenantId, turn.p.who.userId)) ?? [];
  const skillsText = skillsPromptPart(skills);
  if (skillsText) parts.push({ name: 'skills', message: { role: 'system', content: skillsText } });
  // The user's profile (issue 13 item 2), within AGENT_RUNTIME_PROFILE_BUDGET_TOKENS.
  const profile = (await d.profile?.contextPart(turn.p.who.tenantId, turn.p.who.userId)) ?? null;
  if (profile) parts.push({ name: 'profile', message: { role: 'system', content: profile.text } });
  if (context) parts.push({ name: 'context', message: context });
  const system = parts.map((x) => x.message);
  const offered = rowsToModelMessages(history);
  const inputMessages = input.map(inputToModel);
  const budget = promptBudgetTokens(s);
  const trimmed = trimToBudget(system, offered, inputMessages, budget);
  turn.journal?.prompted({ parts, history: offered, dropped: trimmed.dropped, input: inputMessages, estimatedTokens: trimmed.estimatedTokens, budgetTokens: budget });
  trace.history = { messages_sent: trimmed.messages.length, messages_trimmed: trimmed.dropped, estimated_tokens: trimmed.estimatedTokens };
  const messages = trimmed.messages;
  const vision = messages.some((m) => Array.isArray(m.content) && m.content.some((c) => c.type === 'image_url'));
  const role = vision ? 'vision' : agent?.modelRole ?? 'default';
  const model = vision ? null : agent?.model ?? null;
  trace.model_role = role;
  turn.sink('trace_update', { patch: { guardrail: { input: trace.guardrail.input }, context: trace.context, history: trace.history, model_role: role } });
  return { messages, role, parts, skills: skills.length, model };
}
