/**
 * Folder connector end to end (issue 18 item 3), through the gateway: a temp folder is indexed; an
 * edit and a re-sync make search find the new text and not the old; a deletion removes it; a file
 * that fails to parse records `last_error`; the connector's visibility is respected (a user granted
 * finds it, another does not); config errors and unknown connectors answer their codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack } from '../helpers/stack.js';
import { search, syncAndWait } from '../helpers/connectors.js';

test('a folder connector follows new, changed, deleted and broken files, within its visibility', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conn-folder-'));
  writeFileSync(join(dir, 'alpha.md'), '# Alpha\n\nThe quarterly zanzibarite forecast is steady.\n');
  writeFileSync(join(dir, 'beta.md'), '# Beta\n\nThe marmalade pipeline handles invoices.\n');
  writeFileSync(join(dir, 'broken.pdf'), 'this is not a PDF at all');
  writeFileSync(join(dir, 'ignored.bin'), 'binary');
  const stack = await startStack();
  try {
    const admin = await login(stack.url, ADMIN.email, ADMIN.password);
    const mk = async (email: string): Promise<{ id: string; token: string }> => {
      const c = await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email, display_name: email, password: 'long enough password 1', roles: ['user'] });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      return { id: c.body.id, token: await login(stack.url, email, 'long enough password 1') };
    };
    const granted = await mk('granted@example.test');
    const other = await mk('other@example.test');

    assert.equal((await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', { kind: 'folder', name: 'x', config: { path: 'relative' } })).body.code, 'connector_config_invalid');
    assert.equal((await callJson(stack.url, granted.token, 'GET', '/v1/admin/context/connectors')).status, 403);
    assert.equal((await callJson(stack.url, admin, 'GET', '/v1/admin/context/connectors/nope')).body.code, 'connector_not_found');
    const caps = await callJson(stack.url, admin, 'GET', '/v1/admin/connector-capabilities/folder');
    assert.equal(caps.body.deletions, true);

    const created = await callJson(stack.url, admin, 'POST', '/v1/admin/context/connectors', {
      kind: 'folder', name: 'Team notes', config: { path: dir }, visibility_mode: 'restricted', user_grants: [granted.id],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    assert.equal(created.body.visibility_mode, 'restricted');
    const check = await callJson(stack.url, admin, 'POST', `/v1/admin/context/connectors/${id}/check`);
    assert.equal(check.body.ok, true, JSON.stringify(check.body));
    const surfaces = await callJson(stack.url, admin, 'GET', `/v1/admin/context/connectors/${id}/surfaces`);
    assert.deepEqual(surfaces.body.surfaces.map((s: { id: string }) => s.id), ['.']);

    const first = await syncAndWait(stack.url, admin, id);
    assert.equal(first.state, 'succeeded');
    assert.deepEqual(first.progress, { total: 3, done: 3, failed: 1 });
    assert.ok((await search(stack.url, granted.token, 'zanzibarite forecast')).some((t) => t.includes('zanzibarite')));
    assert.ok(!(await search(stack.url, other.token, 'zanzibarite forecast')).some((t) => t.includes('zanzibarite')), 'a user outside the grants does not find it');
    const docs = await callJson(stack.url, admin, 'GET', `/v1/admin/context/connectors/${id}/documents`);
    const broken = docs.body.documents.find((d: { path_or_uid: string }) => d.path_or_uid === 'broken.pdf');
    assert.equal(broken.status, 'failed');
    assert.ok(typeof broken.last_error === 'string' && broken.last_error.length > 0);
    assert.equal(docs.body.documents.length, 3);

    writeFileSync(join(dir, 'alpha.md'), '# Alpha\n\nThe quarterly obsidianite outlook replaced the old one.\n');
    unlinkSync(join(dir, 'beta.md'));
    const second = await syncAndWait(stack.url, admin, id);
    assert.deepEqual(second.progress, { total: 2, done: 2, failed: 0 });
    assert.ok((await search(stack.url, granted.token, 'obsidianite outlook')).some((t) => t.includes('obsidianite')));
    assert.ok(!(await search(stack.url, granted.token, 'zanzibarite forecast')).some((t) => t.includes('zanzibarite')), 'the old text is gone');
    assert.ok(!(await search(stack.url, admin, 'marmalade pipeline')).some((t) => t.includes('marmalade')), 'the deleted file is gone');

    const third = await syncAndWait(stack.url, admin, id);
    assert.deepEqual(third.progress, { total: 0, done: 0, failed: 0 }, 'nothing changed, nothing done');

    assert.equal((await callJson(stack.url, admin, 'DELETE', `/v1/admin/context/connectors/${id}`)).status, 204);
    assert.ok(!(await search(stack.url, granted.token, 'obsidianite outlook')).some((t) => t.includes('obsidianite')), 'deleting the connector deletes its documents');
  } finally {
    await stack.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
