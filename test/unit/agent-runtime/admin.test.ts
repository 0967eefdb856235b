/**
 * Pure parts and stores of the runtime's admin surfaces (issue 13 item 8): permission profile
 * matching and unions, the tool gate, turn statistics rows, AgentOps aggregation and percentiles,
 * mission control sections from peer answers, onboarding items, guardrail error mapping, the
 * SQLite stores (migration 0006) and the SVC_GROUP_ROLE_MAP reading.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentGate, applies, effectiveAccess, matchesAny, PermissionProfiles, toolGate } from '../../../services/agent-runtime/src/domain/admin/profiles.js';
import { aggregate, AgentOpsService, percentile, windowDays } from '../../../services/agent-runtime/src/domain/admin/agentops.js';
import { statRow, TurnTracker } from '../../../services/agent-runtime/src/domain/admin/turn-tracker.js';
import { indexSection, MissionControlService, sandboxSection, spendSection } from '../../../services/agent-runtime/src/domain/admin/mission-control.js';
import { embeddingItem, providerItem, sandboxItem } from '../../../services/agent-runtime/src/domain/admin/onboarding.js';
import { guardFailure } from '../../../services/agent-runtime/src/domain/admin/policy-hub.js';
import { gatedPolicy } from '../../../services/agent-runtime/src/domain/tool-policy.js';
import type { AdminPeers, TurnStatRow } from '../../../services/agent-runtime/src/domain/admin/ports.js';
import type { PreparedTurn, TurnOutcome } from '../../../services/agent-runtime/src/domain/chat-engine.js';
import type { PermissionProfile } from '../../../services/agent-runtime/src/contracts.js';
import { openRuntimeStore } from '../../../services/agent-runtime/src/store/runtime-store.js';
import { agentRuntimeSettings } from '../../../main/config/services/agent-runtime.js';
import { DomainError } from '../../../services/shared/kit/domain-error.js';

const profile = (over: Partial<PermissionProfile>): PermissionProfile => ({
  id: over.name ?? 'p', name: 'p', roles: [], groups: [], agents: [], tools: [], knowledge: {}, created_at: '', updated_at: '', updated_by: null, ...over,
});

test('profiles apply on intersecting roles or groups; effective access is the union; * lifts the restriction', () => {
  const users = profile({ name: 'users', roles: ['user'], tools: ['get_current_time'], knowledge: { audiences: ['staff'] } });
  const finance = profile({ name: 'finance', groups: ['Finance'], tools: ['calc*'], agents: ['default'] });
  const admins = profile({ name: 'admins', roles: ['admin'], tools: ['*'] });
  const quiet = profile({ name: 'quiet', roles: ['user'] });
  assert.equal(applies(users, { roles: ['user'] }), true);
  assert.equal(applies(users, { roles: ['admin'], groups: ['user'] }), false, 'a group named like a role is not the role');
  assert.equal(applies(finance, { roles: [], groups: ['Finance'] }), true);
  assert.equal(applies(finance, {}), false);

  const all = [users, finance, admins, quiet];
  const e = effectiveAccess(all, { roles: ['user'], groups: ['Finance'] });
  assert.deepEqual(e.profiles.map((p) => p.name), ['users', 'finance', 'quiet']);
  assert.deepEqual(e.tools, ['calc*', 'get_current_time']);
  assert.deepEqual(e.agents, ['default']);
  assert.deepEqual(e.knowledge, { audiences: ['staff'], tags: [] }, 'restricted: only documents shared with staff (no tag opens any)');
  assert.deepEqual(e.enforced, ['tools', 'agents', 'knowledge']);
  assert.deepEqual(effectiveAccess(all, { roles: ['admin'] }).knowledge, { audiences: null, tags: null }, 'no applying profile names knowledge');
  assert.equal(effectiveAccess(all, { roles: ['user', 'admin'] }).tools, null, '* in the union: every tool');
  assert.equal(effectiveAccess(all, { roles: ['guest'] }).tools, null, 'no applying profile: not restricted');
  assert.equal(effectiveAccess([quiet], { roles: ['user'] }).tools, null, 'a profile naming no tools restricts nothing');

  const agents = agentGate(all, { roles: ['user'], groups: ['Finance'] })!;
  assert.equal(agents('default'), true);
  assert.equal(agents('contracts-reviewer'), false);
  assert.equal(agentGate(all, { roles: ['user'] }), null, 'no applying profile names agents: every agent');

  const gate = toolGate(all, { roles: ['user'], groups: ['Finance'] })!;
  assert.equal(gate('calculator'), true);
  assert.equal(gate('get_current_time'), true);
  assert.equal(gate('knowledge_search'), false);
  assert.equal(toolGate(all, { roles: ['admin'] }), null);
  assert.equal(matchesAny(['knowledge_*'], 'knowledge_search'), true);
  assert.equal(matchesAny(['knowledge_*'], 'memory_recall'), false);
  assert.equal(gatedPolicy(gate, 'knowledge_search', 'auto'), 'deny');
  assert.equal(gatedPolicy(gate, 'calculator', 'ask'), 'ask');
  assert.equal(gatedPolicy(null, 'anything', 'auto'), 'auto');
});

test('profiles over the SQLite store: create, unique names, replace, delete, cache refresh; turn stats record and count', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-admin-'));
  const store = openRuntimeStore({ dbDir: dir, migrationsDir: join(process.cwd(), 'migrations') });
  try {
    const profiles = new PermissionProfiles(store.permissionProfiles, { Finance: ['user'] });
    const p = await profiles.create('t1', { name: ' Clock ', roles: ['user', 'user', ' '], tools: ['get_current_time'], knowledge: { tags: ['hr'] } }, 'admin-1');
    assert.equal(p.name, 'Clock');
    assert.deepEqual(p.roles, ['user']);
    assert.deepEqual(p.knowledge, { tags: ['hr'] });
    assert.ok(toolGate(await profiles.list('t1'), { roles: ['user'] }));
    assert.equal((await profiles.toolGate('t1', { roles: ['user'] }))!('calculator'), false);
    assert.equal(await profiles.toolGate('t2', { roles: ['user'] }), null, 'tenants are apart');
    await assert.rejects(() => profiles.create('t1', { name: 'Clock' }, null), (e: DomainError<string>) => e.code === 'permission_profile_name_taken');
    await assert.rejects(() => profiles.create('t1', { name: '   ' }, null), (e: DomainError<string>) => e.code === 'invalid_request');
    const other = await profiles.create('t1', { name: 'Other' }, null);
    await assert.rejects(() => profiles.replace('t1', other.id, { name: 'Clock' }, null), (e: DomainError<string>) => e.code === 'permission_profile_name_taken');
    const r = await profiles.replace('t1', p.id, { name: 'Clock', roles: ['user'], tools: ['*'] }, 'admin-2');
    assert.equal(r.created_at, p.created_at);
    assert.equal(r.updated_by, 'admin-2');
    assert.equal(await profiles.toolGate('t1', { roles: ['user'] }), null, 'the cache follows a change');
    await profiles.remove('t1', p.id);
    await assert.rejects(() => profiles.get('t1', p.id), (e: DomainError<string>) => e.code === 'permission_profile_not_found');
    await assert.rejects(() => profiles.remove('t1', p.id), (e: DomainError<string>) => e.code === 'permission_profile_not_found');
    assert.deepEqual((await profiles.roles('t1')).group_role_map, { Finance: ['user'] });
    assert.deepEqual((await profiles.roles('t1')).items.map((x) => x.role), ['user', 'admin', 'tenant_admin', 'platform_admin']);

    const now = new Date();
    const row = (id: string, over: Partial<TurnStatRow>): TurnStatRow => ({
      id, turn_id: id, tenant_id: 't1', agent_id: 'default', user_id: 'u', session_id: 's', status: 'completed', error_code: null, error_message: null,
      guard_unavailable: 0, tool_calls: 0, tool_errors: 0, latency_ms: 10, prompt_tokens: 0, completion_tokens: 0,
      started_at: now.toISOString(), ended_at: now.toISOString(), day: now.toISOString().slice(0, 10), ...over,
    });
    store.turnStats.record(row('a', { tool_calls: 2, tool_errors: 1 }), [{ tool: 'x', status: 'ok' }, { tool: 'x', status: 'error' }]);
    store.turnStats.record(row('a', {}), [{ tool: 'x', status: 'error' }]);
    store.turnStats.record(row('b', { status: 'failed', error_code: 'backend_unavailable', error_message: 'down' }), []);
    store.turnStats.record(row('c', { status: 'failed', error_code: 'client_closed' }), []);
    store.turnStats.record(row('d', { status: 'failed', error_code: 'guardrail_unavailable', guard_unavailable: 1 }), []);
    store.turnStats.record(row('old', { status: 'failed', ended_at: '2000-01-01T00:00:00.000Z' }), []);
    const since = new Date(now.getTime() - 3600_000).toISOString();
    assert.deepEqual(store.turnStats.errorCounts('t1', since), { turn_failed: 1, tool_errors: 1, guard_unavailable: 1 });
    assert.deepEqual(store.turnStats.errorCounts('t2', since), { turn_failed: 0, tool_errors: 0, guard_unavailable: 0 });
    assert.deepEqual(store.turnStats.recentErrors('t1', since, 10).map((e) => e.kind).sort(), ['guard_unavailable', 'tool_error', 'turn_failed']);
    assert.deepEqual(store.turnStats.toolCounts('t1', since), [{ agent_id: 'default', tool: 'x', calls: 2, errors: 1 }], 'a repeated id is ignored');
    assert.equal(store.turnStats.since('t1', since).length, 4);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

const prepared = { who: { tenantId: 't', userId: 'u', turnId: 'T1', headers: {} }, session: { id: 's1' }, agentId: 'default' } as unknown as PreparedTurn;

test('a turn\'s statistics row: status, error, guard, tool errors, latency; a throw is a failed internal_error', () => {
  const started = new Date('2026-03-01T23:59:59.000Z');
  const t = { key: 'T1', turnId: 'T1', tenantId: 't', sessionId: 's1', userId: 'u', agentId: 'default', startedAt: started };
  const outcome = {
    status: 'failed', error: { code: 'guardrail_unavailable', message: 'x'.repeat(1000) },
    trace: { guardrail: { input: 'unavailable', output: 'skipped' }, tool_calls: [{ tool: 'a', status: 'ok' }, { tool: 'b', status: 'invalid' }, { tool: 'c', status: 'denied' }], timings: { total_ms: 12.5 }, usage: { prompt_tokens: 3, completion_tokens: 4 } },
  } as unknown as TurnOutcome;
  const { row, tools } = statRow(t, outcome, new Date('2026-03-02T00:00:01.000Z'), 99);
  assert.equal(row.status, 'failed');
  assert.equal(row.error_code, 'guardrail_unavailable');
  assert.equal(row.error_message!.length, 300);
  assert.equal(row.guard_unavailable, 1);
  assert.equal(row.tool_calls, 3);
  assert.equal(row.tool_errors, 1);
  assert.equal(row.latency_ms, 12.5);
  assert.equal(row.day, '2026-03-01', 'the day the turn started (UTC)');
  assert.equal(tools.length, 3);
  const thrown = statRow(t, null, new Date(started.getTime() + 50), 50).row;
  assert.deepEqual([thrown.status, thrown.error_code, thrown.latency_ms], ['failed', 'internal_error', 50]);

  const recorded: TurnStatRow[] = [];
  const tracker = new TurnTracker({ record: (r: TurnStatRow) => { recorded.push(r); } } as never, { warn: () => {} });
  const a = tracker.begin(prepared);
  const b = tracker.begin(prepared);
  assert.notEqual(a.key, b.key, 'a repeated turn id gets its own key');
  assert.equal(tracker.active('t').length, 2);
  assert.equal(tracker.active('other').length, 0);
  tracker.end(a, null);
  assert.equal(tracker.active('t').length, 1);
  assert.equal(recorded[0]!.status, 'failed');
  const broken = new TurnTracker({ record: () => { throw new Error('disk full'); } } as never, { warn: () => {} });
  broken.end(broken.begin(prepared), null);
  assert.equal(broken.active('t').length, 0, 'a failed write never throws and still ends the turn');
});

test('AgentOps: nearest-rank percentiles, the UTC window, daily buckets, rates and cost by turn', async () => {
  assert.equal(percentile([], 0.5), null);
  assert.equal(percentile([5], 0.95), 5);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5), 5);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95), 10);
  assert.deepEqual(windowDays(new Date('2026-03-03T10:00:00Z'), 3), ['2026-03-01', '2026-03-02', '2026-03-03']);
  const r = (day: string, over: Partial<TurnStatRow>): TurnStatRow => ({
    id: over.turn_id ?? day, turn_id: null, tenant_id: 't', agent_id: 'default', user_id: 'u', session_id: 's', status: 'completed', error_code: null, error_message: null,
    guard_unavailable: 0, tool_calls: 0, tool_errors: 0, latency_ms: 100, prompt_tokens: 0, completion_tokens: 0, started_at: `${day}T01:00:00Z`, ended_at: `${day}T01:00:01Z`, day, ...over,
  });
  const rows = [
    r('2026-03-02', { turn_id: 'a', latency_ms: 100, tool_calls: 2, tool_errors: 1 }), r('2026-03-03', { turn_id: 'b', latency_ms: 300, status: 'failed' }),
    r('2026-03-03', { turn_id: 'c', latency_ms: 200, status: 'blocked' }), r('2026-03-03', { turn_id: 'd', agent_id: 'other' }),
    r('2026-02-01', { turn_id: 'e' }),
  ];
  const costs = new Map([['a', 0.5], ['b', 0.25], ['zzz', 9]]);
  const out = aggregate(rows, [{ agent_id: 'default', tool: 'x', calls: 2, errors: 1 }], costs, ['2026-03-01', '2026-03-02', '2026-03-03'], 'default');
  assert.deepEqual(out.map((a) => a.agent_id), ['default', 'other']);
  const d = out[0]!;
  assert.deepEqual([d.runs, d.failures, d.blocked, d.failure_rate, d.tool_calls, d.tool_errors, d.tool_error_rate], [3, 1, 1, 0.3333, 2, 1, 0.5]);
  assert.deepEqual(d.latency_ms, { p50: 200, p95: 300 });
  assert.equal(d.cost_usd, 0.75);
  assert.deepEqual(d.daily.map((x) => [x.day, x.runs, x.cost_usd]), [['2026-03-01', 0, 0], ['2026-03-02', 1, 0.5], ['2026-03-03', 2, 0.25]]);
  assert.deepEqual(d.daily[0]!.latency_ms, { p50: null, p95: null });
  assert.deepEqual(d.tools, [{ tool: 'x', calls: 2, errors: 1, error_rate: 0.5 }]);
  assert.equal(aggregate([], [], new Map(), ['2026-03-03'], 'default')[0]!.runs, 0, 'the default agent is listed without runs');

  // Cost pages through generations, keeps only this window's turns, and says when it stopped short.
  let calls = 0;
  const peers = { generations: async (_s: string, _l: number, cursor?: string) => {
    calls++;
    return { ok: true as const, body: { items: [{ turn_id: 'a', cost_usd: 0.1 }, { turn_id: 'zzz', cost_usd: 5 }, { turn_id: 'a', cost_usd: null }], ...(cursor === undefined || Number(cursor) < 100 ? { next_cursor: String(Number(cursor ?? 0) + 1) } : {}) } };
  } };
  const svc = new AgentOpsService({ stats: { since: () => [r('2026-03-03', { turn_id: 'a' })], toolCounts: () => [] }, peers, defaultAgentId: 'default', now: () => new Date('2026-03-03T12:00:00Z') });
  const rep = await svc.agents('t', 1);
  assert.equal(rep.source.cost_state, 'partial');
  assert.equal(calls, 20);
  assert.equal(rep.items[0]!.cost_usd, 2);
  const down = new AgentOpsService({ stats: { since: () => [r('2026-03-03', { turn_id: 'a' })], toolCounts: () => [] }, peers: { generations: async () => ({ ok: false as const, status: 0, code: 'unreachable', error: 'down' }) }, defaultAgentId: 'default', now: () => new Date('2026-03-03T12:00:00Z') });
  assert.equal((await down.agents('t', 1)).source.cost_state, 'unavailable');
});

test('mission control sections from peer answers, and probes cached for 2 s', async () => {
  assert.deepEqual(spendSection({ ok: false, status: 0, code: 'unreachable', error: 'down' }).state, 'unavailable');
  const s = spendSection({ ok: true, body: { period: 'month', period_start: 'x', spend_usd: 1.5, soft_limit_usd: 1, hard_limit_usd: null, state: 'soft_exceeded' } });
  assert.deepEqual([s.spend_usd, s.soft_limit_usd, s.hard_limit_usd, s.budget_state], [1.5, 1, null, 'soft_exceeded']);
  const sb = sandboxSection({ ok: true, body: { sessions: [{ tenant_id: 't', session_id: 's', state: 'idle', runtime: 'runsc', age_seconds: 3, idle_seconds: 1, container_id: 'c' }], max_sessions: 50, warm: 1, readiness: { image: 'ok' } } }, null);
  assert.deepEqual([sb.state, sb.count, sb.max_sessions, sb.items[0]!.runtime], ['ok', 1, 50, 'runsc']);
  const down = sandboxSection({ ok: false, status: 503, code: 'sandbox_unavailable', error: 'docker down' }, { ok: true, body: { docker: 'unavailable', fix: 'sudo systemctl start docker' } });
  assert.deepEqual([down.state, down.error, (down.readiness as { fix?: string } | null)?.fix], ['unavailable', 'docker down', 'sudo systemctl start docker']);
  const doc = { document_id: 'd1', title: 'Broken', filename: 'b.pdf', status: 'failed', last_error: 'not a PDF', owner_user_id: 'u', updated_at: 'x' };
  const ix = indexSection({ ok: true, body: { items: [doc], next_cursor: 'n' } }, { ok: true, body: { items: [] } }, { ok: true, body: { chunks_pending_vectors: 4, reembedding: null } });
  assert.deepEqual([ix.state, ix.failed, ix.indexing, ix.truncated, ix.chunks_pending_vectors, ix.failed_documents[0]!.last_error], ['ok', 1, 0, true, 4, 'not a PDF']);
  assert.equal(indexSection({ ok: true, body: { items: [] } }, { ok: true, body: { items: [] } }, { ok: false, status: 0, code: null, error: 'x' }).state, 'ok', 'status alone missing: lists still shown');

  let probes = 0;
  let now = 1_000_000;
  const peers = { probe: async () => { probes++; return { state: 'ready' as const, latencyMs: 1, detail: null }; } } as unknown as AdminPeers;
  const mc = new MissionControlService({
    peers, approvals: { list: async () => [] }, tracker: { active: () => [] }, stats: { errorCounts: () => ({ turn_failed: 0, tool_errors: 0, guard_unavailable: 0 }), recentErrors: () => [] },
    services: ['agent-runtime', 'knowledge', 'audit'], self: 'agent-runtime', now: () => new Date(now),
  });
  await Promise.all([mc.services(), mc.services()]);
  assert.equal(probes, 2, 'concurrent callers share one round; the runtime is not probed');
  now += 1500;
  await mc.services();
  assert.equal(probes, 2, 'reused within 2 s');
  now += 600;
  const items = await mc.services();
  assert.equal(probes, 4);
  assert.deepEqual(items.map((i) => [i.name, i.state]), [['agent-runtime', 'ready'], ['knowledge', 'ready'], ['audit', 'ready']]);
});

test('onboarding items from peer answers', () => {
  const no = { ok: false as const, status: 0, code: 'unreachable', error: 'down' };
  assert.equal(providerItem(no, no).state, 'warning');
  const roles = (configured: boolean) => ({ ok: true as const, body: { items: [{ role: 'default', configured, targets: configured ? [{ provider_id: 'p1', model: 'm1' }] : [] }] } });
  assert.equal(providerItem({ ok: true, body: { items: [] } }, roles(true)).state, 'done');
  assert.match(providerItem({ ok: true, body: { items: [] } }, roles(true)).detail, /m1 from p1/);
  assert.match(providerItem({ ok: true, body: { items: [{ id: 'p1', name: 'Scripted', kind: 'remote' }] } }, roles(true)).detail, /m1 from Scripted\./);
  assert.equal(providerItem({ ok: true, body: { items: [{ kind: 'remote', models: [] }] } }, roles(false)).state, 'warning');
  assert.equal(providerItem({ ok: true, body: { items: [{ kind: 'local', models: [] }] } }, roles(false)).state, 'todo');
  const dense = (on: boolean, state = 'ready') => ({ ok: true as const, body: { dense_enabled: on, dense_reason: on ? null : 'no model file', embedder: { state, model: 'bge', dims: 384 } } });
  assert.equal(embeddingItem(dense(true), dense(true)).state, 'done');
  assert.match(embeddingItem(dense(true), no).detail, /bge \(384 dimensions\)/);
  assert.equal(embeddingItem(dense(false, 'unavailable'), dense(false, 'unavailable')).state, 'todo');
  assert.match(embeddingItem(dense(false, 'unavailable'), dense(false, 'unavailable')).detail, /^Keyword search only\. knowledge and memory: no model file$/);
  assert.equal(embeddingItem(dense(true), dense(false, 'unavailable')).state, 'warning');
  assert.equal(embeddingItem(dense(false, 'loading'), no).state, 'warning');
  assert.equal(embeddingItem(no, no).state, 'warning');
  assert.equal(sandboxItem({ ok: true, body: { docker: 'ok', image: 'ok', runtime: 'runsc' } }).state, 'done');
  const missing = sandboxItem({ ok: true, body: { docker: 'ok', image: 'missing', fix: 'npm run sandbox:image' } });
  assert.deepEqual([missing.state, /npm run sandbox:image/.test(missing.detail)], ['todo', true]);
  assert.equal(sandboxItem({ ok: true, body: { docker: 'unavailable', image: 'unknown' } }).state, 'warning');
  assert.equal(sandboxItem(no).state, 'warning');
});

test('guardrail failures map to the runtime\'s codes; SVC_GROUP_ROLE_MAP is read only when set', () => {
  const e400 = guardFailure({ ok: false, status: 400, code: 'invalid_request', error: 'unknown section', body: { field: 'body.policy.nope' } }) as DomainError<string>;
  assert.deepEqual([e400.code, (e400 as unknown as { extra?: { field?: string } }).extra?.field], ['invalid_request', 'body.policy.nope']);
  assert.equal((guardFailure({ ok: false, status: 403, code: 'admin_required', error: 'x' }) as DomainError<string>).code, 'admin_required');
  assert.equal((guardFailure({ ok: false, status: 0, code: 'unreachable', error: 'x' }) as DomainError<string>).code, 'service_unavailable');
  assert.equal((guardFailure({ ok: false, status: 502, code: null, error: 'x' }) as DomainError<string>).code, 'service_unavailable');
  const ctx = { dataDir: '/x', repoRoot: process.cwd(), production: false };
  assert.equal('groupRoleMap' in agentRuntimeSettings({}, ctx), false);
  assert.deepEqual(agentRuntimeSettings({ SVC_GROUP_ROLE_MAP: 'Ops:admin, Ops:user,Staff:user' }, ctx).groupRoleMap, { Ops: ['admin', 'user'], Staff: ['user'] });
});
