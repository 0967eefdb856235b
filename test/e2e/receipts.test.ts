/**
 * Receipts in a real browser: every authenticated request is a turn with a receipt, so the
 * renderer's own calls produce sealed receipts. Open one from the list, see it sealed, Verify it
 * (verified, every check listed), export the bundle (a JSON download svc-verify can check).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

test('receipts list, receipt view, Verify, Export bundle', { skip: haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium' }, async (t) => {
  const stack = await startE2E();
  const browser = await launch();
  t.after(async () => { await browser.close(); await stack.stop(); });
  const { page, errors } = await newPage(browser);
  await signIn(page, stack.url);

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Receipts' }).click();
  const list = page.getByRole('region', { name: 'Receipts' });
  // The list opens on Chats (issue 13 item 7); this test reads the renderer's own requests.
  await page.getByTestId('receipt-kind-filter').getByRole('button', { name: 'Everything' }).click();
  // Turns seal at their end; the list fills as the renderer's own requests seal.
  const first = list.getByRole('link').first();
  for (let i = 0; i < 20 && !(await first.isVisible()); i++) {
    await page.waitForTimeout(500);
    await page.getByRole('button', { name: 'Refresh' }).click();
  }
  await first.click();
  const view = page.getByTestId('receipt-view');
  await view.getByText('Merkle root').waitFor();
  await view.locator('[data-status="sealed"], [data-status="verified"]').first().waitFor();
  assert.ok(await view.getByText('Event timeline').isVisible());
  assert.ok(await view.getByText('turn_started').first().isVisible());
  await shot(page, 'e2e-receipt-sealed');

  await view.getByRole('button', { name: 'Verify' }).click();
  await view.getByText('Every check holds.').waitFor();
  await view.locator('[data-status="verified"]').first().waitFor();
  await shot(page, 'e2e-receipt-verified');

  const [download] = await Promise.all([page.waitForEvent('download'), view.getByRole('button', { name: 'Export bundle' }).click()]);
  const file = await download.path();
  const bundle = JSON.parse(readFileSync(file, 'utf8')) as { detail: { receipt: { turn_id: string } }; proof: { audit_chain: { suffix: unknown[] } } };
  assert.match(download.suggestedFilename(), /^receipt-.+\.json$/);
  assert.ok(bundle.proof.audit_chain.suffix.length >= 1);
  assert.deepEqual(errors, []);
});
