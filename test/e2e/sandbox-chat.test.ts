/**
 * The code sandbox in a real browser (issue 12 item 9), against the headless stack, the real Docker
 * engine with the sandbox image, and the scripted OpenAI-compatible provider (the one test double),
 * whose model calls `execute_code`:
 *  1. a computation and a chart: the run shows its code, its output folded (closed: it succeeded),
 *     the chart inline (an artifact fetched with the user's bearer) and the CSV it wrote as a
 *     download chip that downloads the file;
 *  2. a follow-up run reuses a variable of the first (the chat's sandbox session keeps its state);
 *  3. a failing run shows the exception and its traceback, unfolded;
 *  4. a long output is cut, and "Show all" opens the whole (past the stream's 2,000-character cut);
 *  5. after a reload the stored runs still show code, output and the chart (URLs from the replay);
 *  6. Admin → Sandbox lists the chat's live session (or, when the chat steps could not run, one made
 *     through `POST /v1/sandbox/execute`) with its runtime and memory; Destroy, confirmed, removes it.
 * Skips, with the reason, when Chromium is missing, the sandbox's routes have not landed, Docker or
 * the sandbox image is missing (the readiness's fix command is in the message), or (steps 1-5) the
 * agent runtime does not offer `execute_code` (the sandbox tools are not registered).
 * Screenshots: test-results/e2e-sandbox-*.png.
 */
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { login, type TestStack } from '../helpers/stack.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E } from './support.js';

/** The runs the scripted model asks for, by a word of the user's message. */
const RUNS: ReadonlyArray<{ word: RegExp; id: string; code: string }> = [
  {
    word: /chart/i,
    id: 'call_chart',
    code: [
      'import csv',
      'import matplotlib.pyplot as plt',
      'values = [1, 2, 3, 4]',
      'total = sum(values)',
      'print("total:", total)',
      'print("mean:", total / len(values))',
      'with open("/workspace/output/values.csv", "w", newline="") as f:',
      '    w = csv.writer(f)',
      '    w.writerow(["i", "value"])',
      '    w.writerows(enumerate(values))',
      'plt.plot(values)',
      'plt.title("values")',
    ].join('\n'),
  },
  { word: /double/i, id: 'call_follow', code: 'print("total doubled:", total * 2)' },
  { word: /divide/i, id: 'call_fail', code: 'ratio = total / 0' },
  { word: /many lines/i, id: 'call_long', code: 'for i in range(300):\n    print("line", i, "of the long output")' },
];

function lastUser(r: RecordedRequest): string {
  const msgs = (r.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const m = [...msgs].reverse().find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '');
}

function script(r: RecordedRequest): ScriptedReply {
  const msgs = (r.body.messages ?? []) as Array<{ role: string }>;
  if (msgs.at(-1)?.role === 'tool') return { content: 'Done: the run is above.', chunkDelayMs: 5 };
  const run = RUNS.find((x) => x.word.test(lastUser(r)));
  if (!run) return { content: 'I only run the scripted code.' };
  return { toolCalls: [{ id: run.id, name: 'execute_code', arguments: JSON.stringify({ code: run.code }) }] };
}

let llm: ScriptedLlm;
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
/** Why the sandbox cannot run here: its routes, Docker or the image (null: it can). */
let sandboxDown: string | null = null;
/** Why the chat steps cannot run here: the sandbox, or the agent's tools (null: they can). */
let notReady: string | null = null;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  let parsed: unknown = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  return { status: r.status, body: parsed as T };
}

/** Why the sandbox cannot be exercised: its routes, Docker and the image. */
async function whySandboxDown(): Promise<string | null> {
  const s = await api<{ readiness?: { docker?: string; image?: string; fix?: string | null } }>('GET', '/v1/sandbox/sessions');
  if (s.status === 404 || s.status === 501 || s.status === 502) return `GET /v1/sandbox/sessions answers ${s.status}: the sandbox service's routes have not landed yet`;
  if (s.status !== 200) return `GET /v1/sandbox/sessions answers ${s.status} (${JSON.stringify(s.body).slice(0, 160)})`;
  const r = s.body.readiness ?? {};
  if (r.docker !== 'ok') return `the Docker engine is unavailable to the sandbox${r.fix ? `; fix: ${r.fix}` : ''}`;
  if (r.image === 'missing') return `the sandbox image is missing${r.fix ? `; fix: ${r.fix}` : '; fix: npm run sandbox:image'}`;
  return null;
}

/** Why the chat cannot call the sandbox: the agent runtime does not offer `execute_code`. */
async function whyNoTools(): Promise<string | null> {
  // The runtime registers the sandbox tools once the sandbox answers: give it a moment.
  for (let i = 0; i < 30; i++) {
    const tools = await api<{ items?: Array<{ name: string }> }>('GET', '/v1/tools');
    if (tools.body.items?.some((x) => x.name === 'execute_code')) return null;
    await new Promise((res) => setTimeout(res, 500));
  }
  return 'the agent runtime does not offer execute_code (GET /v1/tools): the sandbox tools are not registered yet';
}

before(async () => {
  if (skipAll) return;
  llm = await startScriptedLlm({ script });
  stack = await startE2E({ AGENT_RUNTIME_TITLES: 'false', SANDBOX_WARM_POOL: '1' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api<{ id: string }>('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  sandboxDown = await whySandboxDown();
  notReady = sandboxDown ?? await whyNoTools();
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

/** Skip the step (with the reason) when what it needs cannot run here. */
function skipped(t: TestContext, why: string | null = notReady): boolean {
  if (why) { t.skip(why); return true; }
  return false;
}

async function send(text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

/** The run of scripted call `id`, once its result is in (`data-state` ok or failed). */
async function runOf(id: string, state: 'ok' | 'failed'): Promise<Locator> {
  const call = page.locator(`[data-testid="sandbox-call"][data-call-id="${id}"]`);
  await page.locator(`[data-testid="sandbox-call"][data-call-id="${id}"][data-state="${state}"]`).waitFor({ timeout: 60_000 });
  return call;
}

const isOpen = (l: Locator): Promise<boolean> => l.evaluate((el) => (el as unknown as { open: boolean }).open);

test('a computation and a chart: code, folded output, the chart inline, the CSV as a download chip', { skip: skipAll }, async (t) => {
  if (skipped(t)) return;
  await page.goto(`${stack.url}/chat`);
  await send('Compute the total of the numbers and chart them');
  const call = await runOf('call_chart', 'ok');
  assert.match(await call.getByTestId('sandbox-code').innerText(), /plt\.plot\(values\)/);
  await call.locator('.sbadge.ok').filter({ hasText: 'exit 0' }).waitFor();
  const output = call.getByTestId('sandbox-output');
  assert.equal(await isOpen(output), false, 'a successful run keeps its output folded');
  await output.locator('summary').click();
  assert.match(await output.innerText(), /total: 10[\s\S]*mean: 2\.5/);

  const img = call.getByTestId('sandbox-artifact-image').locator('img');
  await img.waitFor({ timeout: 20_000 });
  assert.match(await img.getAttribute('src') ?? '', /^blob:/, 'fetched with the bearer into a blob URL');
  assert.ok(await img.evaluate((el) => { const i = el as unknown as { complete: boolean; naturalWidth: number }; return i.complete && i.naturalWidth > 0; }), 'the chart decodes');

  const chip = call.getByTestId('sandbox-artifact-file').filter({ hasText: 'values.csv' });
  await chip.waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), chip.click()]);
  assert.equal(download.suggestedFilename(), 'values.csv');
  assert.match(readFileSync(await download.path(), 'utf8'), /^i,value\r?\n0,1/);
  await page.getByRole('article', { name: 'Assistant' }).last().getByText('Done: the run is above.').waitFor({ timeout: 20_000 });
  await shot(page, 'e2e-sandbox-chart');
  assert.deepEqual(errors, []);
});

test('a follow-up run reuses a variable of the previous one', { skip: skipAll }, async (t) => {
  if (skipped(t)) return;
  await send('Now double the total');
  const call = await runOf('call_follow', 'ok');
  const output = call.getByTestId('sandbox-output');
  await output.locator('summary').click();
  assert.match(await output.innerText(), /total doubled: 20/);
  assert.deepEqual(errors, []);
});

test('a failing run shows the exception and its traceback, unfolded', { skip: skipAll }, async (t) => {
  if (skipped(t)) return;
  await send('Divide the total by zero');
  const call = await runOf('call_fail', 'failed');
  assert.equal(await isOpen(call.getByTestId('sandbox-output')), true, 'a failed run opens its output');
  const err = call.getByTestId('sandbox-error');
  assert.match(await err.innerText(), /ZeroDivisionError/);
  assert.match(await err.innerText(), /Traceback/);
  await shot(page, 'e2e-sandbox-error');
  assert.deepEqual(errors, []);
});

test('a long output is cut; Show all opens the whole', { skip: skipAll }, async (t) => {
  if (skipped(t)) return;
  await send('Print many lines please');
  const call = await runOf('call_long', 'ok');
  const output = call.getByTestId('sandbox-output');
  await output.locator('summary').click();
  assert.doesNotMatch(await output.innerText(), /line 299 of/);
  await call.getByTestId('sandbox-show-all').click();
  await output.getByText(/line 299 of the long output/).waitFor({ timeout: 20_000 });
  await shot(page, 'e2e-sandbox-show-all');
  assert.deepEqual(errors, []);
});

test('after a reload the stored runs still show code, output and the chart', { skip: skipAll }, async (t) => {
  if (skipped(t)) return;
  await page.reload();
  await page.getByTestId('messages').waitFor();
  // The list is virtual: scroll to the top, where the first run is.
  const chart = page.locator('[data-testid="sandbox-call"][data-call-id="call_chart"]');
  for (let i = 0; i < 20 && !(await chart.count()); i++) {
    await page.getByTestId('messages').evaluate((el) => { el.scrollTop = 0; });
    await page.waitForTimeout(250);
  }
  await chart.waitFor({ timeout: 20_000 });
  assert.match(await chart.getByTestId('sandbox-code').innerText(), /total = sum\(values\)/);
  await chart.getByTestId('sandbox-output').locator('summary').click();
  assert.match(await chart.getByTestId('sandbox-output').innerText(), /total: 10/);
  const img = chart.getByTestId('sandbox-artifact-image').locator('img');
  await img.waitFor({ timeout: 20_000 });
  assert.ok(await img.evaluate((el) => { const i = el as unknown as { complete: boolean; naturalWidth: number }; return i.complete && i.naturalWidth > 0; }));
  await shot(page, 'e2e-sandbox-reloaded');
  assert.deepEqual(errors, []);
});

test('Admin → Sandbox: the live session with runtime and memory; Destroy removes it', { skip: skipAll }, async (t) => {
  if (skipped(t, sandboxDown)) return;
  // The chat's session when the chat steps ran; a session of its own (run through the API) otherwise.
  let sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
  const listed = await api<{ sessions: Array<{ session_id: string }> }>('GET', '/v1/sandbox/sessions');
  if (!listed.body.sessions.some((x) => x.session_id === sessionId)) {
    sessionId = 'e2e-admin-session';
    const run = await api<{ stdout: string }>('POST', '/v1/sandbox/execute', { code: 'print(6 * 7)', language: 'python', tenant_id: 'acme', session_id: sessionId });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.stdout, '42\n');
  }
  await page.goto(`${stack.url}/admin/sandbox`);
  const list = page.getByTestId('sandbox-sessions');
  await list.waitFor();
  await page.getByTestId('sandbox-readiness').getByText(/runsc|runc/).first().waitFor();
  const rows = list.getByTestId('sandbox-session-row');
  const row = list.locator(`[data-testid="sandbox-session-row"][data-session="${sessionId}"]`);
  await row.waitFor({ timeout: 10_000 });
  const id = sessionId;
  assert.match(await row.innerText(), /([\d.]+ (B|KB|MB|GB)|—) \/ [\d.]+ (MB|GB)/, 'memory used / limit');
  await shot(page, 'e2e-sandbox-admin');
  const before = await rows.count();
  await row.getByTestId('sandbox-destroy').click();
  await row.getByTestId('sandbox-destroy-confirm').click();
  await list.locator(`[data-testid="sandbox-session-row"][data-session="${id}"]`).waitFor({ state: 'detached', timeout: 15_000 });
  if (before === 1) await page.getByTestId('sandbox-empty').getByText('No live sessions.').waitFor();
  const after = await api<{ sessions: Array<{ session_id: string }> }>('GET', '/v1/sandbox/sessions');
  assert.ok(!after.body.sessions.some((s) => s.session_id === id), 'gone on the server too');
  assert.deepEqual(errors, []);
});
