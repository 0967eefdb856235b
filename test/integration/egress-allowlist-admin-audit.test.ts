/**
 * Issue 19 item 6: changes to the egress allowlist are admin audit rows: adding an entry writes
 * `egress.allowlist.added`, removing it `egress.allowlist.removed`, each naming the destination
 * (resource `egress_destination`) and the admin who made the change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, startStack } from '../helpers/stack.js';

test('allowlist additions and removals are written as admin audit rows', { timeout: 120_000 }, async () => {
  const stack = await startStack();
  try {
    const admin = await login(stack.url, ADMIN.email, ADMIN.password);
    const added = await callJson(stack.url, admin, 'POST', '/v1/admin/egress/allowlist', { destination: 'updates.example.com:443' });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const removed = await callJson(stack.url, admin, 'DELETE', `/v1/admin/egress/allowlist/${added.body.id}`);
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    const rows = async (action: string): Promise<Array<{ resource_type: string; resource_id: string; user_id: string; detail: Record<string, unknown> }>> => {
      for (let i = 0; i < 40; i++) {
        const r = await callJson(stack.url, admin, 'GET', `/v1/admin/audit?action=${action}&limit=10`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        if (r.body.items.length) return r.body.items;
        await new Promise((res) => setTimeout(res, 100));
      }
      return [];
    };
    const a = await rows('egress.allowlist.added');
    assert.equal(a.length, 1, 'one added row');
    assert.equal(a[0]!.resource_type, 'egress_destination');
    assert.equal(a[0]!.resource_id, 'updates.example.com:443');
    assert.equal(a[0]!.detail.destination, 'updates.example.com:443');
    assert.notEqual(a[0]!.user_id, 'unknown', 'the admin is named');
    const r = await rows('egress.allowlist.removed');
    assert.equal(r.length, 1, 'one removed row');
    assert.equal(r[0]!.resource_id, 'updates.example.com:443');
    assert.equal(r[0]!.detail.id, added.body.id);
  } finally {
    await stack.stop();
  }
});
