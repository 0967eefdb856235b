/**
 * The overview's pure parts and the integration registry (issue 13 items 5, 6): provider health from
 * the router's routes, sources registered by name (a throwing or slow source is one `error` item),
 * the overview over fake peers (a peer that does not answer marks only its own section), and the
 * context record store's owner columns and per-user cap over real SQLite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IntegrationRegistry, PHONE_NOT_CONFIGURED, phoneSource, registerBuiltinIntegrations } from '../../../services/agent-runtime/src/domain/integrations.js';
import { OverviewService, providersFromRoutes, type OverviewPeers, type RouteTarget } from '../../../services/agent-runtime/src/domain/overview.js';
import { openRuntimeStore } from '../../../services/agent-runtime/src/store/runtime-store.js';
import type { ApprovalView } from '../../../services/agent-runtime/src/contracts.js';

const NOW = new Date('2025-03-01T12:00:00Z');
const target = (o: Partial<RouteTarget>): RouteTarget => ({ provider_id: 'p1', model: 'm', provider_name: 'P1', adapter: 'chat_completions', available: true, cooling_down_until: null, ...o });
const who = { tenantId: 'acme', userId: 'u1', headers: {} };

test('provider health from routes: healthy, cooling down (latest end), unavailable; roles and models merged per provider', () => {
  const out = providersFromRoutes([
    { role: 'default', targets: [target({}), target({ provider_id: 'p2', provider_name: 'P2', cooling_down_until: '2025-03-01T12:01:00Z' })] },
    { role: 'vision', targets: [target({ model: 'm-vision' }), target({ provider_id: 'p2', provider_name: 'P2', cooling_down_until: '2025-03-01T12:05:00Z' })] },
    { role: 'title', targets: [target({ provider_id: 'p3', provider_name: null, available: false })] },
  ], NOW);
  assert.deepEqual(out.map((p) => [p.id, p.health, p.cooling_down_until]), [['p1', 'healthy', null], ['p2', 'cooling_down', '2025-03-01T12:05:00Z'], ['p3', 'unavailable', null]]);
  assert.deepEqual(out[0]!.roles, ['default', 'vision']);
  assert.deepEqual(out[0]!.models, ['m', 'm-vision']);
  const past = providersFromRoutes([{ role: 'default', targets: [target({ cooling_down_until: '2025-03-01T11:00:00Z' })] }], NOW);
  assert.equal(past[0]!.health, 'healthy', 'a cooldown that ended does not count');
});

test('integration registry: built-in sources answer today\'s state; a later source replaces one by name; failures are one error item', async () => {
  const r = registerBuiltinIntegrations(new IntegrationRegistry(50));
  assert.deepEqual(r.names(), ['oauth', 'mcp', 'phone']);
  assert.deepEqual(await r.status(who), [PHONE_NOT_CONFIGURED]);
  r.register('mcp', async (w) => [{ id: 'mcp:files', kind: 'mcp', name: `Files of ${w.userId}`, state: 'connected' }]);
  r.register('broken', () => { throw new Error('secret detail'); });
  r.register('slow', () => new Promise(() => {}));
  const items = await r.status(who);
  assert.deepEqual(items.map((i) => [i.id, i.state]), [['mcp:files', 'connected'], ['phone', 'not_configured'], ['broken', 'error'], ['slow', 'error']]);
  assert.equal(items[1]!.name, 'Phone');
  assert.doesNotMatch(JSON.stringify(items), /secret detail/);
  assert.match(items[3]!.detail ?? '', /did not answer within 50 ms/);
});

test('overview: sections from the stores and peers; a peer that does not answer marks only its section', async () => {
  const approvals: ApprovalView[] = Array.from({ length: 7 }, (_, i) => ({
    id: `a${i}`, session_id: 's1', agent_id: 'default', turn_id: null, user_id: 'u1', tool: 'bash', call_id: `c${i}`, arguments: {}, status: 'pending',
    reason: null, created_at: NOW.toISOString(), expires_at: NOW.toISOString(), decided_at: null, decided_by: null,
  }));
  const seen: string[] = [];
  const peers = (ok: boolean): OverviewPeers => ({
    routes: async () => (ok ? { ok: true, body: { items: [{ role: 'default', targets: [target({})] }] } } : { ok: false, error: 'inference router did not answer' }),
    documents: async (_h, limit) => { seen.push(`limit=${limit}`); return ok ? { ok: true, body: { items: [{ document_id: 'd1', title: 'Notes', status: 'failed', last_error: 'bad pdf', updated_at: NOW.toISOString() }] } } : { ok: false, error: 'x' }; },
  });
  const deps = {
    integrations: registerBuiltinIntegrations(new IntegrationRegistry()),
    sessions: { list: () => [{ id: 's1', tenant_id: 'acme', user_id: 'u1', agent_id: 'default', title: 'Tea', title_source: 'generated', folder_id: null, branched_from_session: null, branched_from_message: null, message_count: 2, created_at: 'c', updated_at: 'u' }] },
    approvals: { list: async (t: string, u: string | null, status: string | null) => (t === 'acme' && u === 'u1' && status === 'pending' ? approvals : []) },
    recentTurns: async () => [{ turn_id: 't1', tenant_id: 'acme', user_id: 'u1', session_id: 's1', agent_id: 'default', status: 'completed', total_tokens: 42, created_at: 'c' }],
    defaultAgentId: 'default', now: () => NOW,
  };
  const o = await new OverviewService({ ...deps, peers: peers(true) }).overview(who);
  assert.deepEqual(o.inference_router, { state: 'ready', detail: null });
  assert.deepEqual(o.inference_providers.map((p) => [p.id, p.health]), [['p1', 'healthy']]);
  assert.deepEqual(o.mail_providers, []);
  assert.deepEqual(o.agents, [{ id: 'default', name: 'Assistant', default: true }]);
  assert.equal(o.approvals_waiting.count, 7);
  assert.equal(o.approvals_waiting.items.length, 5);
  assert.deepEqual(o.recent_activity.sessions, [{ id: 's1', title: 'Tea', message_count: 2, updated_at: 'u' }]);
  assert.deepEqual(o.recent_activity.turns, [{ turn_id: 't1', session_id: 's1', status: 'completed', total_tokens: 42, created_at: 'c' }]);
  assert.deepEqual(o.recent_activity.documents, [{ document_id: 'd1', title: 'Notes', status: 'failed', last_error: 'bad pdf', updated_at: NOW.toISOString() }]);
  assert.equal(o.recent_activity.documents_state, 'ok');
  assert.deepEqual(o.integrations, [PHONE_NOT_CONFIGURED]);
  assert.deepEqual(seen, ['limit=5']);

  const down = await new OverviewService({ ...deps, peers: peers(false) }).overview(who);
  assert.deepEqual(down.inference_router, { state: 'unavailable', detail: 'inference router did not answer' });
  assert.deepEqual(down.inference_providers, []);
  assert.equal(down.recent_activity.documents_state, 'unavailable');
  assert.equal(down.approvals_waiting.count, 7, 'the runtime\'s own sections stay');
});

test('context record store: one row per turn, read within the tenant only, the user\'s oldest pruned beyond the cap', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ctx-store-'));
  const migrationsDir = fileURLToPath(new URL('../../../../migrations', import.meta.url));
  const store = openRuntimeStore({ dbDir: dir, migrationsDir });
  try {
    const row = (turn: string, user: string, at: string) => ({
      turn_id: turn, tenant_id: 'acme', user_id: user, session_id: 's', agent_id: 'default', status: 'completed', total_tokens: 1, created_at: at, record: `{"turn_id":"${turn}"}`,
    });
    assert.equal(store.contextRecords.put(row('t1', 'u1', '2025-01-01T00:00:01Z'), 2), 0);
    assert.equal(store.contextRecords.put(row('t2', 'u1', '2025-01-01T00:00:02Z'), 2), 0);
    assert.equal(store.contextRecords.put(row('o1', 'u2', '2025-01-01T00:00:00Z'), 2), 0);
    assert.equal(store.contextRecords.put(row('t3', 'u1', '2025-01-01T00:00:03Z'), 2), 1, 'the oldest of u1 goes');
    assert.equal(store.contextRecords.get('t1', 'acme'), undefined);
    assert.equal(store.contextRecords.get('t3', 'acme')?.user_id, 'u1');
    assert.equal(store.contextRecords.get('t3', 'other'), undefined, 'another tenant does not see it');
    assert.deepEqual(store.contextRecords.recent('acme', 'u1', 5).map((r) => r.turn_id), ['t3', 't2']);
    assert.equal(store.contextRecords.get('o1', 'acme')?.user_id, 'u2', 'the cap is per user');
    store.contextRecords.put({ ...row('t3', 'u1', '2025-01-01T00:00:04Z'), status: 'failed' }, 2);
    assert.equal(store.contextRecords.get('t3', 'acme')?.status, 'failed', 'one record per turn id');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('phone source: paired phones are connected with when one was last seen; none or only revoked ones are not configured; no answer is an error', async () => {
  const who = { tenantId: 'acme', userId: 'u', headers: {} };
  const signal = new AbortController().signal;
  const of = (items: Array<{ name: string; state: string; last_seen_at: string | null }>): ReturnType<typeof phoneSource> => phoneSource({ devices: async () => ({ ok: true, body: { items } }) });
  const [connected] = await of([
    { name: 'Pixel', state: 'paired', last_seen_at: '2026-11-23T10:00:00.000Z' },
    { name: 'Old', state: 'revoked', last_seen_at: '2026-11-24T10:00:00.000Z' },
  ])(who, signal);
  assert.equal(connected!.state, 'connected');
  assert.match(connected!.detail!, /1 phone paired \(Pixel\); last seen 2026-11-23T10:00/);
  assert.deepEqual(await of([{ name: 'Old', state: 'revoked', last_seen_at: null }])(who, signal), [PHONE_NOT_CONFIGURED]);
  const r = new IntegrationRegistry();
  r.register('phone', phoneSource({ devices: async () => ({ ok: false, error: 'auth did not answer' }) }));
  assert.equal((await r.status(who))[0]!.state, 'error');
});
