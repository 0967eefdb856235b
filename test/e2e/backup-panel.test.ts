/**
 * The Backups tab in the browser (issue 19 item 2): the admin creates a backup with a passphrase,
 * sees it listed, downloads it (the file is the archive), and a restore dry run shows the audit
 * chain report; a wrong passphrase shows `bad_passphrase`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { adminSession, shot } from './support.js';

const { session: s, skip } = adminSession({}, (x) => rmSync(`${x.stack.dataDir}-backups`, { recursive: true, force: true }));

test('Backups tab: create, list, download, dry run with the chain report, wrong passphrase refused', { skip }, async () => {
  await s.page.goto(`${s.stack.url}/admin/backups`);
  const form = s.page.getByRole('form', { name: 'Create a backup' });
  await form.getByLabel('Passphrase').fill('a long passphrase 42');
  await form.getByRole('button', { name: 'Create backup' }).click();
  const row = s.page.getByRole('table', { name: 'Backups' }).locator('tbody tr').filter({ hasText: 'bk_' });
  await row.first().waitFor({ timeout: 30_000 });
  assert.equal(await row.count(), 1);

  const [download] = await Promise.all([s.page.waitForEvent('download'), row.getByRole('button', { name: 'Download' }).click()]);
  const file = await download.path();
  assert.ok(file);
  assert.equal(readFileSync(file).subarray(0, 8).toString('latin1'), 'SVCBAK1\n');

  await row.getByRole('button', { name: 'Restore…' }).click();
  const restore = s.page.getByLabel('Restore', { exact: true });
  await restore.getByLabel('Passphrase').fill('wrong passphrase');
  await restore.getByRole('button', { name: 'Dry run' }).click();
  await s.page.getByRole('alert').filter({ hasText: 'bad_passphrase' }).waitFor({ timeout: 30_000 });

  await restore.getByLabel('Passphrase').fill('a long passphrase 42');
  await restore.getByRole('button', { name: 'Dry run' }).click();
  const report = s.page.getByLabel('Restore report');
  await report.waitFor({ timeout: 30_000 });
  const text = await report.innerText();
  assert.match(text, /Dry run: nothing was changed/);
  assert.match(text, /The audit chain holds: \d+ rows checked/);
  await shot(s.page, 'backup-panel-dry-run');
  assert.deepEqual(s.errors, []);
});
