/**
 * The profile and secrets in a real browser (issue 13 items 2, 3), against the headless stack and
 * the scripted provider mapped as `default` and `profile_curation`: the browser's time zone seeds the
 * profile (X-User-Timezone on every call); a chat message makes the assistant suggest a preference;
 * the Profile page (reached from the user name in the top bar) shows it, Accept puts it in the form,
 * and the next chat's model request carries it; a secret is added through a password field, listed
 * without its value, and deleted. Screenshots: test-results/e2e-profile-*.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { login, type TestStack } from '../helpers/stack.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E, unavailable } from './support.js';

const PREFERENCE = 'Prefers metric units';
const SECRET = 'sk-e2e-PLAINTEXT-5d4c3b2a19';

const isCuration = (r: RecordedRequest): boolean => r.body.response_format !== undefined;

function script(r: RecordedRequest): ScriptedReply {
  if (isCuration(r)) {
    const asked = JSON.stringify(r.body.messages);
    const changes = /metric/.test(asked) && !asked.includes(PREFERENCE) ? [{ field: 'preferences', op: 'add', value: PREFERENCE }] : [];
    return { content: JSON.stringify({ changes }) };
  }
  return { content: 'Noted.' };
}

let llm: ScriptedLlm;
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

async function gw(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- test JSON
  const r = await fetch(`${stack.url}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  if (skipAll) return;
  llm = await startScriptedLlm({ script });
  stack = await startE2E({ AGENT_RUNTIME_TITLES: 'false' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const p = await gw('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(p.status, 201, JSON.stringify(p.body));
  for (const role of ['default', 'profile_curation']) {
    const r = await gw('PUT', `/v1/admin/inference/roles/${role}`, { provider_id: p.body.id, model: 'scripted-model' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
  await llm?.close();
});

test('a chat yields a suggestion; the Profile page shows it; Accept puts it in the profile and the next chat sends it', { skip: skipAll }, async (t) => {
  const why = await unavailable(stack.url, token, 'GET', '/v1/user/profile/draft');
  if (why) { t.skip(why); return; }
  // The browser's calls carried X-User-Timezone: the profile's time zone is the browser's.
  const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  assert.equal((await gw('GET', '/v1/user/profile')).body.timezone, browserZone);

  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please always use metric units with me.');
  await box.press('Enter');
  await page.getByRole('article', { name: 'Assistant' }).last().getByText('Noted.').waitFor({ timeout: 20_000 });
  await waitFor(async () => (await gw('GET', '/v1/user/profile/draft')).body.draft);

  await page.locator('.who a.who-profile').click();
  await page.waitForURL((u) => u.pathname === '/profile');
  const draft = page.getByTestId('profile-draft');
  await draft.waitFor({ timeout: 10_000 });
  assert.match(await draft.innerText(), new RegExp(`Remember: ${PREFERENCE}`));
  assert.equal(await page.getByTestId('profile-form').getByLabel('Time zone').inputValue(), browserZone);
  await shot(page, 'e2e-profile-draft');
  await page.getByTestId('profile-draft-accept').click();
  await draft.waitFor({ state: 'detached', timeout: 10_000 });
  const prefs = page.getByTestId('profile-form').getByRole('textbox', { name: /What the assistant should know/ });
  await waitFor(async () => (await prefs.inputValue()).includes(PREFERENCE));
  await shot(page, 'e2e-profile-accepted');

  // The next chat's model request carries the profile.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Chat', exact: true }).click();
  const n = llm.requests.length;
  const box2 = page.getByRole('textbox', { name: 'Message' });
  await box2.fill('How far is it to Lyon?');
  await box2.press('Enter');
  await page.getByRole('article', { name: 'Assistant' }).last().getByText('Noted.').waitFor({ timeout: 20_000 });
  const turn = llm.requests.slice(n).find((r) => !isCuration(r))!;
  const system = (turn.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  assert.match(system, new RegExp(PREFERENCE));

  // Edit and save through the form; a bad time zone is refused with the server's message.
  await page.locator('.who a.who-profile').click();
  const form = page.getByTestId('profile-form');
  await form.getByLabel('Display name').fill('E2E Admin');
  await form.getByLabel('Time zone').fill('Mars/Olympus');
  await page.getByTestId('profile-save').click();
  await form.getByRole('alert').waitFor();
  await form.getByLabel('Time zone').fill('Europe/Paris');
  await page.getByTestId('profile-save').click();
  await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  const saved = (await gw('GET', '/v1/user/profile')).body;
  assert.equal(saved.display_name, 'E2E Admin');
  assert.equal(saved.timezone, 'Europe/Paris');
  assert.deepEqual(errors, []);
});

test('secrets: added through a password field, listed without the value, deleted', { skip: skipAll }, async (t) => {
  const why = await unavailable(stack.url, token, 'GET', '/v1/user/secrets');
  if (why) { t.skip(why); return; }
  if (new URL(page.url()).pathname !== '/profile') await page.locator('.who a.who-profile').click();
  const add = page.getByTestId('secret-add');
  await add.getByLabel('Secret name').fill('OPENAI_API_KEY');
  const value = add.getByLabel('Secret value');
  assert.equal(await value.getAttribute('type'), 'password');
  await value.fill(SECRET);
  await add.getByLabel('Secret description').fill('personal key');
  await add.getByRole('button', { name: 'Save secret' }).click();
  const row = page.getByTestId('secret-row').filter({ hasText: 'OPENAI_API_KEY' });
  await row.waitFor({ timeout: 10_000 });
  assert.equal(await value.inputValue(), '', 'the value field is cleared');
  assert.ok(!(await page.content()).includes(SECRET), 'the value is nowhere on the page');
  assert.ok(!JSON.stringify((await gw('GET', '/v1/user/secrets')).body).includes(SECRET));
  await shot(page, 'e2e-profile-secrets');
  await row.getByRole('button', { name: 'Delete secret OPENAI_API_KEY' }).click();
  await row.getByRole('button', { name: 'Yes, delete' }).click();
  await row.waitFor({ state: 'detached', timeout: 10_000 });
  assert.deepEqual((await gw('GET', '/v1/user/secrets')).body.items, []);
  // Tenant secrets reach the runtime through the gateway's admin routes (the admin's token).
  const tenant = await gw('PUT', '/v1/admin/tenant-secrets/TEAM_TOKEN', { value: SECRET });
  assert.equal(tenant.status, 201, JSON.stringify(tenant.body));
  assert.deepEqual((await gw('GET', '/v1/admin/tenant-secrets')).body.items.map((i: { name: string }) => i.name), ['TEAM_TOKEN']);
  assert.equal((await gw('DELETE', '/v1/admin/tenant-secrets/TEAM_TOKEN')).status, 204);
  assert.deepEqual(errors, []);
});
