/**
 * Sign-in through the embedded IdP with authorization code + PKCE in a real browser (issue 15 item
 * 1): the renderer sends the browser to the realm's authorization endpoint with
 * `code_challenge_method=S256`, state and nonce; the IdP's own interaction page (styled as the app,
 * strict CSP) takes the password, refuses a wrong one with the app's words, and the code comes back
 * to `/login/callback`, where the renderer exchanges it: the access token is the realm's (issuer
 * `{publicUrl}/idp/realms/svc`, audience `svc-frontend`). A user with a paired phone (a simulated
 * device) gets the number-matching step inside the interaction, and no code reaches the app and no
 * token the browser before the phone approves. Screenshots: test-results/e2e-idp-*.png.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { decodeJwt } from 'jose';
import { login } from '../helpers/stack.js';
import { SimDevice } from '../helpers/second-factor.js';
import { ADMIN, haveChromium, launch, newPage, shot, startE2E } from './support.js';

const skip = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

/** Everything the page sent to the authorization endpoint, received from the token endpoint, and where codes landed. */
function watchOidc(page: Page): { auth: URL[]; tokens: Array<Record<string, unknown>>; callbacks: URL[] } {
  const seen = { auth: [] as URL[], tokens: [] as Array<Record<string, unknown>>, callbacks: [] as URL[] };
  page.on('request', (req) => {
    const u = new URL(req.url());
    if (u.pathname === '/idp/realms/svc/protocol/openid-connect/auth') seen.auth.push(u);
    if (u.pathname === '/login/callback') seen.callbacks.push(u);
  });
  page.on('response', (res) => {
    if (new URL(res.url()).pathname !== '/idp/realms/svc/protocol/openid-connect/token') return;
    void res.json().then((b: Record<string, unknown>) => { seen.tokens.push(b); }, () => {});
  });
  return seen;
}

test('a user signs in through the IdP page with PKCE S256; a wrong password is refused; the token is the realm\'s', { skip }, async (t) => {
  const stack = await startE2E();
  const browser = await launch();
  t.after(async () => { await browser.close(); await stack.stop(); });
  const { page, errors } = await newPage(browser);
  const csp: string[] = [];
  page.on('console', (m) => { if (/Content Security Policy|Refused to/.test(m.text())) csp.push(m.text()); });
  const seen = watchOidc(page);

  await page.goto(stack.url);
  await page.getByLabel('Username').waitFor({ timeout: 15_000 });
  // The form is the IdP's interaction page, not the renderer.
  const at = new URL(page.url());
  assert.match(at.pathname, /^\/idp\/realms\/svc\/interaction\/[\w-]+$/);
  const first = seen.auth[0]!;
  assert.equal(first.searchParams.get('code_challenge_method'), 'S256');
  assert.match(first.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
  assert.equal(first.searchParams.get('client_id'), 'svc-frontend');
  assert.equal(first.searchParams.get('response_type'), 'code');
  assert.ok((first.searchParams.get('state') ?? '').length >= 20, 'a state');
  assert.ok((first.searchParams.get('nonce') ?? '').length >= 20, 'a nonce');
  assert.equal(first.searchParams.get('redirect_uri'), `${new URL(stack.url).origin}/login/callback`);
  const pageRes = await fetch(page.url());
  // Fetched without the interaction cookie: refused, but with the same strict headers.
  assert.match(pageRes.headers.get('content-security-policy') ?? '', /script-src 'self'; .*frame-ancestors 'none'/);
  await shot(page, 'e2e-idp-signin');

  // Empty and wrong: the app's words, no code.
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Enter a username and a password.' }).waitFor();
  await page.getByLabel('Username').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor();
  assert.equal(seen.callbacks.length, 0);
  await shot(page, 'e2e-idp-signin-error');

  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 15_000 });
  assert.equal(seen.callbacks.length, 1);
  assert.equal(seen.callbacks[0]!.searchParams.get('state'), first.searchParams.get('state'));
  assert.equal(new URL(page.url()).pathname, '/', 'the callback leaves the address bar');
  for (let i = 0; i < 50 && seen.tokens.length === 0; i++) await page.waitForTimeout(100);
  const bundle = seen.tokens[0]!;
  assert.equal(typeof bundle?.access_token, 'string');
  assert.equal(typeof bundle.refresh_token, 'string');
  const claims = decodeJwt(bundle.access_token as string);
  assert.equal(claims.iss, `${new URL(stack.url).origin}/idp/realms/svc`);
  assert.equal(claims.aud, 'svc-frontend');
  assert.equal(claims.email, ADMIN.email);
  const idClaims = decodeJwt(bundle.id_token as string);
  assert.equal(idClaims.nonce, first.searchParams.get('nonce'));

  // The realm's token works at the gateway, and a reload resumes by the IdP's refresh grant (rotation).
  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 15_000 });
  for (let i = 0; i < 50 && seen.tokens.length < 2; i++) await page.waitForTimeout(100);
  assert.ok(seen.tokens.length >= 2, 'the reload refreshed at the IdP token endpoint');
  assert.notEqual(seen.tokens.at(-1)!.refresh_token, bundle.refresh_token, 'the refresh token rotated');

  // Sign out ends the IdP session: the next visit shows the IdP's form again.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Username').waitFor({ timeout: 15_000 });
  assert.match(new URL(page.url()).pathname, /^\/idp\/realms\/svc\/interaction\//);
  assert.deepEqual(errors, []);
  assert.deepEqual(csp, []);
});

test('a user with a paired phone gets number matching inside the interaction; no code or token before the approval', { skip }, async (t) => {
  const stack = await startE2E();
  const browser = await launch();
  t.after(async () => { await browser.close(); await stack.stop(); });
  // Pair a simulated phone for the administrator (the password API still signs in without a browser).
  const token = await login(stack.url, ADMIN.email, ADMIN.password);
  const pairing = await fetch(`${stack.url}/v1/account/devices/pairing`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  assert.equal(pairing.status, 201);
  const phone = await SimDevice.create();
  const paired = await phone.pair(stack.url, (await pairing.json() as { enrollment_url: string }).enrollment_url, 'sim');
  assert.equal(paired.status, 201, JSON.stringify(paired.body));

  const { page, errors } = await newPage(browser);
  const seen = watchOidc(page);
  await page.goto(stack.url);
  await page.getByLabel('Username').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const n = Number(await page.getByTestId('number-match').textContent({ timeout: 15_000 }));
  assert.ok(n >= 10 && n <= 99);
  assert.match(new URL(page.url()).pathname, /^\/idp\/realms\/svc\/interaction\//, 'the phone step is the IdP\'s');
  await page.getByText('Waiting for your phone').waitFor();
  await shot(page, 'e2e-idp-2fa-number');

  const pending = await phone.pending(stack.url);
  assert.equal(pending.status, 200);
  const item = (pending.body as { items: Array<{ challenge_id: string; numbers: number[] }> }).items[0]!;
  assert.ok(item.numbers.includes(n));
  // Several polls later, still nothing reached the app.
  await page.waitForTimeout(2500);
  assert.equal(seen.callbacks.length, 0, 'no code before the approval');
  assert.equal(seen.tokens.length, 0, 'no token before the approval');
  assert.equal(await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('svc.refresh_token')), null);

  const ok = await phone.send(stack.url, item.challenge_id, 'approve', n);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 15_000 });
  assert.equal(seen.callbacks.length, 1);
  // The token response's body is read asynchronously by the watcher: wait for it, briefly.
  for (let i = 0; i < 50 && seen.tokens.length === 0; i++) await page.waitForTimeout(100);
  assert.ok(seen.tokens[0], 'the token response after the approval was seen');
  assert.equal(decodeJwt(seen.tokens[0].access_token as string).iss, `${new URL(stack.url).origin}/idp/realms/svc`);
  assert.deepEqual(errors, []);
});
