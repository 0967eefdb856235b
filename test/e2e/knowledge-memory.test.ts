/**
 * Knowledge, memory and cited answers in a real browser (issue 7 item 5), against the headless
 * stack with the project's generated test embedding model (so hybrid retrieval is on) and the
 * scripted OpenAI-compatible provider (the one test double):
 *  1. Knowledge: empty state; upload a Markdown file, a DOCX and a PDF (made at test time) and
 *     watch them index; a broken PDF fails with its error shown; search finds the passage; a
 *     shared PDF upload with an audience shows its visibility; a document opens with its text and
 *     its owner shares it from the drawer.
 *  2. Memory: a memory stored through the API is listed, edited, pinned and forgotten in the UI.
 *  3. Chat: the scripted model calls `knowledge_search`; the answer shows numbered source chips
 *     that open the cited document, also after a reload (from the stored tool result).
 * Screenshots: test-results/e2e-knowledge-*.png, e2e-memory-*.png, e2e-chat-citations.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { login, type TestStack } from '../helpers/stack.js';
import { makeDocx, makePdf } from '../helpers/embedder/documents.js';
import { writeTestModel } from '../helpers/embedder/make-test-model.js';
import { removeDir, TOKENIZER } from '../helpers/embedder/service-helpers.js';
import { join } from 'node:path';
import { ADMIN, RESULTS, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

const NOTES = '# Serengeti field notes\n\nThe great zebra migration crosses the Serengeti every year, following the rains toward fresh grass in the north.\n\n## Predators\n\nLions and crocodiles wait at the Mara river crossings.\n';

let llm: ScriptedLlm;
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
let models: string;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
}

before(async () => {
  if (skipAll) return;
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      const toolMsg = msgs.find((m) => m.role === 'tool');
      if (!toolMsg) return { toolCalls: [{ id: 'call_k1', name: 'knowledge_search', arguments: JSON.stringify({ query: 'zebra migration Serengeti' }) }] };
      return { content: 'Zebras follow the rains north across the Serengeti each year [1].', chunkDelayMs: 5 };
    },
  });
  models = writeTestModel({ tokenizerDir: TOKENIZER });
  stack = await startE2E({ SVC_MODELS_DIR: models, AGENT_RUNTIME_TITLES: 'false' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api<{ id: string }>('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
  await llm?.close();
  if (models) removeDir(models);
});

/** Pick a file (bytes made here), a title and a visibility in the upload form, and submit. */
async function upload(name: string, mimeType: string, buffer: Buffer, title: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Upload a document' });
  await form.getByLabel('File').setInputFiles({ name, mimeType, buffer });
  await form.getByLabel('Title').fill(title);
  await form.getByRole('button', { name: 'Upload' }).click();
}

/**
 * A screenshot of the whole page. The app scrolls inside its content pane, not the document, so
 * Playwright's fullPage sees only the viewport: grow the viewport to the pane's height instead.
 */
async function fullShot(name: string): Promise<void> {
  const height = await page.locator('main.content').evaluate((el) => el.scrollHeight + 48);
  await page.setViewportSize({ width: 1280, height: Math.max(800, height) });
  await page.screenshot({ path: join(RESULTS, `${name}.png`) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

function uploadRow(title: string) {
  return page.getByRole('list', { name: 'Uploads' }).getByRole('listitem', { name: `Upload ${title}` });
}

test('knowledge: upload Markdown, DOCX and PDF, watch them index, search, visibility, open a document', { skip: skipAll }, async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Knowledge' }).click();
  await page.getByRole('heading', { name: 'Knowledge', level: 1 }).waitFor();
  await page.getByText('No documents yet.').waitFor();
  // Hybrid retrieval is on with the test model (the status line says which retrieval runs).
  await page.getByText(/Search: keyword and meaning/).waitFor({ timeout: 20_000 });
  await shot(page, 'e2e-knowledge-empty');

  await upload('serengeti.md', 'text/markdown', Buffer.from(NOTES), 'Serengeti field notes');
  await uploadRow('Serengeti field notes').getByText('Indexed', { exact: true }).waitFor({ timeout: 20_000 });
  await upload('report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    makeDocx('Quarterly report', ['Revenue grew by twelve percent in the third quarter.', 'Costs stayed flat thanks to the new warehouse.']), 'Quarterly report');
  await upload('handbook.pdf', 'application/pdf', makePdf(['Employee handbook', 'Holidays are booked through the travel desk.', 'Badges open the east entrance only.']), 'Employee handbook');
  await uploadRow('Quarterly report').getByText('Indexed', { exact: true }).waitFor({ timeout: 20_000 });
  await uploadRow('Employee handbook').getByText('Indexed', { exact: true }).waitFor({ timeout: 20_000 });
  // A PDF that is not one: the upload fails with the parser's reason, and the document keeps it.
  await upload('broken.pdf', 'application/pdf', Buffer.from('%PDF-1.4\nthis is not really a pdf'), 'Broken scan');
  const broken = uploadRow('Broken scan');
  await broken.getByText('Failed', { exact: true }).waitFor({ timeout: 20_000 });
  assert.ok((await broken.getByRole('alert').innerText()).length > 5, 'the failure says why');

  const table = page.getByRole('table', { name: 'Documents' });
  for (const title of ['Serengeti field notes', 'Quarterly report', 'Employee handbook']) {
    await table.getByRole('row', { name: new RegExp(title) }).getByText('Indexed').waitFor();
  }
  await table.getByRole('row', { name: /Broken scan/ }).getByText('Failed', { exact: true }).waitFor();
  assert.match(await table.getByRole('row', { name: /Quarterly report/ }).innerText(), /DOCX/);
  assert.match(await table.getByRole('row', { name: /Employee handbook/ }).innerText(), /PDF/);
  await fullShot('e2e-knowledge-uploads');

  // Progress: with the upload throttled, the bar moves while the bytes go out.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 80 * 1024 });
  const big = Buffer.from(`# Long appendix\n\n${'Appendix line about grazing patterns and seasonal water holes.\n'.repeat(5000)}`);
  await upload('appendix.md', 'text/markdown', big, 'Long appendix');
  const bar = uploadRow('Long appendix').getByRole('progressbar', { name: 'Progress of Long appendix' });
  await uploadRow('Long appendix').getByText('Uploading', { exact: true }).waitFor();
  let mid = 0;
  for (let i = 0; i < 100 && mid <= 5; i++) { await page.waitForTimeout(50); mid = Number(await bar.getAttribute('value')); }
  assert.ok(mid > 0 && mid < 50, `upload half of the bar moves: ${mid}`);
  assert.match(await uploadRow('Long appendix').innerText(), /KB of \d/);
  await shot(page, 'e2e-knowledge-progress');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await uploadRow('Long appendix').getByText('Indexed', { exact: true }).waitFor({ timeout: 30_000 });
  await uploadRow('Long appendix').getByRole('button', { name: 'Dismiss Long appendix' }).click();

  // Search: the passage of the DOCX, with its rationale.
  const search = page.getByRole('search', { name: 'Search documents' });
  await search.getByLabel('Search query').fill('revenue growth third quarter');
  await search.getByRole('button', { name: 'Search' }).click();
  const results = page.getByRole('list', { name: 'Search results' });
  await results.getByRole('link', { name: 'Quarterly report' }).first().waitFor();
  assert.match(await results.getByRole('listitem').first().innerText(), /twelve percent/);
  await search.getByLabel('Search query').fill('qwertyuiop zxcvbnm');
  await search.getByRole('button', { name: 'Search' }).click();
  await page.getByText(/No document you can read matches/).waitFor();
  await search.getByLabel('Search query').fill('revenue growth third quarter');
  await search.getByRole('button', { name: 'Search' }).click();
  await results.getByRole('link', { name: 'Quarterly report' }).first().waitFor();
  await shot(page, 'e2e-knowledge-search');

  // Visibility: a PDF shared with a new audience at upload (uploaded privately, then changed with PATCH).
  const form = page.getByRole('form', { name: 'Upload a document' });
  await form.getByLabel('Visibility').selectOption('shared');
  await form.getByLabel('File').setInputFiles({ name: 'policy.pdf', mimeType: 'application/pdf', buffer: makePdf(['Travel policy', 'Analysts book trains for trips under four hours.']) });
  await form.getByLabel('Title').fill('Travel policy');
  await form.getByLabel('New audiences').fill('analysts');
  await form.getByRole('button', { name: 'Upload' }).click();
  await uploadRow('Travel policy').getByText('Indexed', { exact: true }).waitFor({ timeout: 20_000 });
  const row = table.getByRole('row', { name: /Travel policy/ });
  await row.getByText('shared').waitFor();
  assert.match(await row.innerText(), /#analysts/);
  const listed = await api<{ items: Array<{ title: string; visibility_mode: string; audience_tags: string[] }> }>('GET', '/v1/knowledge/documents');
  const policy = listed.body.items.find((d) => d.title === 'Travel policy');
  assert.deepEqual([policy?.visibility_mode, policy?.audience_tags], ['shared', ['analysts']]);
  // The admin sees the audience it created, with the members editor.
  const audiences = page.getByRole('table', { name: 'Audiences' });
  await audiences.getByRole('cell', { name: 'analysts', exact: true }).waitFor();
  await audiences.getByRole('button', { name: 'Edit members of analysts' }).click();
  await audiences.getByRole('group', { name: 'Members of analysts' }).getByRole('checkbox', { name: /Administrator/ }).check();
  await audiences.getByRole('button', { name: 'Save members' }).click();
  await audiences.getByRole('row', { name: /analysts/ }).getByRole('cell', { name: '1', exact: true }).waitFor();
  await form.getByLabel('Visibility').selectOption('shared');
  await fullShot('e2e-knowledge-visibility');
  await form.getByLabel('Visibility').selectOption('private');

  // Open a document: its facts and extracted text.
  await table.getByRole('link', { name: 'Employee handbook' }).click();
  const drawer = page.getByRole('dialog', { name: 'Document' });
  await drawer.locator('pre.doc-text', { hasText: 'Holidays are booked through the travel desk.' }).waitFor();
  assert.match(await drawer.innerText(), /private/);
  await shot(page, 'e2e-knowledge-document');
  // The owner shares it afterwards, tenant-wide (confirmed), from the drawer.
  await drawer.getByRole('button', { name: 'Change visibility' }).click();
  const vis = drawer.getByRole('form', { name: 'Visibility of Employee handbook' });
  await vis.getByLabel('Visibility').selectOption('shared');
  assert.equal(await vis.getByRole('button', { name: 'Save visibility' }).isDisabled(), true, 'tenant-wide needs the confirmation');
  await vis.getByLabel('Everyone in the organisation').check();
  await vis.getByRole('button', { name: 'Save visibility' }).click();
  await vis.waitFor({ state: 'detached' });
  await drawer.getByText('everyone').waitFor();
  const handbook = (await api<{ items: Array<{ title: string; visibility_mode: string; audience_tags: string[] }> }>('GET', '/v1/knowledge/documents')).body.items.find((d) => d.title === 'Employee handbook');
  assert.deepEqual([handbook?.visibility_mode, handbook?.audience_tags], ['shared', []]);
  await drawer.getByRole('button', { name: 'Close document' }).click();
  await page.waitForURL(/\/knowledge$/);
  assert.deepEqual(errors, []);
});

test('memory: a stored memory is listed, edited, pinned and forgotten', { skip: skipAll }, async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Memory' }).click();
  await page.getByText('Nothing remembered yet.').waitFor();
  const stored = await api<{ memories: Array<{ id: string }> }>('POST', '/v1/memory', { content: 'Prefers reports in metric units', memory_type: 'feedback', why_stored: 'said so in chat' });
  assert.ok(stored.status === 201, JSON.stringify(stored.body));
  const id = stored.body.memories[0]!.id;
  await page.reload();
  const card = page.getByRole('listitem', { name: /Memory: Prefers reports in metric units/ });
  await card.waitFor();
  assert.match(await card.innerText(), /feedback/i);
  assert.match(await card.innerText(), /said so in chat/);
  await shot(page, 'e2e-memory-list');

  await card.getByRole('button', { name: /^Edit memory/ }).click();
  const edit = page.getByRole('form', { name: 'Edit memory' });
  await edit.getByLabel('Memory text').fill('Prefers reports in metric units, with SI prefixes');
  await edit.getByRole('button', { name: 'Save' }).click();
  const edited = page.getByRole('listitem', { name: /Memory: Prefers reports in metric units, with SI/ });
  await edited.waitFor();
  const afterEdit = await api<{ content: string }>('GET', `/v1/memory/${id}`);
  assert.equal(afterEdit.body.content, 'Prefers reports in metric units, with SI prefixes');

  await edited.getByRole('button', { name: /^Pin memory/ }).click();
  await edited.getByText('Pinned', { exact: true }).waitFor();
  assert.equal((await api<{ pinned: boolean }>('GET', `/v1/memory/${id}`)).body.pinned, true);
  // Search by meaning finds it too.
  await page.getByRole('search', { name: 'Search memories' }).getByRole('searchbox').fill('metric units');
  await page.getByRole('search', { name: 'Search memories' }).getByRole('button', { name: 'Search' }).click();
  await page.getByRole('list', { name: 'Memories' }).getByRole('listitem').first().waitFor();
  await page.getByRole('button', { name: 'Show all' }).click();
  await shot(page, 'e2e-memory-edited');

  await edited.getByRole('button', { name: /^Forget memory/ }).click();
  await edited.getByRole('button', { name: 'Yes, forget' }).click();
  await page.getByText('Nothing remembered yet.').waitFor();
  assert.equal((await api('GET', `/v1/memory/${id}`)).status, 404);
  await shot(page, 'e2e-memory-forgotten');
  assert.deepEqual(errors, []);
});

test('chat: knowledge_search citations show under the answer and open the document', { skip: skipAll }, async () => {
  // The runtime registers the knowledge tools once the service answers.
  let names: string[] = [];
  for (let i = 0; i < 100 && !names.includes('knowledge_search'); i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    const t = await api<{ items?: Array<{ name?: string; function?: { name: string } }> }>('GET', '/v1/tools');
    names = (t.body.items ?? []).map((x) => x.name ?? x.function?.name ?? '');
  }
  assert.ok(names.includes('knowledge_search'), `tools: ${names.join(',')}`);

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Chat' }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('How do zebras move through the Serengeti?');
  await box.press('Enter');
  const answer = page.getByRole('article', { name: 'Assistant' }).last();
  await answer.getByText(/follow the rains north/).waitFor({ timeout: 20_000 });
  const sources = answer.getByRole('navigation', { name: 'Sources' });
  const chip = sources.getByRole('link', { name: /Serengeti field notes/ });
  await chip.waitFor();
  assert.equal(await sources.locator('.cite-n').first().innerText(), '1');
  await page.waitForURL(/\/chat\/.+/);
  await shot(page, 'e2e-chat-citations');

  // After a reload the stored session still shows the sources (read from the tool's result).
  await page.reload();
  const stored = page.getByRole('article', { name: 'Assistant' }).last();
  await stored.getByRole('navigation', { name: 'Sources' }).getByRole('link', { name: /Serengeti field notes/ }).click();
  await page.waitForURL(/\/knowledge\/.+/);
  const drawer = page.getByRole('dialog', { name: 'Document' });
  await drawer.getByRole('heading', { name: 'Serengeti field notes' }).waitFor();
  await drawer.locator('li.cited').waitFor();
  await shot(page, 'e2e-knowledge-cited-document');
  assert.deepEqual(errors, []);
});
