/**
 * The product's main path in a real browser, against the headless stack and the scripted
 * OpenAI-compatible provider (the one test double):
 *  1. admin registers the provider in Admin → Providers (the probe lists its models) and sets the
 *     `default` role;
 *  2. a chat answer streams in (Markdown, highlighted code), the receipt badge turns sealed and
 *     opens the receipt, which verifies;
 *  3. a tool whose policy is `ask` parks the run: the approval card appears inline, Approve lets
 *     the run finish; the Approvals inbox is empty afterwards;
 *  4. Esc stops a slow answer.
 * Each step checks that its backend answers first and is skipped (with the reason) when it has not
 * landed yet, so the file runs as soon as the runtime, the router and the gateway's AG-UI do.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { login, type TestStack } from '../helpers/stack.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E, unavailable } from './support.js';

const ANSWER = 'Here is **the plan**:\n\n1. measure\n2. fix\n\n```ts\nconst answer: number = 42;\n```\n\nDone.';

function lastMessage(r: RecordedRequest): { role: string; content: string } {
  const msgs = (r.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const m = msgs.at(-1) ?? { role: 'user', content: '' };
  return { role: m.role, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) };
}

function script(r: RecordedRequest): ScriptedReply {
  const last = lastMessage(r);
  if (last.role === 'tool') return { content: 'The calculator says 42.', chunkDelayMs: 5 };
  if (/calculate/i.test(last.content)) return { toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"6*7"}' }] };
  if (/slowly/i.test(last.content)) return { content: 'word '.repeat(400), chunkDelayMs: 40, chunkSize: 5 };
  return { content: ANSWER, chunkDelayMs: 40 };
}

let llm: ScriptedLlm;
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

before(async () => {
  if (skipAll) return;
  llm = await startScriptedLlm({ script });
  stack = await startE2E({ AGENT_RUNTIME_TOOL_POLICY: '{"calculator":"ask"}', AGENT_RUNTIME_TITLES: 'false' });
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  await signIn(page, stack.url);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
  await llm?.close();
});

test('admin registers a provider (probe result shown) and sets the default role', { skip: skipAll }, async (t) => {
  const why = await unavailable(stack.url, token, 'GET', '/v1/admin/inference/providers');
  if (why) { t.skip(why); return; }
  await page.goto(`${stack.url}/admin/providers`);
  const form = page.getByRole('form', { name: 'Add a provider' });
  await form.getByLabel('Name').fill('scripted');
  await form.getByLabel('Base URL').fill(llm.baseUrl);
  await form.getByRole('button', { name: 'Add provider' }).click();
  await page.getByRole('status').filter({ hasText: 'Probe succeeded' }).waitFor();
  assert.match(await page.getByRole('status').filter({ hasText: 'Probe succeeded' }).innerText(), /scripted-model/);

  // A base URL that does not answer: the probe's failure is shown, nothing is saved.
  await form.getByLabel('Name').fill('nowhere');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await page.getByRole('alert').filter({ hasText: 'Probe failed' }).waitFor();
  await shot(page, 'e2e-admin-providers');

  await page.getByLabel('Provider for default').selectOption({ label: 'scripted' });
  await page.getByLabel('Model for default').selectOption('scripted-model');
  await page.getByRole('row', { name: /default/ }).getByRole('button', { name: 'Set' }).click();
  await page.getByRole('row', { name: /default/ }).getByText('Saved').waitFor();
  assert.deepEqual(errors, []);
});

async function aguiReady(): Promise<string | null> {
  const a = await unavailable(stack.url, token, 'GET', '/v1/admin/inference/providers');
  if (a) return a;
  const r = await fetch(`${stack.url}/v1/chat/agui/stream`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  const text = await r.text();
  if (r.status === 404 || r.status === 502) return `POST /v1/chat/agui/stream answers ${r.status} (${text.slice(0, 100)}); the gateway's AG-UI stream or the runtime has not landed yet`;
  return null;
}

test('chat: the answer streams in, Markdown with highlighted code, receipt from the badge', { skip: skipAll }, async (t) => {
  const why = await aguiReady();
  if (why) { t.skip(why); return; }
  await page.goto(`${stack.url}/chat`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('What is the plan?');
  await box.press('Enter');
  // Streaming: part of the answer shows while the message is still marked as streaming.
  await page.locator('article.msg.assistant[data-streaming] .md').first().waitFor({ timeout: 15_000 });
  await shot(page, 'e2e-chat-streaming');
  const answer = page.getByRole('article', { name: 'Assistant' }).last();
  await answer.getByText('Done.').waitFor({ timeout: 20_000 });
  assert.equal(await answer.locator('strong').first().innerText(), 'the plan');
  assert.ok(await answer.locator('code.hljs.language-ts .hljs-keyword').count() > 0, 'code is highlighted');
  // The new session shows in the URL and the sidebar.
  await page.waitForURL(/\/chat\/.+/);
  await page.getByRole('navigation', { name: 'Chats' }).getByRole('link').first().waitFor();

  const badge = answer.locator('.badge');
  await answer.locator('.badge[data-status="sealed"], .badge[data-status="verified"]').waitFor({ timeout: 20_000 });
  await shot(page, 'e2e-chat-answer');
  await badge.click();
  const drawer = page.getByRole('dialog', { name: 'Receipt' });
  await drawer.getByText('Merkle root').waitFor();
  await drawer.getByRole('button', { name: 'Verify' }).click();
  await drawer.getByText('Every check holds.').waitFor();
  // The chat turn's own events are in the timeline, not only the gateway's.
  assert.ok(await drawer.getByText('turn_started').count() > 0);
  await shot(page, 'e2e-chat-receipt');
  await drawer.getByRole('button', { name: 'Close receipt' }).click();
  assert.equal(await badge.getAttribute('data-status'), 'verified');
  assert.deepEqual(errors, []);
});

test('approval flow: inline card, Approve, the run finishes', { skip: skipAll }, async (t) => {
  const why = await aguiReady();
  if (why) { t.skip(why); return; }
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please calculate six times seven');
  await box.press('Enter');
  const card = page.getByRole('group', { name: 'Approval for calculator' });
  await card.waitFor({ timeout: 20_000 });
  assert.match(await card.innerText(), /6\*7/);
  await shot(page, 'e2e-approval-card');
  // The inbox lists it too.
  const pending = await fetch(`${stack.url}/v1/user/approvals?status=pending`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(((await pending.json()) as { items: unknown[] }).items.length, 1);
  await card.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('article', { name: 'Assistant' }).last().getByText('The calculator says 42.').waitFor({ timeout: 20_000 });
  await shot(page, 'e2e-approval-done');
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: /Approvals/ }).click();
  await page.getByText('Nothing waits for you.').waitFor();
  await page.getByRole('cell', { name: 'calculator' }).first().waitFor();
  await shot(page, 'e2e-approvals-inbox');
  assert.deepEqual(errors, []);
});

test('Esc stops a streaming answer', { skip: skipAll }, async (t) => {
  const why = await aguiReady();
  if (why) { t.skip(why); return; }
  await page.goto(`${stack.url}/chat`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Answer slowly please');
  await box.press('Enter');
  await page.locator('article.msg.assistant[data-streaming] .md').first().waitFor({ timeout: 15_000 });
  await box.press('Escape');
  await page.getByText('Stopped.').waitFor();
  assert.equal(await page.locator('article.msg.assistant[data-streaming]').count(), 0);
  assert.deepEqual(errors, []);
});

test('admin sections: services, audit chain verification, users, usage and budgets', { skip: skipAll }, async () => {
  await page.goto(`${stack.url}/admin/services`);
  await page.getByRole('cell', { name: 'gateway' }).waitFor();
  assert.match(await page.getByText(/services ready/).innerText(), /\d+ of \d+ services ready/);
  await shot(page, 'e2e-admin-services');

  await page.getByRole('link', { name: 'Audit chain' }).click();
  await page.getByRole('button', { name: 'Verify audit chain' }).click();
  await page.getByText(/The chain holds: \d+ rows checked\./).waitFor();
  await shot(page, 'e2e-admin-audit');

  await page.getByRole('link', { name: 'Users' }).click();
  const form = page.getByRole('form', { name: 'Create a user' });
  await form.getByLabel('Email').fill('analyst@example.com');
  await form.getByLabel('Display name').fill('Analyst');
  await form.getByLabel('Initial password').fill('a long enough password');
  await form.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('cell', { name: 'analyst@example.com' }).waitFor();
  await shot(page, 'e2e-admin-users');

  await page.getByRole('link', { name: 'Usage & budgets' }).click();
  await page.getByRole('heading', { name: 'Budgets' }).waitFor();
  // After the chat tests: the scripted model's calls are in the usage report and the chart.
  await page.locator('svg.chart').waitFor({ timeout: 10_000 }).catch(() => undefined);
  await shot(page, 'e2e-admin-usage');
  assert.deepEqual(errors, []);
});
