/**
 * "Why this answer" (issue 13 item 5), the renderer's rules: token bars relative to the largest part
 * with their share of the total, part and step labels, the step timeline over the turn's span (instant
 * steps stay visible), one-line step summaries, durations and scores, and the route of the Overview page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextPart, ContextRecord, ContextStep } from '../../../services/agent-runtime/src/contracts.js';
import { loadRenderer } from './load.js';

interface View {
  tokenBars(parts: readonly ContextPart[]): Array<{ name: string; label: string; tokens: number; pct: number; share: number; state: string }>;
  partLabel(name: string): string;
  timeline(trace: readonly ContextStep[]): Array<{ label: string; status: string; ok: boolean; summary: string; offsetPct: number; widthPct: number; ms: number }>;
  stepSummary(s: ContextStep): string;
  formatMs(ms: number): string;
  formatScore(s: number | null | undefined): string;
  sourceParts(r: ContextRecord): ContextPart[];
}
const v = await loadRenderer<View>('context/context-view.ts');
const { route } = await loadRenderer<{ route(path: string): { page: string; param: string | null } }>('app/route.ts');

const part = (name: string, kind: ContextPart['kind'], tokens: number, state: ContextPart['state'] = 'included'): ContextPart => ({ name, kind, tokens, state });
const step = (name: string, startMs: number, ms: number, status = 'ok', detail: Record<string, unknown> = {}): ContextStep => ({
  step: name, started_at: new Date(Date.UTC(2030, 0, 1) + startMs).toISOString(), duration_ms: ms, status, detail,
});

test('token bars: widths relative to the largest part, shares of the total, labels in prompt order', () => {
  const bars = v.tokenBars([part('system_prompt', 'system', 50), part('memories', 'memory', 25), part('skills', 'skills', 0, 'empty'), part('input', 'input', 25), part('team_rules', 'system', 0, 'empty')]);
  assert.deepEqual(bars.map((b) => [b.label, b.pct, b.share]), [['System prompt', 100, 50], ['Memories', 50, 25], ['Skills', 0, 0], ['Your message', 50, 25], ['Team rules', 0, 0]]);
  assert.equal(bars[2]!.state, 'empty');
  assert.deepEqual(v.tokenBars([part('input', 'input', 0, 'not_sent')]).map((b) => b.pct), [0], 'nothing sent: no division by zero');
});

test('timeline: offsets and widths over the span, instant steps at least 1% wide, warnings for what did not go through', () => {
  const rows = v.timeline([
    step('guard_input', 0, 10, 'allow', { decision: 'allow' }),
    step('prefetch', 10, 90, 'ok', { memories: 1, knowledge: 2 }),
    step('model_call', 100, 900, 'ok', { model: 'gpt-x', prompt_tokens: 120, completion_tokens: 9, tool_calls: ['calculator'] }),
    step('tool_call', 1000, 0, 'denied', { tool: 'bash', policy: 'deny' }),
  ]);
  assert.deepEqual(rows.map((r) => [r.label, r.offsetPct, r.widthPct, r.ok]), [
    ['Input check', 0, 1, true], ['Memory and knowledge', 1, 9, true], ['Model call', 10, 90, true], ['Tool call', 99, 1, false],
  ]);
  assert.equal(rows[1]!.summary, 'memories: 1 · knowledge: 2');
  assert.equal(rows[2]!.summary, 'gpt-x · 120 in / 9 out tokens · asked for calculator');
  assert.equal(rows[3]!.summary, 'bash · policy deny');
  assert.equal(v.stepSummary(step('guard_output', 0, 1, 'block', { decision: 'block', reason: 'no secrets' })), 'no secrets');
  assert.equal(v.stepSummary(step('model_call', 0, 1, 'error', { model_role: 'default', code: 'backend_unavailable' })), 'default · backend_unavailable');
});

test('durations, scores, the parts that list sources, and the /overview route', () => {
  assert.deepEqual([v.formatMs(0.2), v.formatMs(840.4), v.formatMs(2400), v.formatMs(12_400)], ['<1 ms', '840 ms', '2.4 s', '12 s']);
  assert.deepEqual([v.formatScore(0.8234), v.formatScore(null), v.formatScore(undefined)], ['0.82', '—', '—']);
  const r = { parts: [part('system_prompt', 'system', 1), part('memories', 'memory', 1), part('knowledge', 'knowledge', 1), part('history', 'history', 1)] } as ContextRecord;
  assert.deepEqual(v.sourceParts(r).map((p) => p.name), ['memories', 'knowledge']);
  assert.deepEqual(route('/overview'), { page: 'overview', param: null });
  assert.deepEqual(route('/'), { page: 'chat', param: null }, 'the chat stays the landing page');
});
