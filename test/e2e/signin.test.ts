/**
 * Sign-in in a real browser against the headless stack: the labelled fields, a clear error for a
 * wrong password, then the chat with its "Message" textbox; sign-out returns to sign-in; no
 * uncaught page error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

test('sign in with the labelled fields, see errors, reach the composer', { skip: haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium' }, async (t) => {
  const stack = await startE2E();
  const browser = await launch();
  t.after(async () => { await browser.close(); await stack.stop(); });
  const { page, errors } = await newPage(browser);

  await page.goto(stack.url);
  await page.getByLabel('Username').waitFor();
  await shot(page, 'e2e-signin');

  // Empty form: said plainly, nothing sent.
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Enter a username and a password.' }).waitFor();

  // Wrong password: the server's invalid_credentials becomes a clear message.
  await page.getByLabel('Username').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor();
  await shot(page, 'e2e-signin-error');

  await signIn(page, stack.url);
  const box = page.getByRole('textbox', { name: 'Message' });
  assert.equal(await box.isEditable(), true);
  // Shift+Enter breaks the line; the draft stays in the box.
  await box.type('first line');
  await box.press('Shift+Enter');
  await box.type('second line');
  assert.equal(await box.inputValue(), 'first line\nsecond line');
  await box.fill('');
  await shot(page, 'e2e-chat-empty');

  // A reload resumes the session from the stored refresh token (no second sign-in).
  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Username').waitFor();
  assert.deepEqual(errors, []);
});
