/**
 * The tool plug-in contract and what the runtime builds on it: the contract's pure helpers, the
 * plug-in loader, discovery (register while a source is ready, withdraw when it goes), the
 * policies in force, and the error table's statuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusOf } from '../../../services/shared/kit/domain-error.js';
import {
  AGENT_RUNTIME_ERRORS, invalidArguments, serviceError, toolArgs, toolError, type AgentTool, type PluginSource, type ToolPlugin,
} from '../../../services/agent-runtime/src/contracts.js';
import { ToolPolicies } from '../../../services/agent-runtime/src/domain/policies.js';
import type { PolicyRow, PolicyStore } from '../../../services/agent-runtime/src/domain/ports.js';
import { probeSources } from '../../../services/agent-runtime/src/domain/tool-discovery.js';
import { ToolRegistry } from '../../../services/agent-runtime/src/domain/tool-registry.js';
import { BUILTIN_PLUGIN, loadPlugin } from '../../../services/agent-runtime/src/tools/index.js';

const tool = (name: string, policy?: AgentTool['policy']): AgentTool => ({
  definition: { type: 'function', function: { name, description: `${name} tool`, parameters: { type: 'object' } } },
  ...(policy ? { policy } : {}),
  execute: () => name,
});

test('contract helpers: arguments from JSON text or objects, errors the model can read', () => {
  assert.deepEqual(toolArgs('{"q":"x"}'), { q: 'x' });
  assert.deepEqual(toolArgs('{oops'), {});
  assert.deepEqual(toolArgs({ a: 1 }), { a: 1 });
  assert.deepEqual(toolArgs(null), {});
  assert.deepEqual(toolArgs(7), {});
  assert.deepEqual(toolError('bad', 'c'), { isError: true, content: '{"error":"bad","code":"c"}' });
  assert.deepEqual(JSON.parse(invalidArguments('query must be a string').content), { error: 'query must be a string', code: 'invalid_arguments' });
  assert.deepEqual(JSON.parse(serviceError({ status: 404, body: { error: 'no page', code: 'page_not_found' } }).content), { error: 'no page', code: 'page_not_found' });
  assert.deepEqual(JSON.parse(serviceError({ status: 502, body: 'gateway text' }).content), { error: 'request failed with status 502', code: 'tool_call_failed' });
  assert.equal(serviceError({ status: 500, body: null }).isError, true);
});

test('loader: a module exporting a plug-in loads with its well-formed tools; anything else is null', async () => {
  const src = (code: string): PluginSource => ({ service: 'sandbox', moduleUrl: `data:text/javascript,${encodeURIComponent(code)}` });
  const p = await loadPlugin(src(`export const plugin = { name: 'sandbox', tools: [
    { definition: { type: 'function', function: { name: 'run_code', description: '', parameters: {} } }, execute: () => 'ok' },
    { definition: { type: 'function', function: { name: 'broken', description: '', parameters: {} } } },
    null,
  ] };`));
  assert.equal(p?.name, 'sandbox');
  assert.deepEqual(p?.tools.map((t) => t.definition.function.name), ['run_code']);
  assert.equal(await loadPlugin(src('export const tools = [];')), null, 'no plugin export');
  assert.equal(await loadPlugin({ service: 'sandbox', moduleUrl: 'file:///nonexistent/tools.js' }), null, 'missing module');
});

test('discovery: a ready source registers once, a source that goes away is withdrawn', async () => {
  const registry = new ToolRegistry();
  registry.registerPlugin(BUILTIN_PLUGIN);
  const ready = new Map<string, boolean>([['knowledge', true], ['memory', false]]);
  const loads: string[] = [];
  const logs: string[] = [];
  const plugins: Record<string, ToolPlugin> = {
    knowledge: { name: 'knowledge', tools: [tool('knowledge_search')] },
    memory: { name: 'memory', tools: [tool('memory_recall')] },
  };
  const deps = {
    sources: [{ service: 'knowledge', moduleUrl: 'k' }, { service: 'memory', moduleUrl: 'm' }] as PluginSource[],
    registry,
    isReady: async (s: string) => ready.get(s) ?? false,
    load: async (s: PluginSource) => { loads.push(s.service); return plugins[s.service] ?? null; },
    log: { info: (_o: object, m: string) => { logs.push(m); }, warn: (_o: object, m: string) => { logs.push(m); } },
  };
  await probeSources(deps);
  assert.deepEqual(registry.list().map((t) => `${t.source}:${t.definition.function.name}`), ['builtin:calculator', 'builtin:get_current_time', 'knowledge:knowledge_search']);
  await probeSources(deps);
  assert.deepEqual(loads, ['knowledge'], 'a registered source is not loaded again');
  ready.set('knowledge', false);
  ready.set('memory', true);
  await probeSources(deps);
  assert.equal(registry.get('knowledge_search'), undefined);
  assert.equal(registry.get('memory_recall')?.source, 'memory');
  assert.deepEqual(logs, ['tools registered', 'tool source withdrawn', 'tools registered']);
});

test('policies: config rules then admin rules; effective policy per agent; set and remove', async () => {
  const rows: PolicyRow[] = [];
  const store: PolicyStore = {
    list: (t) => rows.filter((r) => r.tenant_id === t),
    upsert: (tenant_id, agent_id, tool_, policy, updated_at, updated_by) => {
      const i = rows.findIndex((r) => r.tenant_id === tenant_id && r.agent_id === agent_id && r.tool === tool_);
      const row = { tenant_id, agent_id, tool: tool_, policy, updated_at, updated_by };
      if (i >= 0) rows[i] = row; else rows.push(row);
    },
    delete: (t, a, n) => { const i = rows.findIndex((r) => r.tenant_id === t && r.agent_id === a && r.tool === n); if (i < 0) return false; rows.splice(i, 1); return true; },
  };
  const tools = new ToolRegistry();
  tools.register('builtin', [tool('calculator', 'auto'), tool('shell', 'ask'), tool('web')]);
  const p = new ToolPolicies({ base: [{ tool: 'web', policy: 'deny' }], store, tools, defaultAgentId: 'default' });
  assert.deepEqual((await p.visibleTools('acme', undefined)).items.map((t) => `${t.name}=${t.policy}`), ['calculator=auto', 'shell=ask', 'web=deny']);
  assert.deepEqual(await p.set('acme', 'calculator', { policy: 'ask', agent_id: 'strict' }, 'admin-1'),
    { tool: 'calculator', policy: 'ask', tenant_id: 'acme', agent_id: 'strict', origin: 'admin' });
  assert.deepEqual(await p.set('acme', 'web', { policy: 'auto' }, null), { tool: 'web', policy: 'auto', tenant_id: 'acme', origin: 'admin' });
  assert.deepEqual((await p.rules('acme')).map((r) => `${r.origin}:${r.tool}:${r.policy}:${r.agent_id ?? '*'}`), ['config:web:deny:*', 'admin:calculator:ask:strict', 'admin:web:auto:*']);
  assert.deepEqual((await p.visibleTools('acme', 'strict')).items.map((t) => t.policy), ['ask', 'ask', 'auto']);
  assert.deepEqual((await p.visibleTools('other', undefined)).items.map((t) => t.policy), ['auto', 'ask', 'deny'], 'admin rules stay in their tenant');
  assert.deepEqual((await p.view('acme')).tools, [
    { name: 'calculator', source: 'builtin', default_policy: 'auto' }, { name: 'shell', source: 'builtin', default_policy: 'ask' }, { name: 'web', source: 'builtin', default_policy: 'auto' },
  ]);
  await p.remove('acme', 'calculator', 'strict');
  await assert.rejects(() => p.remove('acme', 'calculator', 'strict'), (e: { code?: string }) => e.code === 'not_found');
});

test('error table: inference codes keep the statuses of the JSON chat (model_unknown 400, budget 429, else 503)', () => {
  const expected: Record<string, number> = {
    provider_key_missing: 503, role_not_configured: 503, role_no_backend: 503, backend_unavailable: 503, inference_error: 503,
    model_unknown: 400, budget_exceeded: 429, guardrail_unavailable: 503, client_closed: 499,
    session_not_found: 404, folder_not_found: 404, message_not_found: 404, approval_not_found: 404, turn_not_found: 404,
    approval_decided: 409, replay_unavailable: 409, not_found: 404, invalid_request: 400, service_unavailable: 503,
  };
  for (const [code, status] of Object.entries(expected)) assert.equal(statusOf(AGENT_RUNTIME_ERRORS, code), status, code);
});
