/**
 * The Backups tab in the browser (issue 19 item 2): the admin creates a backup with a passphrase,
 * sees it listed, downloads it (the file is the archive), and a restore dry run shows the audit
 * chain report; a wrong passphrase shows `bad_passphrase`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { TestStack } from '../helpers/stack.js';
import { haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

const skipAll = !haveChromium();
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];

before(async () => {
  if (skipAll) return;
  stack = await startE2E();
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url);
});
after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
  if (stack) rmSync(`${stack.dataDir}-backups`, { recursive: true, force: true });
});

test('Backups tab: create, list, download, dry run with the chain report, wrong passphrase refused', { skip: skipAll && 'chromium is not installed' }, async () => {
  await page.goto(`${stack.url}/admin/backups`);
  const form = page.getByRole('form', { name: 'Create a backup' });
  await form.getByLabel('Passphrase').fill('a long passphrase 42');
  await form.getByRole('button', { name: 'Create backup' }).click();
  const row = page.getByRole('table', { name: 'Backups' }).locator('tbody tr').filter({ hasText: 'bk_' });
  await row.first().waitFor({ timeout: 30_000 });
  assert.equal(await row.count(), 1);

  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: 'Download' }).click()]);
  const file = await download.path();
  assert.ok(file);
  assert.equal(readFileSync(file).subarray(0, 8).toString('latin1'), 'SVCBAK1\n');

  await row.getByRole('button', { name: 'Restore…' }).click();
  const restore = page.getByLabel('Restore', { exact: true });
  await restore.getByLabel('Passphrase').fill('wrong passphrase');
  await restore.getByRole('button', { name: 'Dry run' }).click();
  await page.getByRole('alert').filter({ hasText: 'bad_passphrase' }).waitFor({ timeout: 30_000 });

  await restore.getByLabel('Passphrase').fill('a long passphrase 42');
  await restore.getByRole('button', { name: 'Dry run' }).click();
  const report = page.getByLabel('Restore report');
  await report.waitFor({ timeout: 30_000 });
  const text = await report.innerText();
  assert.match(text, /Dry run: nothing was changed/);
  assert.match(text, /The audit chain holds: \d+ rows checked/);
  await shot(page, 'backup-panel-dry-run');
  assert.deepEqual(errors, []);
});
