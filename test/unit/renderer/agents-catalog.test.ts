/**
 * The agent/skill/MCP pages' pure rules (issue 17 item 6): list answers, "not available" detection,
 * the chat's chosen agent as the request's `agent_id`, and the new client-side routes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface Catalog {
  listOf<T>(data: unknown): T[];
  notAvailable(err: unknown): boolean;
  agentField(): { agent_id?: string };
  useAgentChoice: { getState(): { agentId: string | null; agentPicked(id: string | null): void } };
  TOOL_GROUPS: ReadonlyArray<readonly [string, string]>;
}
interface Http { ApiError: new (status: number, code: string, message: string) => Error }
interface Route { route(path: string): { page: string; param: string | null } }

const catalog = await loadRenderer<Catalog>('agents/catalog.ts');
const { ApiError } = await loadRenderer<Http>('api/http.ts');
const { route } = await loadRenderer<Route>('app/route.ts');

test('list answers: {items} or a bare array; anything else is empty', () => {
  assert.deepEqual(catalog.listOf({ items: [1, 2] }), [1, 2]);
  assert.deepEqual(catalog.listOf([3]), [3]);
  assert.deepEqual(catalog.listOf(null), []);
  assert.deepEqual(catalog.listOf({ items: 'x' }), []);
});

test('a route not in this build is "not available"; a domain 404 is an answer', () => {
  assert.equal(catalog.notAvailable(new ApiError(404, 'not_found', '/v1/agents is not available in this build')), true);
  assert.equal(catalog.notAvailable(new ApiError(501, 'http_501', 'x')), true);
  assert.equal(catalog.notAvailable(new ApiError(502, 'bad_gateway', 'x')), true);
  assert.equal(catalog.notAvailable(new ApiError(404, 'agent_not_found', 'x')), false);
  assert.equal(catalog.notAvailable(new ApiError(403, 'forbidden', 'x')), false);
  assert.equal(catalog.notAvailable(new Error('x')), false);
});

test('the chosen agent goes out as agent_id; the default agent sends nothing', () => {
  const s = catalog.useAgentChoice.getState();
  s.agentPicked(null);
  assert.deepEqual(catalog.agentField(), {});
  s.agentPicked('01AGENT');
  assert.deepEqual(catalog.agentField(), { agent_id: '01AGENT' });
  s.agentPicked('default');
  assert.deepEqual(catalog.agentField(), {});
  s.agentPicked(null);
  assert.deepEqual(catalog.TOOL_GROUPS.map(([id]) => id), ['builtin', 'sandbox', 'knowledge', 'memory']);
});

test('routes: /agents, /skills, /mcp', () => {
  assert.deepEqual(route('/agents'), { page: 'agents', param: null });
  assert.deepEqual(route('/skills'), { page: 'skills', param: null });
  assert.deepEqual(route('/mcp'), { page: 'mcp', param: null });
  assert.deepEqual(route('/somewhere'), { page: 'chat', param: null });
});
