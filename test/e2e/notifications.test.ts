/**
 * Notifications in a real browser (issue 13 item 1), against the headless stack: a failed and an
 * indexed knowledge upload (the knowledge service's producer, through the runtime) light the bell
 * live (the stream through the gateway, no reload); the inbox lists both; a click marks one read
 * and opens the document; "Mark all read" clears the count; the `/notifications` page lists them.
 * Through the gateway, a user's token on the producer route is refused.
 * Screenshots: test-results/e2e-notifications-*.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { login, type TestStack } from '../helpers/stack.js';
import { multipart } from '../helpers/embedder/documents.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

async function upload(fields: Record<string, string>, file?: Parameters<typeof multipart>[1]): Promise<{ status: number; body: { document_id: string } }> {
  const m = multipart(fields, file);
  const r = await fetch(`${stack.url}${file ? '/v1/knowledge/ingest' : '/v1/knowledge/ingest/text'}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': m.contentType }, body: m.body,
  });
  return { status: r.status, body: await r.json() as { document_id: string } };
}

before(async () => {
  if (skipAll) return;
  stack = await startE2E({ AGENT_RUNTIME_TITLES: 'false' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
});

test('a user token on the producer route is refused through the gateway', { skip: skipAll }, async () => {
  const r = await fetch(`${stack.url}/v1/internal/notifications`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tenant_id: 'acme', user_id: 'x', kind: 'test', title: 'forged' }),
  });
  assert.equal(r.status, 403);
  assert.equal((await r.json() as { code: string }).code, 'service_account_required');
});

test('bell: the count follows uploads live; the inbox lists them; a click reads one and opens it; mark all read', { skip: skipAll }, async () => {
  const bell = page.getByTestId('notif-bell');
  await bell.waitFor();
  assert.equal(await page.getByTestId('notif-count').count(), 0, 'nothing unread yet');

  const bad = await upload({ title: 'Broken scan' }, { filename: 'broken.pdf', contentType: 'application/pdf', data: Buffer.from('%PDF-1.4\nthis is not a pdf') });
  assert.equal(bad.status, 422);
  const good = await upload({ title: 'Canteen menu', content: 'Soup on Mondays, curry on Fridays.' });
  assert.equal(good.status, 201);
  // Live: no reload, no click.
  await page.getByTestId('notif-count').filter({ hasText: '2' }).waitFor({ timeout: 20_000 });
  await shot(page, 'e2e-notifications-bell');

  await bell.click();
  const items = page.getByTestId('notif-item');
  await items.nth(1).waitFor();
  assert.equal(await items.count(), 2);
  const texts = await items.allInnerTexts();
  assert.ok(texts.some((t) => /Document failed: Broken scan/.test(t)), texts.join(' | '));
  assert.ok(texts.some((t) => /Document indexed: Canteen menu/.test(t)), texts.join(' | '));
  await shot(page, 'e2e-notifications-inbox');

  await items.filter({ hasText: 'Broken scan' }).click();
  await page.waitForURL((u) => u.pathname === `/knowledge/${bad.body.document_id}`, { timeout: 10_000 });
  await page.getByTestId('notif-count').filter({ hasText: '1' }).waitFor({ timeout: 10_000 });

  await bell.click();
  await page.getByTestId('notif-read-all').click();
  await page.getByTestId('notif-count').waitFor({ state: 'detached', timeout: 10_000 });
  // The list re-reads after the count: wait for it rather than racing it.
  await page.locator('.notif-item.unread').first().waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(await page.locator('.notif-item.unread').count(), 0);
  await page.keyboard.press('Escape');

  await page.goto(`${stack.url}/notifications`);
  await page.getByTestId('notif-item').nth(1).waitFor();
  assert.equal(await page.getByTestId('notif-item').count(), 2);
  assert.equal(await page.getByTestId('notif-count').count(), 0, 'the count stays 0 after a reload');
  await shot(page, 'e2e-notifications-page');
  assert.deepEqual(errors, []);
});
