/** KnowledgeScopeSync (issue 13 item 8): pushes the tenant's whole list, retries a failed push until one lands, with the newest list. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KnowledgeScopeSync } from '../../../services/agent-runtime/src/domain/admin/knowledge-sync.js';
import type { PermissionProfile } from '../../../services/agent-runtime/src/contracts.js';

const profile = (id: string): PermissionProfile => ({
  id, name: id, roles: ['user'], groups: [], agents: [], tools: [], knowledge: { tags: [id] }, created_at: '', updated_at: '', updated_by: null,
});

test('a failed push is retried until it lands, and the retry carries the list as it is then', async () => {
  let list = [profile('a')];
  const pushed: string[][] = [];
  let fail = 1;
  const warnings: string[] = [];
  const sync = new KnowledgeScopeSync({
    profiles: { list: async () => list },
    port: { replaceProfiles: async (p) => { if (fail-- > 0) throw new Error('down'); pushed.push(p.map((x) => x.id)); return {}; } },
    log: { warn: (_o, m) => warnings.push(m), info: () => {} },
    retryMs: 20,
  });
  assert.equal(await sync.push('acme'), false);
  assert.equal(warnings.length, 1);
  list = [profile('a'), profile('b')];
  for (let i = 0; i < 50 && !pushed.length; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(pushed, [['a', 'b']]);
  sync.close();
});

test('closed: a failed push schedules no retry', async () => {
  let calls = 0;
  const sync = new KnowledgeScopeSync({
    profiles: { list: async () => [] }, port: { replaceProfiles: async () => { calls++; throw new Error('down'); } }, log: { warn: () => {}, info: () => {} }, retryMs: 5,
  });
  sync.close();
  assert.equal(await sync.push('acme'), false);
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(calls, 1);
});
