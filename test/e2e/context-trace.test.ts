/**
 * "Why this answer" and the Overview page in a real browser (issue 13 items 5, 6), against the
 * headless stack and the scripted provider: after an answer that used a knowledge document, the
 * message's "Why this answer" opens the context panel with the parts and their token bars, the
 * retrieved chunk with its score, and the steps as a timeline; Escape closes it. The Overview page
 * shows the provider healthy, the recent chat and document, and the phone not configured.
 * Screenshots: test-results/e2e-context-*.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { login, type TestStack } from '../helpers/stack.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

let llm: ScriptedLlm;
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) as unknown : null };
}

before(async () => {
  if (skipAll) return;
  llm = await startScriptedLlm({ script: () => ({ content: 'The camp serves oolong tea at dusk.', chunkDelayMs: 5, usage: { prompt_tokens: 80, completion_tokens: 8 } }) });
  stack = await startE2E({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_SYSTEM_PROMPT: 'You are the e2e assistant.' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201);
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' })).status < 300);
  assert.equal((await api('POST', '/v1/knowledge/ingest/text', { title: 'Serengeti camp handbook', content: 'During the zebra migration the camp serves oolong tea at dusk.' })).status, 201);
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

test('why this answer: parts with token bars, the chunk with its score, the steps as a timeline', { skip: skipAll }, async () => {
  await page.goto(`${stack.url}/chat`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Which tea does the camp serve during the zebra migration?');
  await box.press('Enter');
  const answer = page.getByRole('article', { name: 'Assistant' }).last();
  await answer.getByText('oolong tea at dusk').waitFor({ timeout: 20_000 });
  await answer.getByTestId('why-answer').click();
  const panel = page.getByTestId('context-panel');
  await panel.waitFor();
  await panel.getByTestId('context-part').first().waitFor({ timeout: 10_000 });
  const parts = await panel.getByTestId('context-part').evaluateAll((els) => els.map((e) => e.getAttribute('data-part')));
  assert.deepEqual(parts, ['system_prompt', 'profile', 'memories', 'knowledge', 'skills', 'history', 'input']);
  const knowledgeBar = panel.locator('[data-testid="context-part"][data-part="knowledge"] .ctx-bar');
  assert.ok(((await knowledgeBar.boundingBox())?.width ?? 0) > 2, 'the knowledge part has a visible bar');
  const chunk = panel.getByRole('link', { name: /Serengeti camp handbook, passage 1/ });
  await chunk.waitFor();
  const score = await panel.getByRole('region', { name: 'Knowledge' }).locator('.ctx-score').first().innerText();
  assert.match(score, /^0\.\d\d$|^1\.00$/);
  const steps = await panel.getByTestId('context-trace-step').locator('.ctx-step-label').allInnerTexts();
  assert.deepEqual(steps, ['Input check', 'Memory and knowledge', 'Model call', 'Output check']);
  assert.match(await panel.getByTestId('context-trace-step').nth(2).innerText(), /scripted-model · 80 in \/ 8 out tokens/);
  await shot(page, 'e2e-context-why-this-answer');
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
});

test('overview: providers with health, recent chat and document, integrations', { skip: skipAll }, async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
  const ov = page.getByTestId('overview-page');
  await ov.waitFor();
  const provider = ov.locator('.ov-provider', { hasText: 'scripted' });
  await provider.waitFor({ timeout: 10_000 });
  assert.equal(await provider.getAttribute('data-health'), 'healthy');
  await ov.getByRole('link', { name: 'Serengeti camp handbook' }).waitFor();
  assert.ok(await ov.getByRole('region', { name: 'Recent activity' }).getByRole('link').count() >= 3, 'a chat, a turn and a document');
  await ov.getByText('not configured').first().waitFor();
  await shot(page, 'e2e-context-overview');
  assert.deepEqual(errors, []);
});
