/**
 * The Keys tab in the browser (issue 19 item 3): the admin sees the four key kinds with their
 * versions, fingerprints and dates (the receipt key's SHA-256 fingerprint of its public key),
 * rotates the receipt key through the confirmation, and sees the new version signing and the old
 * one retired.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adminSession, shot } from './support.js';

const { session: s, skip } = adminSession();

test('Keys tab: every kind listed with fingerprints; Rotate asks to confirm, then the new receipt key signs', { skip }, async () => {
  await s.page.goto(`${s.stack.url}/admin/keys`);
  for (const name of ['Principal stamps', 'Capability tokens', 'Audit signing', 'Receipt signing (Ed25519)']) {
    await s.page.getByRole('region', { name }).waitFor({ timeout: 30_000 });
  }
  const receipt = s.page.getByRole('region', { name: 'Receipt signing (Ed25519)' });
  const rows = receipt.getByRole('table').locator('tbody tr');
  assert.equal(await rows.count(), 1);
  // 64 hex digits of SHA-256, shown in groups of four.
  assert.match(await rows.first().innerText(), /([0-9a-f]{4} ){15}[0-9a-f]{4}/);

  await receipt.getByRole('button', { name: 'Rotate receipt' }).click();
  await receipt.getByText('every older key keeps verifying').waitFor();
  await receipt.getByRole('button', { name: 'Confirm rotate receipt' }).click();
  await receipt.getByRole('status').filter({ hasText: 'Rotated' }).waitFor({ timeout: 30_000 });
  await rows.nth(1).waitFor({ timeout: 10_000 });
  assert.equal(await rows.count(), 2);
  assert.match(await rows.nth(0).innerText(), /signing/);
  assert.match(await rows.nth(1).innerText(), /verifies only/);
  const pub = await (await fetch(`${s.stack.url}/v1/receipts/keys`)).json() as { keys: Array<{ kid: string }> };
  assert.equal(pub.keys.length, 2);
  assert.match(await rows.nth(0).innerText(), new RegExp(pub.keys[0]!.kid.replace(/[-]/g, '\\-')));
  await shot(s.page, 'key-rotation-panel');
  assert.deepEqual(s.errors, []);
});
