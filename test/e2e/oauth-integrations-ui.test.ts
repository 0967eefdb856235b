/**
 * The user's integrations page in a real browser (issue 18 items 1 and 4): a user signs in to the
 * app, opens Integrations, clicks Connect; the provider's sign-in opens in a new window (a real
 * `oidc-provider` as the external service), the user signs in there and allows access; the
 * callback page says connected, the page's status turns Connected by polling; a token refresh
 * happens unseen (status stays connected); Disconnect revokes at the provider and shows Not connected.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { callJson, login, type TestStack } from '../helpers/stack.js';
import { PROVIDER_USER, startOAuthProvider, type OAuthTestProvider } from '../helpers/oauth-provider.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

const USER = { email: 'oauth-analyst@example.test', password: 'oauth-analyst-password' };
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';
let stack: TestStack;
let ext: OAuthTestProvider;
let browser: Browser;
let page: Page;
let errors: string[];
let user: string;

before(async () => {
  if (skipAll) return;
  stack = await startE2E();
  ext = await startOAuthProvider({ redirectUris: [`${stack.url}/v1/oauth/files/callback`], accessTtlS: 6 });
  const admin = await login(stack.url, ADMIN.email, ADMIN.password);
  assert.equal((await callJson(stack.url, admin, 'POST', '/v1/admin/users', { email: USER.email, display_name: 'Analyst', password: USER.password, roles: ['user'] })).status, 201);
  assert.equal((await callJson(stack.url, admin, 'PUT', '/v1/admin/tenant-secrets/files-client', { value: ext.clientSecret })).status, 201);
  const p = await callJson(stack.url, admin, 'POST', '/v1/admin/oauth-providers', {
    slug: 'files', name: 'Ext Files', issuer: ext.issuer, client_id: ext.clientId, client_secret_ref: 'files-client', scopes: ['openid', 'profile'],
  });
  assert.equal(p.status, 201, JSON.stringify(p.body));
  user = await login(stack.url, USER.email, USER.password);
  browser = await launch();
  ({ page, errors } = await newPage(browser));
});

after(async () => {
  await browser?.close();
  await stack?.stop();
  await ext?.stop();
});

test('connect in the browser, refresh unseen, disconnect', { skip: skipAll }, async () => {
  await signIn(page, stack.url, USER.email, USER.password);
  await page.getByRole('link', { name: 'Integrations' }).click();
  const card = page.getByTestId('integration-files');
  await card.waitFor();
  assert.equal(await page.getByTestId('integration-files-status').getAttribute('data-status'), 'disconnected');

  const popupP = page.waitForEvent('popup');
  await page.getByTestId('integration-files-connect').click();
  const popup = await popupP;
  await popup.locator('#ext-username').waitFor({ timeout: 15_000 });
  assert.ok(popup.url().startsWith(ext.issuer), popup.url());
  await popup.fill('#ext-username', PROVIDER_USER.username);
  await popup.fill('#ext-password', PROVIDER_USER.password);
  await popup.click('#ext-login');
  await popup.locator('#ext-allow').click();
  await popup.locator('#oauth-result').waitFor({ timeout: 15_000 });
  assert.equal(await popup.locator('#oauth-result').getAttribute('data-status'), 'connected');
  assert.match(await popup.content(), /You may close this window/);
  assert.ok(popup.url().startsWith(`${stack.url}/v1/oauth/files/callback`));
  await popup.close();

  await page.locator('[data-testid="integration-files-status"][data-status="connected"]').waitFor({ timeout: 15_000 });
  await shot(page, 'oauth-integration-connected');
  const st = await callJson(stack.url, user, 'GET', '/v1/oauth/files/status');
  assert.equal(st.body.status, 'connected');

  // A refresh happens unseen: the status stays connected and last_refreshed_at appears.
  const end = Date.now() + 20_000;
  let refreshed: string | null = null;
  while (!refreshed && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 300));
    const s = await callJson(stack.url, user, 'GET', '/v1/oauth/files/status');
    assert.equal(s.body.status, 'connected');
    refreshed = s.body.last_refreshed_at;
  }
  assert.ok(refreshed, 'the token was refreshed');
  assert.ok(ext.refreshes >= 1);
  await page.reload();
  await page.locator('[data-testid="integration-files-status"][data-status="connected"]').waitFor({ timeout: 15_000 });

  await page.getByTestId('integration-files-disconnect').click();
  await page.locator('[data-testid="integration-files-status"][data-status="disconnected"]').waitFor({ timeout: 15_000 });
  assert.ok(ext.revocations.length >= 1, 'the provider revocation endpoint was called');
  assert.equal((await callJson(stack.url, user, 'GET', '/v1/oauth/files/status')).body.status, 'disconnected');
  assert.deepEqual(errors, []);
});
