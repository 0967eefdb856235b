/**
 * The admin's connectors page in the browser (issue 18 item 4): Admin › Connectors creates a folder
 * connector through the form, checks it, lists its surfaces, syncs it with the job's progress
 * shown until it succeeds, and shows each synced file with the last error of the one that failed
 * to parse.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { TestStack } from '../helpers/stack.js';
import { haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

const skipAll = !haveChromium();
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let dir: string;

before(async () => {
  if (skipAll) return;
  dir = mkdtempSync(join(tmpdir(), 'conn-ui-'));
  writeFileSync(join(dir, 'handbook.md'), '# Handbook\n\nThe onboarding checklist lives here.\n');
  writeFileSync(join(dir, 'scan.pdf'), 'not really a pdf');
  stack = await startE2E();
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an admin creates, checks and syncs a folder connector and sees the per-document last error', { skip: skipAll, timeout: 120_000 }, async () => {
  await page.goto(`${stack.url}/admin/connectors`);
  const form = page.getByRole('form', { name: 'New connector' });
  await form.getByLabel('Name').fill('Handbook folder');
  await form.getByLabel('Folder path').fill(dir);
  await form.getByRole('button', { name: 'Create connector' }).click();
  const detail = page.getByLabel('Connector Handbook folder');
  await detail.waitFor({ timeout: 10_000 });
  await detail.getByRole('button', { name: 'Check' }).click();
  await detail.getByText(/OK — 2 file\(s\) to sync/).waitFor({ timeout: 10_000 });
  await detail.getByRole('button', { name: 'Surfaces' }).click();
  await detail.getByRole('checkbox', { name: /top level/ }).waitFor();
  await detail.getByRole('button', { name: 'Sync now' }).click();
  const docs = detail.getByRole('table', { name: 'Documents of Handbook folder' });
  await docs.getByRole('row', { name: /handbook\.md.*indexed/ }).waitFor({ timeout: 30_000 });
  const failed = docs.getByRole('row', { name: /scan\.pdf/ });
  await failed.waitFor();
  assert.match(await failed.innerText(), /failed/);
  assert.ok((await failed.locator('td').nth(2).innerText()).trim().length > 1, 'the last error is shown');
  assert.equal((await page.getByRole('table', { name: 'Connectors' }).getByRole('row', { name: /Handbook folder/ }).count()), 1);
  await shot(page, 'connector-admin');
  assert.deepEqual(errors, []);
});
