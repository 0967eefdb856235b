/**
 * Pure parts of the agent runtime: calculator, current time, history trimming, tool policy
 * resolution, inference error classification, replay similarity, titles, settings reader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CalcError, evaluate } from '../../../services/agent-runtime/src/tools/calculator.js';
import { currentTime } from '../../../services/agent-runtime/src/tools/current-time.js';
import { messageTokens, trimToBudget } from '../../../services/agent-runtime/src/domain/history.js';
import { resolvePolicy, type SourcedRule } from '../../../services/agent-runtime/src/domain/tool-policy.js';
import { classifyHttpError, classifyThrown, deriveCode } from '../../../services/agent-runtime/src/domain/inference-errors.js';
import { similarity } from '../../../services/agent-runtime/src/domain/replay.js';
import { cleanTitle } from '../../../services/agent-runtime/src/domain/sessions.js';
import { cutResult } from '../../../services/agent-runtime/src/domain/chat/turn.js';
import { rowsToModelMessages } from '../../../services/agent-runtime/src/domain/chat/build-prompt.js';
import { ToolRegistry } from '../../../services/agent-runtime/src/domain/tool-registry.js';
import { BUILTIN_TOOLS } from '../../../services/agent-runtime/src/tools/index.js';
import { agentRuntimeSettings } from '../../../main/config/services/agent-runtime.js';
import type { OpenAiMessage } from '../../../services/agent-runtime/src/domain/ports.js';

test('calculator: precedence, power, functions, constants; rejects what is not arithmetic', () => {
  assert.equal(evaluate('2 * (3 + 4) ^ 2'), 98);
  assert.equal(evaluate('-2^2'), -4);
  assert.equal(evaluate('2^3^2'), 512);
  assert.equal(evaluate('2 ** 3'), 8);
  assert.equal(evaluate('10 % 4 + 1.5e1'), 17);
  assert.equal(evaluate('max(1, sqrt(16), abs(-3))'), 4);
  assert.ok(Math.abs(evaluate('sin(pi / 2)') - 1) < 1e-12);
  for (const bad of ['', '1 +', 'process.exit()', 'constructor', '1/0', '(1', 'foo(1)', '2 3', 'x'.repeat(1001)]) {
    assert.throws(() => evaluate(bad), CalcError, bad.slice(0, 20));
  }
  assert.throws(() => evaluate('('.repeat(200) + '1' + ')'.repeat(200)), CalcError);
});

test('current time in a zone; unknown zones throw', () => {
  const t = currentTime('Europe/Paris', new Date('2024-07-01T12:00:00Z'));
  assert.equal(t.utc, '2024-07-01T12:00:00.000Z');
  assert.match(t.local, /14:00:00/);
  assert.throws(() => currentTime('Mars/Olympus'), RangeError);
});

test('history: oldest dropped first, system and input kept, no orphan tool message at the front', () => {
  const sys: OpenAiMessage[] = [{ role: 'system', content: 's' }];
  const big = 'x'.repeat(400); // 100 tokens + overhead
  const hist: OpenAiMessage[] = [
    { role: 'user', content: big },
    { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: big } }] },
    { role: 'tool', tool_call_id: 'a', content: big },
    { role: 'assistant', content: big },
  ];
  const input: OpenAiMessage[] = [{ role: 'user', content: 'now' }];
  const all = trimToBudget(sys, hist, input, 10_000);
  assert.equal(all.dropped, 0);
  assert.equal(all.messages.length, 6);
  const some = trimToBudget(sys, hist, input, 240);
  assert.deepEqual(some.messages.map((m) => m.role), ['system', 'assistant', 'user'], 'the tool result whose call was cut goes too');
  assert.equal(some.dropped, 3);
  const none = trimToBudget(sys, hist, input, 1);
  assert.deepEqual(none.messages.map((m) => m.role), ['system', 'user']);
  assert.equal(messageTokens({ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }), 769);
});

test('stored rows become model messages; excluded rows are left out', () => {
  const row = (over: Record<string, unknown>) => ({ id: 'i', session_id: 's', seq: 1, role: 'user', content: 'c', parts: null, tool_calls: null, tool_call_id: null, name: null, turn_id: null, trace: null, receipt: null, created_at: '', ...over });
  const msgs = rowsToModelMessages([
    row({ content: 'hi' }), row({ role: 'user', content: 'bad', trace: '{"excluded":true}' }),
    row({ role: 'assistant', content: '', tool_calls: '[{"id":"a","name":"t","arguments":"{}"}]' }), row({ role: 'tool', tool_call_id: 'a', content: 'r' }),
    row({ parts: '[{"type":"text","text":"p"}]', content: 'p' }),
  ]);
  assert.deepEqual(msgs.map((m) => m.role), ['user', 'assistant', 'tool', 'user']);
  assert.equal(msgs[1]!.content, null);
  assert.deepEqual(msgs[1]!.tool_calls, [{ id: 'a', type: 'function', function: { name: 't', arguments: '{}' } }]);
  assert.deepEqual(msgs[3]!.content, [{ type: 'text', text: 'p' }]);
  assert.equal(cutResult('y'.repeat(2500)).length, 2000);
});

test('tool policy: most specific rule wins; admin beats config on a tie; default otherwise', () => {
  const rules: SourcedRule[] = [
    { tool: '*', policy: 'ask', origin: 'config' },
    { tool: 'calculator', policy: 'auto', origin: 'config' },
    { tool: 'calculator', policy: 'deny', agent_id: 'strict', origin: 'config' },
    { tool: 'calculator', policy: 'ask', tenant_id: 'acme', origin: 'admin' },
    { tool: 'web', policy: 'deny', tenant_id: 'other', origin: 'admin' },
  ];
  assert.equal(resolvePolicy(rules, 'acme', 'default', 'calculator').policy, 'ask');
  assert.equal(resolvePolicy(rules, 'acme', 'strict', 'calculator').policy, 'deny');
  assert.equal(resolvePolicy(rules, 'beta', 'default', 'calculator').policy, 'auto');
  assert.equal(resolvePolicy(rules, 'acme', 'default', 'web').policy, 'ask', 'wildcard');
  assert.equal(resolvePolicy([], 'acme', 'default', 'x', 'deny').policy, 'deny');
});

test('inference errors: router codes pass, OpenAI bodies and transport errors are derived', () => {
  assert.equal(classifyHttpError(503, { error: 'x', code: 'role_no_backend' }).code, 'role_no_backend');
  assert.equal(classifyHttpError(400, { error: { message: 'The model `gpt-9` does not exist', code: 'model_not_found' } }).code, 'model_unknown');
  assert.equal(classifyHttpError(401, { error: { message: 'Incorrect API key provided' } }).code, 'provider_key_missing');
  assert.equal(classifyHttpError(500, null).code, 'backend_unavailable');
  assert.equal(classifyHttpError(429, { error: 'slow down' }).code, 'budget_exceeded');
  assert.equal(classifyHttpError(422, { error: 'weird' }).code, 'inference_error');
  assert.equal(classifyThrown(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })).code, 'backend_unavailable');
  assert.equal(classifyThrown(new Error('fetch failed')).code, 'backend_unavailable');
  assert.equal(deriveCode('role "title" is not configured'), 'role_not_configured');
  assert.equal(deriveCode('all good'), null);
});

test('similarity and titles', () => {
  assert.equal(similarity('the cat sat', 'the cat sat'), 1);
  assert.equal(similarity('', ''), 1);
  assert.equal(similarity('a b', 'c d'), 0);
  assert.ok(Math.abs(similarity('the cat sat', 'the cat sat down') - 6 / 7) < 1e-3);
  assert.equal(cleanTitle('Title: "Trip to Lisbon."\nmore'), 'Trip to Lisbon');
  assert.equal(cleanTitle('<think>hm</think>\n**Bread**'), 'Bread');
});

test('registry: sources register and withdraw as a whole; names must be valid', () => {
  const r = new ToolRegistry();
  r.register('builtin', BUILTIN_TOOLS);
  assert.deepEqual(r.list().map((t) => t.definition.function.name), ['calculator', 'get_current_time']);
  const mk = (name: string) => ({ definition: { type: 'function' as const, function: { name, description: '', parameters: {} } }, execute: () => '' });
  assert.deepEqual(r.register('knowledge', [mk('knowledge_search'), mk('calculator')]), ['knowledge_search'], 'a taken name stays with its first source');
  assert.equal(r.get('calculator')!.source, 'builtin');
  r.unregister('knowledge');
  assert.equal(r.get('knowledge_search'), undefined);
  assert.throws(() => r.register('bad', [mk('has space')]));
});

test('settings reader: defaults, bounds, policy JSON forms', () => {
  const ctx = { dataDir: '/tmp', repoRoot: '/tmp', production: false };
  const d = agentRuntimeSettings({}, ctx);
  assert.equal(d.maxToolSteps, 8);
  assert.equal(d.guardrailFailMode, 'closed', 'issue 11 item 6: closed by default');
  assert.deepEqual(d.toolPolicy, []);
  const s = agentRuntimeSettings({ AGENT_RUNTIME_TOOL_POLICY: '{"calculator":"ask"}', AGENT_RUNTIME_GUARDRAIL_FAIL_MODE: 'open', AGENT_RUNTIME_MAX_TOOL_STEPS: '3' }, ctx);
  assert.deepEqual(s.toolPolicy, [{ tool: 'calculator', policy: 'ask' }]);
  assert.equal(s.guardrailFailMode, 'open');
  assert.equal(s.maxToolSteps, 3);
  const arr = agentRuntimeSettings({ AGENT_RUNTIME_TOOL_POLICY: '[{"tool":"*","policy":"deny","agent_id":"kiosk"}]' }, ctx);
  assert.deepEqual(arr.toolPolicy, [{ tool: '*', policy: 'deny', agent_id: 'kiosk' }]);
  for (const env of [{ AGENT_RUNTIME_TOOL_POLICY: 'nope' }, { AGENT_RUNTIME_TOOL_POLICY: '{"x":"maybe"}' }, { AGENT_RUNTIME_GUARDRAIL_FAIL_MODE: 'ajar' }, { AGENT_RUNTIME_MAX_TOOL_STEPS: '0' }]) {
    assert.throws(() => agentRuntimeSettings(env, ctx), /AGENT_RUNTIME_/);
  }
});
