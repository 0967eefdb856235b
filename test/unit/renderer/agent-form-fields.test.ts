/**
 * Renderer helpers of the agent form, skill files and plugins pages (issue 17 item 6): API
 * validation errors land on their form field, plugin audiences read as text, `/plugins` routes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface FieldErrorsMod {
  fieldKey(path: string): string;
  fieldMessage(message: string): string;
  fieldErrors(err: unknown, codes?: Record<string, string>): Record<string, string>;
}
interface HttpMod { ApiError: new (status: number, code: string, message: string, field?: string | null) => Error }
interface PluginsMod {
  pluginLabel(p: { id: string; name: string }): string;
  audienceText(p: { roles: string[]; groups: string[] }): string;
}
interface RouteMod { route(path: string): { page: string; param: string | null } }

const fe = await loadRenderer<FieldErrorsMod>('agents/field-errors.ts');
const http = await loadRenderer<HttpMod>('api/http.ts');
const plugins = await loadRenderer<PluginsMod>('plugins/plugins.ts');
const r = await loadRenderer<RouteMod>('app/route.ts');

test('a schema error path maps to the form field (knowledge lists by list, arrays by field)', () => {
  assert.equal(fe.fieldKey('body.model_role'), 'model_role');
  assert.equal(fe.fieldKey('body.knowledge.tags.0'), 'knowledge.tags');
  assert.equal(fe.fieldKey('body.knowledge'), 'knowledge');
  assert.equal(fe.fieldKey('body.tools.3'), 'tools');
  assert.equal(fe.fieldKey('body.files.1.path'), 'files');
  assert.equal(fe.fieldKey('body'), '');
});

test('the readable first clause of a schema message, without the instance path', () => {
  assert.equal(fe.fieldMessage('body/guardrail_policy must NOT have more than 128 characters, body/guardrail_policy must be null'), 'must NOT have more than 128 characters');
  assert.equal(fe.fieldMessage('plain message'), 'plain message');
});

test('fieldErrors: by field, by mapped domain code, else the whole form', () => {
  const byField = fe.fieldErrors(new http.ApiError(400, 'invalid_request', 'body/memory_scope must be equal to one of the allowed values', 'body.memory_scope'));
  assert.deepEqual(byField, { memory_scope: 'must be equal to one of the allowed values' });
  assert.deepEqual(fe.fieldErrors(new http.ApiError(403, 'forbidden', 'admins only'), { forbidden: 'scope' }), { scope: 'admins only' });
  assert.deepEqual(fe.fieldErrors(new http.ApiError(400, 'invalid_request', 'body must NOT have additional properties', 'body')), { '': 'body must NOT have additional properties' });
  assert.deepEqual(fe.fieldErrors(new Error('network')), { '': 'network' });
});

test('plugin labels and audiences', () => {
  assert.equal(plugins.pluginLabel({ id: 'memory', name: 'memory' }), 'Memory');
  assert.equal(plugins.pluginLabel({ id: 'mcp:01ABC', name: 'lookup' }), 'MCP: lookup');
  assert.equal(plugins.audienceText({ roles: [], groups: [] }), 'everyone');
  assert.equal(plugins.audienceText({ roles: ['admin'], groups: ['legal'] }), 'roles admin · groups legal');
  assert.deepEqual(r.route('/plugins'), { page: 'plugins', param: null });
});
