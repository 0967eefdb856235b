/**
 * Receipts that read like history in a real browser (issue 13 item 7): the page opens on Chats, a
 * chat's row reads as its first words with who, when and how it ended; Admin actions shows the
 * method and route; Everything shows the rest; the search box narrows the list; a receipt opened
 * from a chat answer closes when the user leaves the page (browser back).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';
import { login } from '../helpers/stack.js';
import { startScriptedLlm } from '../helpers/scripted-llm.js';

const CHAT = 'Budget review for the Lisbon office';

test('receipts as history: kind filter, search, rows that say what, who, when; the drawer closes on leaving', { skip: haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium' }, async (t) => {
  const llm = await startScriptedLlm({ script: () => ({ content: 'Noted: the review is on Friday.' }) });
  const stack = await startE2E({ AGENT_RUNTIME_TITLES: 'false' });
  const browser = await launch();
  t.after(async () => { await browser.close(); await stack.stop(); await llm.close(); });
  const token = await login(stack.url, ADMIN.email, ADMIN.password);
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: { id?: string; session_id?: string } }> => {
    const r = await fetch(`${stack.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: await r.json() as { id?: string; session_id?: string } };
  };
  // Admin actions, then a chat.
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status < 300, JSON.stringify(prov.body));
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const chat = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: CHAT }] });
  assert.equal(chat.status, 200);

  const { page, errors } = await newPage(browser);
  await signIn(page, stack.url);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Receipts' }).click();
  const filter = page.getByTestId('receipt-kind-filter');
  assert.equal(await filter.getByRole('button', { name: 'Chats' }).getAttribute('aria-pressed'), 'true', 'Chats by default');
  const rows = page.getByTestId('receipt-row');
  const chatRow = rows.filter({ hasText: CHAT });
  for (let i = 0; i < 30 && !(await chatRow.first().isVisible()); i++) {
    await page.waitForTimeout(500);
    await page.getByRole('button', { name: 'Refresh' }).click();
  }
  await chatRow.first().waitFor();
  assert.deepEqual([...new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))))], ['chat'], 'only chats');
  const text = await chatRow.first().innerText();
  assert.match(text, /Chat/);
  assert.match(text, /\byou\b/, 'who');
  assert.match(text, /completed/, 'how it ended');
  assert.match(text, /sealed|verified/, 'receipt status');
  assert.ok(await chatRow.first().locator('time').getAttribute('datetime'), 'when');
  await shot(page, 'e2e-receipt-history-chats');

  await filter.getByRole('button', { name: 'Admin actions' }).click();
  await rows.filter({ hasText: 'PUT /v1/admin/inference/roles/default' }).first().waitFor();
  assert.deepEqual([...new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))))], ['admin']);
  await shot(page, 'e2e-receipt-history-admin');

  await filter.getByRole('button', { name: 'Everything' }).click();
  await rows.filter({ hasText: 'GET /v1/user/me' }).first().waitFor();
  const kinds = new Set(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-kind'))));
  assert.ok(kinds.has('chat') && kinds.has('admin') && kinds.has('other'), [...kinds].join(','));

  // Search (debounced): only the chat matches "lisbon".
  await page.getByTestId('receipt-search').fill('lisbon');
  let narrowed = false;
  for (let i = 0; i < 40 && !narrowed; i++) {
    narrowed = (await rows.count()) === 1 && /Lisbon/.test(await rows.first().innerText());
    if (!narrowed) await page.waitForTimeout(250);
  }
  assert.ok(narrowed, 'the search leaves the one chat');
  await shot(page, 'e2e-receipt-history-search');
  await rows.first().getByRole('link').click();
  await page.getByTestId('receipt-view').getByText('Merkle root').waitFor();

  // A receipt opened from the chat answer closes when the user leaves the page.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('link').first().click();
  const answer = page.getByRole('article', { name: 'Assistant' }).last();
  await answer.locator('.badge').click();
  const drawer = page.getByRole('dialog', { name: 'Receipt' });
  await drawer.getByText('Merkle root').waitFor();
  await page.goBack();
  await drawer.waitFor({ state: 'detached', timeout: 5000 });
  assert.equal(await drawer.count(), 0, 'the drawer closed with the page');
  assert.deepEqual(errors, []);
});
