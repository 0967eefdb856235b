/**
 * Verification in the reviewer's browser (issue 22 item 5), in Debian's Chromium: on the Receipts
 * page, "Verify a file" opens the local verifier; the reviewer pins the server's published key
 * (kept in local storage across a reload) or pastes a JWK, opens an exported bundle file and
 * verifies it with no request to any server: every check is listed, the envelope's Ed25519
 * signature passes with WebCrypto, the HMAC checks say they need the secret; a tampered bundle
 * file is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, callJson, login } from '../helpers/stack.js';
import { haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

test('open a bundle file and verify it locally against a pinned key', { skip: haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium' }, async (t) => {
  const stack = await startE2E();
  const browser = await launch();
  const dir = mkdtempSync(join(tmpdir(), 'local-verify-'));
  t.after(async () => { await browser.close(); await stack.stop(); rmSync(dir, { recursive: true, force: true }); });

  // A sealed receipt's bundle, exported through the API (the renderer's own requests are turns).
  const token = await login(stack.url, ADMIN.email, ADMIN.password);
  let turn: string | null = null;
  for (let i = 0; i < 40 && !turn; i++) {
    await callJson(stack.url, token, 'GET', '/v1/user/me');
    const list = await callJson(stack.url, token, 'GET', '/v1/receipts?kind=all&limit=5');
    turn = (list.body.items as Array<{ turn_id: string }> | undefined)?.[0]?.turn_id ?? null;
    if (!turn) await new Promise((r) => setTimeout(r, 250));
  }
  assert.ok(turn, 'a receipt sealed');
  const bundle = (await callJson(stack.url, token, 'GET', `/v1/receipts/${turn}/bundle`)).body;
  assert.ok(bundle.proof.envelope.public_signature, 'the bundle carries a public signature');
  const good = join(dir, `receipt-${turn}.json`);
  writeFileSync(good, JSON.stringify(bundle, null, 2));
  const tampered = structuredClone(bundle);
  tampered.detail.events[0].payload_json = '{"tampered":true}';
  const bad = join(dir, 'tampered.json');
  writeFileSync(bad, JSON.stringify(tampered));
  const jwk = (await (await fetch(`${stack.url}/v1/receipts/keys`)).json() as { keys: Array<{ kid: string }> }).keys[0]!;

  const { page, errors } = await newPage(browser);
  await signIn(page, stack.url);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Receipts' }).click();
  await page.getByTestId('open-local-verify').click();
  const panel = page.getByTestId('local-verify');
  await panel.getByTestId('local-no-pins').waitFor();

  // Pin the server's published key.
  await panel.getByTestId('local-load-published').click();
  await panel.locator(`[data-testid="local-pin-published"][data-kid="${jwk.kid}"]`).click();
  await panel.locator(`[data-testid="local-pin"][data-kid="${jwk.kid}"]`).waitFor();

  // Open the bundle file and verify: no request leaves the page while it runs.
  await panel.getByTestId('local-file').setInputFiles(good);
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  await panel.getByTestId('local-run').click();
  const verdict = panel.getByTestId('local-verdict');
  await verdict.waitFor();
  assert.equal(await panel.getByTestId('local-result').getAttribute('data-ok'), 'true', await panel.getByTestId('local-result').innerText());
  assert.deepEqual(requests, [], 'local verification asked no server');
  assert.match(await panel.getByTestId('local-ran').innerText(), /Ran in this browser with WebCrypto Ed25519.*no server was asked/);
  const state = async (id: string): Promise<string | null> => panel.locator(`[data-testid="local-check"][data-check="${id}"]`).getAttribute('data-state');
  assert.equal(await state('envelope_signature'), 'pass');
  assert.equal(await state('merkle_root'), 'pass');
  assert.equal(await state('leaves'), 'pass');
  assert.equal(await state('suffix_continuity'), 'pass');
  assert.equal(await state('envelope_hmac'), 'skipped');
  assert.equal(await state('suffix_hmac'), 'skipped');
  await shot(page, 'e2e-receipt-local-verified');

  // A tampered file is refused, also locally.
  await panel.getByTestId('local-file').setInputFiles(bad);
  await panel.getByTestId('local-run').click();
  await panel.locator('[data-testid="local-result"][data-ok="false"]').waitFor();
  assert.equal(await state('leaves'), 'fail');
  assert.deepEqual(requests, []);
  await shot(page, 'e2e-receipt-local-tampered');

  // The pin is kept in this browser; unpin, then pin by pasting the JWK instead.
  await page.reload();
  await page.getByTestId('open-local-verify').click();
  await panel.locator(`[data-testid="local-pin"][data-kid="${jwk.kid}"]`).waitFor();
  await panel.getByRole('button', { name: 'Unpin' }).click();
  await panel.getByTestId('local-no-pins').waitFor();
  await panel.getByTestId('local-jwk').fill(JSON.stringify(jwk));
  await panel.getByTestId('local-pin-pasted').click();
  await panel.locator(`[data-testid="local-pin"][data-kid="${jwk.kid}"]`).waitFor();
  await panel.getByTestId('local-jwk').fill('{"kty":"OKP","crv":"Ed25519","x":"short"}');
  await panel.getByTestId('local-pin-pasted').click();
  await panel.getByTestId('local-error').waitFor();
  assert.deepEqual(errors, []);
});
