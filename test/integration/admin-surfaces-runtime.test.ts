/**
 * The admin surfaces on the agent runtime itself (issue 13 item 8), without the gateway in front:
 * the runtime's own admin check (403 `admin_required` for a user and for a service on every route),
 * permission profiles matched on the principal's groups, errors in the last hour and AgentOps from
 * the runtime's turn records (a failed turn, a failed tool call), and sections of peers that do not
 * answer shown `unavailable` without failing the page.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../helpers/runtime-harness.js';
import type { RecordedRequest, ScriptedReply } from '../helpers/scripted-llm.js';
import { signStamp, type Principal } from '../../services/shared/identity/principal.js';
import type { AgentOps, MissionControl, OnboardingChecklist, PoliciesSummary } from '../../services/agent-runtime/src/contracts.js';

let h: Harness;
const ADMIN = { id: 'admin-1', roles: ['admin', 'user'] };

function script(r: RecordedRequest): ScriptedReply {
  if (r.body.model === 'title') return { content: 'A title' };
  const msgs = r.body.messages as Array<{ role: string; content: string }>;
  const last = msgs[msgs.length - 1]!;
  if (last.role === 'tool') return { content: `The tool said: ${last.content}` };
  if (last.content.includes('break')) return { toolCalls: [{ id: 'call_b', name: 'broken_tool', arguments: '{}' }] };
  if (last.content.includes('fail')) return { status: 500, errorBody: { error: { message: 'the provider fell over' } } };
  return { content: 'Hello.' };
}

before(async () => {
  h = await startHarness({ maxToolSteps: 3 }, { script }, {
    pluginProbeMs: 0,
    extraTools: [{
      definition: { type: 'function', function: { name: 'broken_tool', description: 'Always fails.', parameters: { type: 'object', properties: {} } } },
      execute: () => { throw new Error('boom'); },
    }],
  });
});
after(async () => { await h.close(); });

const ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/v1/admin/mission-control'], ['GET', '/v1/admin/onboarding/checklist'], ['GET', '/v1/admin/policies'],
  ['GET', '/v1/admin/policies/guardrail'], ['PUT', '/v1/admin/policies/guardrail', { policy: {} }], ['DELETE', '/v1/admin/policies/guardrail'],
  ['GET', '/v1/admin/roles'], ['GET', '/v1/admin/roles/effective'], ['GET', '/v1/admin/roles/profiles'],
  ['POST', '/v1/admin/roles/profiles', { name: 'x' }], ['GET', '/v1/admin/roles/profiles/01X'], ['PUT', '/v1/admin/roles/profiles/01X', { name: 'x' }],
  ['DELETE', '/v1/admin/roles/profiles/01X'], ['GET', '/v1/admin/agentops/agents'],
  // Invalid input still answers 403 first: a user learns nothing about the shapes.
  ['GET', '/v1/admin/agentops/agents?days=9999'], ['POST', '/v1/admin/roles/profiles', { nope: true }],
];

test('the runtime refuses users and services on every admin route with 403 admin_required', async () => {
  for (const caller of [{ id: 'user-1', roles: ['user'] }, { id: 'service:knowledge', roles: ['service-account'] }, { id: 'ta', roles: ['tenant_admin', 'platform_admin'] }]) {
    for (const [method, path, body] of ROUTES) {
      const r = await h.call(method, path, body, caller);
      assert.equal(r.status, 403, `${caller.id} ${method} ${path}`);
      assert.equal((r.body as { code: string }).code, 'admin_required', `${caller.id} ${method} ${path}`);
    }
  }
});

test('a profile matched on the principal\'s groups restricts /v1/tools; roles and groups are a union', async () => {
  const withGroups = (groups: string[]): Record<string, string> => {
    const now = Math.floor(Date.now() / 1000);
    const p: Principal = { id: 'user-g', tenant_id: 'acme', roles: ['user'], groups, auth_method: 'upstream_oidc', iat: now, exp: now + 300 };
    return { 'x-svc-principal': signStamp(p, h.cfg.principalKeys) };
  };
  const tools = async (headers: Record<string, string>): Promise<string[]> =>
    ((await (await fetch(`${h.url}/v1/tools`, { headers })).json()) as { items: Array<{ name: string }> }).items.map((t) => t.name).sort();
  const all = await tools(withGroups([]));
  assert.deepEqual(all, ['broken_tool', 'calculator', 'get_current_time']);
  const finance = await h.call('POST', '/v1/admin/roles/profiles', { name: 'Finance', groups: ['Finance'], tools: ['calculator'] }, ADMIN);
  assert.equal(finance.status, 201);
  const clock = await h.call('POST', '/v1/admin/roles/profiles', { name: 'Night shift', groups: ['Night'], tools: ['get_current_time'], agents: ['default'] }, ADMIN);
  assert.equal(clock.status, 201);
  try {
    assert.deepEqual(await tools(withGroups(['Finance'])), ['calculator']);
    assert.deepEqual(await tools(withGroups(['Finance', 'Night'])), ['calculator', 'get_current_time'], 'the union of both profiles');
    assert.deepEqual(await tools(withGroups(['Sales'])), all, 'no applying profile: every tool');
    const eff = (await h.call('GET', '/v1/admin/roles/effective?groups=Night,Finance', undefined, ADMIN)).body as { tools: string[]; agents: string[]; enforced: string[] };
    assert.deepEqual(eff.tools, ['calculator', 'get_current_time']);
    assert.deepEqual(eff.agents, ['default']);
    assert.deepEqual(eff.enforced, ['tools', 'agents', 'knowledge']);

  } finally {
    for (const p of [finance, clock]) await h.call('DELETE', `/v1/admin/roles/profiles/${(p.body as { id: string }).id}`, undefined, ADMIN);
  }
});

test('errors in the last hour and AgentOps come from the runtime\'s turn records; unanswering peers are unavailable sections', async () => {
  assert.equal((await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  const broke = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'please break' }] });
  assert.equal(broke.status, 200);
  const failed = await h.call('POST', '/v1/chat', { messages: [{ role: 'user', content: 'please fail' }] });
  assert.ok(failed.status >= 500, `status ${failed.status}`);

  const mc = await h.call('GET', '/v1/admin/mission-control', undefined, ADMIN);
  assert.equal(mc.status, 200, JSON.stringify(mc.body));
  const v = mc.body as MissionControl;
  assert.equal(v.errors.turn_failed, 1);
  assert.equal(v.errors.tool_errors, 1);
  assert.equal(v.errors.total, 2);
  assert.deepEqual(v.errors.recent.map((e) => e.kind).sort(), ['tool_error', 'turn_failed']);
  const tf = v.errors.recent.find((e) => e.kind === 'turn_failed')!;
  assert.equal(tf.turn_id, failed.turnId);
  assert.ok(tf.code);
  assert.equal(v.errors.recent.find((e) => e.kind === 'tool_error')!.turn_id, broke.turnId);
  assert.equal(v.active_turns.count, 0);
  // The harness's peers answer 404 to these routes: their sections say so, the page still answers.
  assert.equal(v.spend.state, 'unavailable');
  assert.equal(v.index_jobs.state, 'unavailable');
  assert.equal(v.sandbox.state, 'unavailable');
  assert.equal(v.services.items.find((s) => s.name === 'agent-runtime')?.state, 'ready');
  assert.equal(v.services.items.find((s) => s.name === 'knowledge')?.state, 'starting');

  const ops = (await h.call('GET', '/v1/admin/agentops/agents?days=2', undefined, ADMIN)).body as AgentOps;
  const a = ops.items.find((x) => x.agent_id === 'default')!;
  assert.equal(a.runs, 3);
  assert.equal(a.failures, 1);
  assert.equal(a.failure_rate, 0.3333);
  assert.equal(a.tool_calls, 1);
  assert.equal(a.tool_errors, 1);
  assert.deepEqual(a.tools, [{ tool: 'broken_tool', calls: 1, errors: 1, error_rate: 1 }]);
  assert.equal(a.daily.length, 2);
  assert.equal(a.daily[1]!.runs, 3);
  assert.equal(ops.source.cost_state, 'unavailable', 'observability does not answer here');
  assert.equal(a.cost_usd, 0);

  const c = (await h.call('GET', '/v1/admin/onboarding/checklist', undefined, ADMIN)).body as OnboardingChecklist;
  assert.equal(c.items.length, 6);
  assert.equal(c.items.find((i) => i.id === 'provider_default_model')!.state, 'warning');
  assert.equal(((await h.call('GET', '/v1/admin/policies', undefined, ADMIN)).body as PoliciesSummary).guardrail.state, 'unavailable');
});

test('a profile naming agents gates the agent a chat runs (403 agent_not_allowed); a profile naming none leaves every agent', async () => {
  const now = Math.floor(Date.now() / 1000);
  const withGroups = (groups: string[]): Record<string, string> => {
    const p: Principal = { id: 'user-a', tenant_id: 'acme', roles: ['user'], groups, auth_method: 'upstream_oidc', iat: now, exp: now + 300 };
    return { 'x-svc-principal': signStamp(p, h.cfg.principalKeys) };
  };
  const night = await h.call('POST', '/v1/admin/roles/profiles', { name: 'Night agents', groups: ['Night'], agents: ['default'] }, ADMIN);
  const finance = await h.call('POST', '/v1/admin/roles/profiles', { name: 'Finance tools', groups: ['Finance'], tools: ['calculator'] }, ADMIN);
  assert.equal(night.status, 201);
  try {
    // Agents: a profile naming agents gates the agent a chat runs; no profile naming any, every agent.
    const chatAs = (groups: string[], agentId?: string): Promise<Response> => fetch(`${h.url}/v1/chat`, {
      method: 'POST', headers: { ...withGroups(groups), 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...(agentId ? { agent_id: agentId } : {}) }),
    });
    // Issue 17 item 1: a chat's agent must exist in the catalog (404 otherwise), so the user makes one first.
    const made = await fetch(`${h.url}/v1/agents`, { method: 'POST', headers: { ...withGroups([]), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Contracts reviewer' }) });
    assert.equal(made.status, 201);
    const reviewer = ((await made.json()) as { id: string }).id;
    const refused = await chatAs(['Night'], reviewer);
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'agent_not_allowed');
    assert.equal((await chatAs(['Night'])).status, 200, 'the default agent is opened by the profile');
    assert.equal((await chatAs(['Finance'], reviewer)).status, 200, 'Finance names no agents: not restricted');
  } finally {
    for (const p of [night, finance]) await h.call('DELETE', `/v1/admin/roles/profiles/${(p.body as { id: string }).id}`, undefined, ADMIN);
  }
});
