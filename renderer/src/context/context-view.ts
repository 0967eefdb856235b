/**
 * What the "why this answer" panel shows, computed from a turn's context record (issue 13 item 5;
 * agent runtime `GET /v1/context/turns/{turn_id}`): the token bars per part, the timeline of the
 * steps, and their labels. Plain TypeScript, unit-tested in Node.
 */
import type { ContextPart, ContextRecord, ContextStep } from '../api/types';

/** One bar of the tokens-per-part chart: `pct` of the largest part (0-100). */
export interface TokenBar { name: string; label: string; kind: string; tokens: number; pct: number; share: number; state: string }

/** Labels of the parts the runtime names. */
const PART_LABELS: Record<string, string> = {
  system_prompt: 'System prompt', profile: 'Profile', memories: 'Memories', knowledge: 'Knowledge', skills: 'Skills', history: 'History', input: 'Your message',
};

/** A part's label: the known name, else the name with `_` as spaces, capitalised. */
export function partLabel(name: string): string {
  const known = PART_LABELS[name];
  if (known) return known;
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : name;
}

/**
 * Bars of the chart, in prompt order: each part's tokens as a width relative to the largest part
 * (so small parts stay visible) and its share of the total (for the label).
 */
export function tokenBars(parts: readonly ContextPart[]): TokenBar[] {
  const max = Math.max(0, ...parts.map((p) => p.tokens));
  const total = parts.reduce((a, p) => a + p.tokens, 0);
  return parts.map((p) => ({
    name: p.name, label: partLabel(p.name), kind: p.kind, tokens: p.tokens, state: p.state,
    pct: max ? Math.round((p.tokens / max) * 1000) / 10 : 0,
    share: total ? Math.round((p.tokens / total) * 1000) / 10 : 0,
  }));
}

/** One row of the step timeline: where it starts and how long it is, as % of the turn's span. */
export interface TimelineRow { key: string; label: string; status: string; ok: boolean; summary: string; offsetPct: number; widthPct: number; ms: number }

const STEP_LABELS: Record<string, string> = {
  guard_input: 'Input check', prefetch: 'Memory and knowledge', model_call: 'Model call', tool_call: 'Tool call', approval_wait: 'Waiting for approval', guard_output: 'Output check',
};

/** Statuses that read as fine. */
const GOOD = new Set(['ok', 'allow', 'approved', 'completed']);

/** Duration for people: `840 ms`, `2.4 s`. */
export function formatMs(ms: number): string {
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** One line about a step: the model and tokens of a model call, the tool of a tool call, the guard's reason ('' when it gave none). */
export function stepSummary(s: ContextStep): string {
  const d = s.detail as Record<string, unknown>;
  switch (s.step) {
    case 'model_call': {
      const bits = [text(d.model) ?? text(d.model_role) ?? 'model'];
      const pin = num(d.prompt_tokens), pout = num(d.completion_tokens);
      if (pin !== null || pout !== null) bits.push(`${pin ?? '?'} in / ${pout ?? '?'} out tokens`);
      const tools = Array.isArray(d.tool_calls) ? d.tool_calls.filter((x): x is string => typeof x === 'string') : [];
      if (tools.length) bits.push(`asked for ${tools.join(', ')}`);
      if (text(d.code)) bits.push(String(d.code));
      return bits.join(' · ');
    }
    case 'tool_call': return [text(d.tool) ?? 'tool', text(d.policy) ? `policy ${String(d.policy)}` : null].filter(Boolean).join(' · ');
    case 'prefetch': return `memories: ${String(d.memories ?? '—')} · knowledge: ${String(d.knowledge ?? '—')}`;
    case 'guard_input': case 'guard_output': return text(d.reason) ?? '';
    case 'approval_wait': return Array.isArray(d.approvals) ? d.approvals.map((a) => `${String((a as Record<string, unknown>).tool)}: ${String((a as Record<string, unknown>).status)}`).join(', ') : s.status;
    default: return s.status;
  }
}

/**
 * The steps as a timeline over the turn's span (first start to last end), each bar at least 1%
 * wide so instant steps stay visible.
 */
export function timeline(trace: readonly ContextStep[]): TimelineRow[] {
  const starts = trace.map((s) => Date.parse(s.started_at));
  const t0 = Math.min(...starts);
  const t1 = Math.max(...trace.map((s, i) => starts[i]! + s.duration_ms));
  const span = Math.max(1, t1 - t0);
  return trace.map((s, i) => {
    const offset = ((starts[i]! - t0) / span) * 100;
    const width = Math.max(1, (s.duration_ms / span) * 100);
    return {
      key: `${i}-${s.step}`, label: STEP_LABELS[s.step] ?? partLabel(s.step), status: s.status, ok: GOOD.has(s.status), summary: stepSummary(s), ms: s.duration_ms,
      offsetPct: Math.round(Math.min(99, offset) * 10) / 10, widthPct: Math.round(Math.min(100 - Math.min(99, offset), width) * 10) / 10,
    };
  });
}

/** A score for people: `0.82`, or `—` when the source gave none. */
export function formatScore(score: number | null | undefined): string {
  return typeof score === 'number' ? score.toFixed(2) : '—';
}

/** The parts that list items worth showing (memories, knowledge, skills). */
export function sourceParts(r: ContextRecord): ContextPart[] {
  return r.parts.filter((p) => p.kind === 'memory' || p.kind === 'knowledge');
}
