/** Model resolution and cooldowns (spec "Errors": inference codes; issue 4: roles with fallback). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Cooldowns, Snapshot } from '../../../services/inference-router/src/domain/snapshot.js';
import type { DomainError } from '../../../services/shared/kit/domain-error.js';

const snap = new Snapshot([
  { id: 'p1', name: 'One', baseUrl: 'http://one/v1', adapter: 'chat_completions', models: ['m1', 'shared'], apiKey: null, createdAt: null },
  { id: 'p2', name: 'Two', baseUrl: 'http://two/v1', adapter: 'responses', models: ['m2', 'shared'], apiKey: 'k', createdAt: null },
  { id: 'local', name: 'local', baseUrl: 'local', adapter: 'local', models: ['tiny'], apiKey: null, createdAt: null, paths: new Map([['tiny', '/m/llm/tiny.gguf']]) },
], [
  { role: 'default', targets: [{ provider_id: 'p2', model: 'm2' }, { provider_id: 'p1', model: 'm1' }] },
  { role: 'vision', targets: [{ provider_id: 'gone', model: 'x' }, { provider_id: 'p1', model: 'not-listed' }] },
]);

function code(fn: () => unknown): string {
  try { fn(); } catch (e) { return (e as DomainError).code; }
  return 'none';
}

test('roles resolve to ordered backends; unmapped and unusable roles have their codes', () => {
  const r = snap.resolve('default');
  assert.equal(r.role, 'default');
  assert.deepEqual(r.backends.map((b) => `${b.providerName}/${b.model}`), ['Two/m2', 'One/m1']);
  assert.equal(r.backends[0]!.apiKey, 'k');
  assert.equal(code(() => snap.resolve('title')), 'role_not_configured');
  assert.equal(code(() => snap.resolve('vision')), 'role_no_backend');
});

test('concrete ids resolve by provider prefix, then by the first provider listing them; unknown is model_unknown', () => {
  assert.equal(snap.resolve('shared').backends[0]!.providerId, 'p1');
  assert.equal(snap.resolve('Two/shared').backends[0]!.providerId, 'p2');
  assert.equal(snap.resolve('p2/shared').backends[0]!.providerId, 'p2');
  const local = snap.resolve('tiny').backends[0]!;
  assert.equal(local.adapter, 'local');
  assert.equal(local.modelPath, '/m/llm/tiny.gguf');
  assert.equal(code(() => snap.resolve('nope')), 'model_unknown');
  assert.equal(code(() => snap.resolve('One/m2')), 'model_unknown');
});

test('a failed backend cools down, is skipped while others are healthy, and comes back', () => {
  let now = 1000;
  const c = new Cooldowns(30_000, () => now);
  const a = { providerId: 'a', model: 'x' }; const b = { providerId: 'b', model: 'x' };
  c.fail(a);
  assert.deepEqual(c.order([a, b]), [b]);
  c.fail(b);
  assert.deepEqual(c.order([a, b]), [a, b], 'all cooling: try them all in order');
  c.ok(b);
  assert.deepEqual(c.order([a, b]), [b]);
  now += 30_001;
  assert.equal(c.coolingUntil(a), null);
  assert.deepEqual(c.order([a, b]), [a, b]);
});
