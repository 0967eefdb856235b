/**
 * Step 3 of a turn: memory prefetch and knowledge retrieval, in parallel (DESIGN.md "Chat turn,
 * end to end"). A source that cannot be reached is recorded `unavailable` and the turn goes on.
 * Every chunk and memory is checked by the guardrail before it reaches the prompt (issue 16 item 4,
 * guard-context.ts): injected spans are dropped, a chunk the guardrail withholds is left out.
 */
import type { ContextOutcome, OpenAiMessage } from '../ports.js';
import { guardContent } from './guard-context.js';
import { knowledgeFilterOf } from '../agents/scoped-calls.js';
import type { ChatDeps, Turn } from './turn.js';

/** Whether this turn looks up context (settings `contextPrefetch`, and a user text to look for). */
export function wantsContext(d: Pick<ChatDeps, 'settings'>, userText: string): boolean {
  return d.settings.contextPrefetch && userText.trim() !== '';
}

/**
 * Fetch memories and knowledge relevant to `userText` and record what each gave in the trace.
 * @returns the system message that carries them, or null when neither gave anything. Never throws.
 */
export async function prefetchContext(d: Pick<ChatDeps, 'context' | 'guardrail' | 'settings'>, turn: Turn, userText: string): Promise<OpenAiMessage | null> {
  const { who, agentId } = turn.p;
  const noted = turn.journal?.begin('prefetch');
  // Issue 17 item 1: an agent with memory scope `none` reads no memories, `agent` only its own;
  // its `knowledge` narrows retrieval (within the user's visibility).
  const noMemory = turn.p.agent?.memoryScope === 'none';
  const agentOnly = turn.p.agent?.memoryScope === 'agent';
  const filter = knowledgeFilterOf(turn.p.agent);
  const fetched = await Promise.all([
    noMemory ? { available: true, snippets: [] } as ContextOutcome
      : d.context.memories(userText, { tenant_id: who.tenantId, user_id: who.userId, agent_id: agentId }, who.headers, agentOnly ? { agentOnly } : undefined),
    d.context.knowledge(userText, who.tenantId, who.headers, filter),
  ]);
  // Issue 16 item 4: every chunk and memory passes the guardrail before the model sees it.
  const [mem, kn] = await Promise.all(fetched.map((o) => guardSnippets(d, turn, o)));
  turn.trace.context.memories = noMemory ? 'disabled' : mem.available ? mem.snippets.length : 'unavailable';
  turn.trace.context.knowledge = kn.available ? kn.snippets.length : 'unavailable';
  const lines: string[] = [];
  if (mem.available && mem.snippets.length) lines.push('Relevant memories about the user:', ...mem.snippets.map((m) => `- ${m.text}`));
  const memoryLines = lines.length;
  if (kn.available && kn.snippets.length) lines.push('Relevant knowledge:', ...kn.snippets.map((k) => `- [${k.source}] ${k.text}`));
  noteContext(turn, noted, mem, kn, lines, memoryLines);
  return lines.length ? { role: 'system', content: lines.join('\n') } : null;
}

/**
 * The snippets of `o` as the model may see them (issue 16 item 4): each checked as a `document`;
 * a rewritten one (its injected spans dropped) replaces the original, a withheld one is left out.
 */
async function guardSnippets(d: Pick<ChatDeps, 'guardrail' | 'settings'>, turn: Turn, o: ContextOutcome): Promise<ContextOutcome> {
  if (!o.available || o.snippets.length === 0) return o;
  const guarded = await Promise.all(o.snippets.map(async (sn) => ({ sn, g: await guardContent(d, turn, sn.text, 'document') })));
  return { available: true, snippets: guarded.filter((x) => x.g.verdict !== 'block').map((x) => (x.g.text === x.sn.text ? x.sn : { ...x.sn, text: x.g.text })) };
}

/** Note the prefetch in the turn's journal (issue 13 item 5): the step, each source's outcome and the text of its block. */
function noteContext(turn: Turn, noted: ((status: string, detail?: Record<string, unknown>) => void) | undefined, mem: ContextOutcome, kn: ContextOutcome, lines: string[], memoryLines: number): void {
  if (!turn.journal) return;
  const status = mem.available && kn.available ? 'ok' : mem.available || kn.available ? 'partial' : 'unavailable';
  noted?.(status, { memories: turn.trace.context.memories, knowledge: turn.trace.context.knowledge });
  turn.journal.prefetched({ memories: mem, knowledge: kn, memoryText: lines.slice(0, memoryLines).join('\n'), knowledgeText: lines.slice(memoryLines).join('\n') });
}
