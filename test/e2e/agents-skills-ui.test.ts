/**
 * Agents and skills in a real browser (issue 17 item 6), against the headless stack and the
 * scripted OpenAI-compatible provider (the one test double). A plain user:
 *  1. creates a skill on the Skills page: the Markdown preview renders as they type (emphasis shown,
 *     raw HTML shown as text, never run), and the saved skill lists its version with the SHA-256 the
 *     server computed;
 *  2. creates a personal agent on the Agents page (name, description, instructions, a tool group);
 *  3. picks it in the chat's agent picker and sends a message: the request carries `agent_id`, the
 *     model gets the agent's instructions, the answer streams in and the session runs that agent;
 *  4. MCP: an admin registers a streamable HTTP MCP server (a real one built with the SDK) on the MCP
 *     page and sees it healthy with its tools and their approval policy; the user gives an agent
 *     that server, the model calls its tool, the inline approval card names the server and shows
 *     the arguments, Approve runs the call on the server and the answer arrives.
 * Each step checks that its backend answers first and is skipped (with the reason) while
 * `/v1/agents` and `/v1/skills` have not landed.
 * Screenshots: test-results/e2e-skills-*.png, e2e-agents-*.png, e2e-agent-chat.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { startHttpMcpServer, type HttpMcpServer } from '../helpers/mcp-servers.js';
import { login, type TestStack } from '../helpers/stack.js';
import { ADMIN, haveChromium, launch, newPage, shot, signIn, startE2E, unavailable } from './support.js';

const USER = { email: 'analyst@example.test', password: 'analyst-password-long' };
const SENTINEL = 'CONTRACTS-REVIEWER-7F3';
const ANSWER = 'Clause 4.2 limits liability to the fees paid.';
const LOOKUP_ANSWER = 'The lookup server says alpha is 42.';

/** Function name of the MCP server's `lookup` tool, once the server is registered. */
let mcpTool: string | null = null;
let mcp: HttpMcpServer;

function script(r: RecordedRequest): ScriptedReply {
  const msgs = (r.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = msgs.at(-1);
  if (last?.role === 'tool') return { content: LOOKUP_ANSWER, chunkDelayMs: 5 };
  if (mcpTool && last && typeof last.content === 'string' && /look up/i.test(last.content)) {
    return { toolCalls: [{ id: 'call_mcp1', name: mcpTool, arguments: '{"key":"alpha"}' }] };
  }
  return { content: ANSWER, chunkDelayMs: 5 };
}

let llm: ScriptedLlm;
let stack: TestStack;
let browser: Browser;
let page: Page;
let errors: string[];
let admin: string;
let token: string;
const skipAll = haveChromium() ? false : 'Chromium is not installed at /usr/bin/chromium';

async function api<T = unknown>(bearer: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Text of every message the model was sent in `r` (system prompt included). */
function promptOf(r: RecordedRequest): string {
  const msgs = (r.body.messages ?? []) as Array<{ content: unknown }>;
  return msgs.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

before(async () => {
  if (skipAll) return;
  llm = await startScriptedLlm({ script });
  mcp = await startHttpMcpServer();
  stack = await startE2E({ AGENT_RUNTIME_TITLES: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api<{ id: string }>(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const made = await api(admin, 'POST', '/v1/admin/users', { email: USER.email, display_name: 'Analyst', password: USER.password, roles: ['user'] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  token = await login(stack.url, USER.email, USER.password);
  browser = await launch();
  ({ page, errors } = await newPage(browser));
  await signIn(page, stack.url, USER.email, USER.password);
});

after(async () => {
  if (skipAll) return;
  await browser?.close();
  await stack?.stop();
  await llm?.close();
  await mcp?.close();
});

test('a user writes a skill with a live Markdown preview; its version and hash are listed', { skip: skipAll }, async (t) => {
  const why = await unavailable(stack.url, token, 'GET', '/v1/skills');
  if (why) { t.skip(why); return; }
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Skills' }).click();
  const form = page.getByRole('form', { name: 'New skill' });
  await form.getByLabel('Name').fill('contract-review');
  await form.getByLabel('Description').fill('How to review a supplier contract clause by clause');
  await form.getByLabel('Instructions (Markdown)').fill('# Review steps\n\n1. **Read** every clause\n2. Flag `liability` caps\n\n<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">');
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.locator('h1', { hasText: 'Review steps' }).waitFor();
  assert.equal(await preview.locator('strong').first().innerText(), 'Read');
  assert.equal(await preview.locator('script, img').count(), 0, 'raw HTML is not rendered');
  assert.match(await preview.innerText(), /<script>/, 'raw HTML is shown as text');
  assert.equal(await page.evaluate('window.__pwned ?? 0'), 0);
  await shot(page, 'e2e-skills-preview');
  await form.getByRole('button', { name: 'Create skill' }).click();

  const item = page.getByRole('listitem', { name: 'Skill contract-review' });
  await item.waitFor({ timeout: 10_000 });
  const listed = await api<{ items: Array<{ id: string; name: string; sha256: string; version: number }> }>(token, 'GET', '/v1/skills');
  const skill = listed.body.items.find((s) => s.name === 'contract-review');
  assert.ok(skill, 'the skill is stored');
  assert.match(skill.sha256, /^[0-9a-f]{64}$/);
  // The editor opens the saved skill: its versions with the server's hash.
  const versions = page.getByRole('region', { name: 'Versions' });
  await versions.getByRole('cell', { name: `v${skill.version}` }).waitFor({ timeout: 10_000 });
  assert.equal(await versions.locator('code').first().getAttribute('title'), skill.sha256);
  await shot(page, 'e2e-skills-saved');
  assert.deepEqual(errors, []);
});

test('a user creates an agent, picks it in chat, and the turn runs it', { skip: skipAll }, async (t) => {
  const why = await unavailable(stack.url, token, 'GET', '/v1/agents');
  if (why) { t.skip(why); return; }
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Agents' }).click();
  const form = page.getByRole('form', { name: 'New agent' });
  await form.getByLabel('Name').fill('Contracts reviewer');
  await form.getByLabel('Description').fill('Reviews supplier contracts');
  await form.getByLabel('Instructions').fill(`${SENTINEL}: review contracts clause by clause and cite the clause.`);
  await form.getByLabel('Knowledge search').check();
  await form.getByRole('button', { name: 'Create agent' }).click();
  const card = page.getByRole('listitem', { name: 'Agent Contracts reviewer' });
  await card.waitFor({ timeout: 10_000 });
  assert.match(await card.innerText(), /Knowledge search|knowledge/);
  const agents = await api<{ items: Array<{ id: string; name: string; scope: string; tools: string[] }> }>(token, 'GET', '/v1/agents');
  const agent = agents.body.items.find((a) => a.name === 'Contracts reviewer');
  assert.ok(agent, 'the agent is stored');
  assert.equal(agent.scope, 'personal');
  assert.deepEqual(agent.tools, ['knowledge']);
  await shot(page, 'e2e-agents-created');

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Chat' }).click();
  const picker = page.getByRole('combobox', { name: 'Agent' });
  await picker.waitFor({ timeout: 10_000 });
  await picker.selectOption({ label: 'Contracts reviewer (mine)' });
  const sent = page.waitForRequest((r) => r.url().endsWith('/v1/chat/agui/stream') && r.method() === 'POST');
  const before = llm.requests.length;
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('What does clause 4.2 say?');
  await box.press('Enter');
  const body = JSON.parse((await sent).postData() ?? '{}') as { agent_id?: string };
  assert.equal(body.agent_id, agent.id, 'the chat request names the picked agent');
  await page.getByRole('article', { name: 'Assistant' }).last().getByText(ANSWER).waitFor({ timeout: 20_000 });
  const calls = llm.requests.slice(before);
  assert.ok(calls.length > 0, 'the model was called');
  assert.ok(calls.some((r) => promptOf(r).includes(SENTINEL)), 'the model got the agent\'s instructions');
  await page.waitForURL(/\/chat\/.+/);
  const sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
  const session = await api<{ agent_id: string }>(token, 'GET', `/v1/sessions/${encodeURIComponent(sessionId)}`);
  assert.equal(session.body.agent_id, agent.id, 'the session runs the agent');
  await shot(page, 'e2e-agent-chat');
  assert.deepEqual(errors, []);
});

test('MCP: admin registers a server (healthy, tools listed); the approval card names it and shows the arguments', { skip: skipAll }, async (t) => {
  const why = await unavailable(stack.url, admin, 'GET', '/v1/admin/mcp-servers');
  if (why) { t.skip(why); return; }
  const { page: adminPage, errors: adminErrors } = await newPage(browser);
  await signIn(adminPage, stack.url);
  await adminPage.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'MCP' }).click();
  const form = adminPage.getByRole('form', { name: 'Register a tenant MCP server' });
  await form.getByLabel('Name', { exact: true }).fill('lookup-server');
  await form.getByLabel('Transport').selectOption('streamable_http');
  await form.getByLabel('URL').fill(mcp.url);
  await form.getByRole('button', { name: 'Register server' }).click();
  await form.getByRole('status').filter({ hasText: 'Added lookup-server.' }).waitFor({ timeout: 10_000 });
  const card = adminPage.getByRole('list', { name: 'Tenant MCP servers' }).getByRole('listitem', { name: 'MCP server lookup-server' });
  await card.locator('[data-health="ok"]').waitFor({ timeout: 15_000 });
  const servers = await api<{ items: Array<{ id: string; name: string; tool_prefix?: string }> }>(admin, 'GET', '/v1/admin/mcp-servers');
  const server = servers.body.items.find((x) => x.name === 'lookup-server');
  assert.ok(server, 'the server is stored');
  mcpTool = `${server.tool_prefix ?? `mcp_${server.id.slice(-8).toLowerCase()}_`}lookup`;
  await card.getByRole('button', { name: 'Tools' }).click();
  await card.getByRole('cell', { name: 'lookup', exact: true }).waitFor({ timeout: 15_000 });
  assert.equal(await card.getByLabel(`Approval of ${mcpTool}`).inputValue(), 'ask', 'MCP tools default to ask');
  await shot(adminPage, 'e2e-mcp-admin');
  assert.deepEqual(adminErrors, []);
  await adminPage.context().close();

  // The user sees the tenant server and gives an agent its tools.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'MCP' }).click();
  await page.getByRole('list', { name: 'Your MCP servers' }).getByRole('listitem', { name: 'MCP server lookup-server' }).waitFor({ timeout: 10_000 });
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Agents' }).click();
  const agentForm = page.getByRole('form', { name: 'New agent' });
  await agentForm.getByLabel('Name').fill('Lookup helper');
  await agentForm.getByLabel('MCP: lookup-server').check();
  await agentForm.getByRole('button', { name: 'Create agent' }).click();
  await page.getByRole('listitem', { name: 'Agent Lookup helper' }).waitFor({ timeout: 10_000 });

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Lookup helper (mine)' });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Please look up alpha');
  await box.press('Enter');
  const approval = page.getByRole('group', { name: `Approval for ${mcpTool}` });
  await approval.waitFor({ timeout: 20_000 });
  await approval.getByTestId('approval-server').getByText('lookup-server').waitFor({ timeout: 10_000 });
  assert.match(await approval.innerText(), /"key": "alpha"/, 'the arguments are shown');
  assert.match(await approval.getByTestId('approval-server').innerText(), /lookup-server · tool lookup/);
  await shot(page, 'e2e-mcp-approval');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('article', { name: 'Assistant' }).last().getByText(LOOKUP_ANSWER).waitFor({ timeout: 20_000 });
  assert.ok(mcp.calls.includes('lookup'), 'the call reached the MCP server');
  await shot(page, 'e2e-mcp-approved');
  assert.deepEqual(errors, []);
});
