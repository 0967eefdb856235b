/**
 * MCP servers on the full stack (issue 17 item 3; spec "Agent runtime surfaces":
 * `/v1/admin/mcp-servers/*`, `/v1/user/mcp-servers`; "Chat stream events": approval_required,
 * mcp_failures). Real MCP servers built with the SDK (a stdio child process and a streamable HTTP
 * server), the scripted LLM: an admin registers both (201), checks health and tools; a chat calls an
 * MCP tool -> approval_required with the server and the arguments -> approve -> the result is in the
 * answer and the call in the sealed receipt; a server that dies mid-turn yields `mcp_failures` and
 * the answer still arrives; URLs at the workstation's service ports and link-local are refused;
 * personal stdio servers are refused; secrets are resolved at connect time and never answered.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, openChatStream, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { startHttpMcpServer, stdioServerCommand, type HttpMcpServer } from '../helpers/mcp-servers.js';

const SECRET = 'tok-s3cr3t-value-0042';
let llm: ScriptedLlm;
let stack: TestStack;
let http: HttpMcpServer;
let token: string;
/** The tool the scripted model calls on the next user message, with its arguments. */
let nextCall: { name: string; args: unknown } | null = null;
let stdioId = '';
let httpId = '';
/** An agent that may use both servers (empty agent tools = the default set, which has no MCP). */
let agentId = '';

/** `POST /v1/chat/stream` with `agent_id`; `first` resolves at the first record named `until`. */
const chatStream = (content: string, until: string) => openChatStream(stack.url, token, content, until, { agent_id: agentId });

const api = (method: string, path: string, body?: unknown) => callJson(stack.url, token, method, path, body);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
async function eventually<T>(fn: () => Promise<T | null>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await sleep(200);
  }
}

function script(r: RecordedRequest): ScriptedReply {
  const msgs = r.body.messages as Array<{ role: string; content: string }>;
  const last = msgs.at(-1)!;
  if (last.role === 'tool') return { content: `The tool said: ${last.content}` };
  if (nextCall) return { content: 'Calling. ', toolCalls: [{ id: 'call_mcp_1', name: nextCall.name, arguments: JSON.stringify(nextCall.args) }] };
  return { content: 'no tools' };
}

before(async () => {
  llm = await startScriptedLlm({ script });
  http = await startHttpMcpServer(SECRET);
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false', SVC_READY_TIMEOUT_MS: '120000' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status === 201 || prov.status === 200, JSON.stringify(prov.body));
  const role = await api('PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' });
  assert.ok(role.status < 300, JSON.stringify(role.body));
  assert.equal((await api('PUT', '/v1/admin/tenant-secrets/MCP_TOKEN', { value: SECRET })).status, 201);
});
after(async () => { await stack?.stop(); await http?.close(); await llm?.close(); });

test('admin registers a stdio and a streamable HTTP server: 201 shape, secrets never answered, health, tools', async () => {
  const { command, args } = stdioServerCommand();
  const a = await api('POST', '/v1/admin/mcp-servers', { name: 'stdio-tools', transport: 'stdio', command, args, env: { API_KEY: '${secret:MCP_TOKEN}' } });
  assert.equal(a.status, 201, JSON.stringify(a.body));
  assert.match(a.body.id, /^[0-9A-Z]{26}$/);
  assert.equal(a.body.name, 'stdio-tools');
  assert.equal(a.body.transport, 'stdio');
  assert.equal(a.body.scope, 'tenant');
  assert.deepEqual(a.body.env, { API_KEY: '${secret:MCP_TOKEN}' });
  stdioId = a.body.id;
  const b = await api('POST', '/v1/admin/mcp-servers', { name: 'http-kb', transport: 'streamable_http', url: http.url, headers: { authorization: 'Bearer ${secret:MCP_TOKEN}' } });
  assert.equal(b.status, 201, JSON.stringify(b.body));
  assert.equal(b.body.transport, 'streamable_http');
  assert.equal(b.body.url, http.url);
  httpId = b.body.id;
  assert.equal(b.body.tool_prefix, `mcp_${httpId.slice(-8).toLowerCase()}_`);

  for (const id of [stdioId, httpId]) {
    const h = await api('POST', `/v1/admin/mcp-servers/${id}/health`);
    assert.equal(h.status, 200);
    assert.equal(h.body.ok, true, JSON.stringify(h.body));
    assert.equal(h.body.method, 'ping');
    assert.equal(typeof h.body.latency_ms, 'number');
  }
  assert.ok(http.authorizations.includes(`Bearer ${SECRET}`), 'the header secret was resolved at connect time');
  const t1 = await api('GET', `/v1/admin/mcp-servers/${stdioId}/tools`);
  assert.equal(t1.status, 200, JSON.stringify(t1.body));
  const echo = t1.body.items.find((t: { tool: string }) => t.tool === 'echo');
  assert.equal(echo.name, `mcp_${stdioId.slice(-8).toLowerCase()}_echo`);
  assert.equal(echo.policy, 'ask', 'annotations of an untrusted server are not honoured');
  const t2 = await api('GET', `/v1/admin/mcp-servers/${httpId}/tools`);
  assert.deepEqual(t2.body.items.map((t: { tool: string }) => t.tool).sort(), ['die', 'lookup']);
  // The tools are in the registry the chat offers from.
  const listed = await eventually(async () => {
    const r = await api('GET', '/v1/tools');
    return r.body.items.some((t: { name: string }) => t.name === echo.name) ? r.body.items as Array<{ name: string; source: string; policy: string }> : null;
  });
  assert.equal(listed.find((t) => t.name === echo.name)!.source, `mcp:${stdioId}`);
  assert.equal(listed.find((t) => t.name === echo.name)!.policy, 'ask');

  const all = [await api('GET', '/v1/admin/mcp-servers'), await api('GET', `/v1/admin/mcp-servers/${httpId}`), await api('GET', '/v1/user/mcp-servers')];
  for (const r of all) { assert.equal(r.status, 200); assert.ok(!JSON.stringify(r.body).includes(SECRET), 'no secret in answers'); }
  assert.equal(all[2]!.body.items.length, 2);
  assert.equal(all[2]!.body.items[0].opted_out, false);
  const agent = await api('POST', '/v1/agents', { name: 'MCP helper', tools: [stdioId, httpId] });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  agentId = agent.body.id;
});

test('the stdio server runs with a minimal environment and its env secret resolved', async () => {
  nextCall = { name: `mcp_${stdioId.slice(-8).toLowerCase()}_env_probe`, args: {} };
  assert.equal((await api('PUT', `/v1/admin/policies/tools/${nextCall.name}`, { policy: 'auto' })).status, 200);
  const r = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: 'Which variables does the helper see?' }], agent_id: agentId });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const text = r.body.message.content as string;
  const probe = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as { keys: string[]; api_key_length: number };
  assert.equal(probe.api_key_length, SECRET.length);
  assert.ok(probe.keys.includes('PATH'));
  assert.ok(!probe.keys.some((k) => /^(SVC_|AGENT_RUNTIME_|INTERNAL_AUTH)/.test(k)), `no runtime settings: ${probe.keys.join(',')}`);
  assert.ok(!JSON.stringify(r.body).includes(SECRET));
});

test('tools/list_changed: a tool the server adds mid-session joins the registry', async () => {
  nextCall = { name: `mcp_${stdioId.slice(-8).toLowerCase()}_add_tool`, args: {} };
  assert.equal((await api('PUT', `/v1/admin/policies/tools/${nextCall.name}`, { policy: 'auto' })).status, 200);
  const r = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: 'Add the extra one.' }], agent_id: agentId });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(r.body.message.content, /The tool said: added/);
  const extra = `mcp_${stdioId.slice(-8).toLowerCase()}_extra`;
  await eventually(async () => ((await api('GET', '/v1/tools')).body.items.some((t: { name: string }) => t.name === extra) ? true : null), 10_000);
});

test('a chat calls an MCP tool: approval_required with server and arguments, approve, result in the answer and in the sealed receipt', async () => {
  const name = `mcp_${stdioId.slice(-8).toLowerCase()}_echo`;
  nextCall = { name, args: { text: 'hello mcp' } };
  const s = chatStream('Please repeat my greeting.', 'approval_required');
  const ask = await Promise.race([s.first, s.done.then((r) => { throw new Error(`no approval_required: ${JSON.stringify(r)}`); })]);
  const approval = (ask.data as { approvals: Array<{ id: string; tool: string; arguments: unknown; server?: { id: string; name: string; tool: string } }> }).approvals[0]!;
  assert.equal(approval.tool, name);
  assert.deepEqual(approval.arguments, { text: 'hello mcp' });
  assert.deepEqual(approval.server, { id: stdioId, name: 'stdio-tools', tool: 'echo' });
  const ok = await api('POST', `/v1/user/approvals/${approval.id}/approve`, {});
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const records = await s.done;
  const result = records.find((x) => x.event === 'tool_result')!.data as { tool: string; result: string };
  assert.equal(result.result, 'echo: hello mcp');
  const answer = records.filter((x) => x.event === 'token').map((x) => (x.data as { content: string }).content).join('');
  assert.match(answer, /The tool said: echo: hello mcp/);
  const done = records.at(-1)!;
  assert.equal(done.event, 'done');
  const turn = (done.data as { receipt?: { turn_id: string } }).receipt!.turn_id;
  const detail = await eventually(async () => {
    const x = await api('GET', `/v1/receipts/${turn}`);
    const evs = x.status === 200 ? x.body.events as Array<{ payload_type: string; payload?: Record<string, unknown> }> : [];
    return evs.some((e) => e.payload_type === 'turn_sealed') ? evs : null;
  }, 20_000);
  const called = detail.find((e) => e.payload_type === 'tool_called');
  assert.ok(called, `tool_called in ${detail.map((e) => e.payload_type).join(',')}`);
  assert.ok(JSON.stringify(called).includes(name), 'the receipt names the MCP tool');
});

test('a server that dies mid-turn: mcp_failures (also as an AG-UI CUSTOM event), the answer still arrives', async () => {
  const name = `mcp_${httpId.slice(-8).toLowerCase()}_die`;
  nextCall = { name, args: {} };
  assert.equal((await api('PUT', `/v1/admin/policies/tools/${name}`, { policy: 'auto' })).status, 200);
  const s = chatStream('Look the answer up for me.', 'mcp_failures');
  const failure = (await Promise.race([s.first, s.done.then((r) => { throw new Error(`no mcp_failures: ${JSON.stringify(r)}`); })])).data as { failures: Array<{ server_id: string; server_name: string; error: string }> };
  assert.equal(failure.failures[0]!.server_id, httpId);
  assert.equal(failure.failures[0]!.server_name, 'http-kb');
  assert.ok(failure.failures[0]!.error.length > 0);
  const records = await s.done;
  assert.equal(records.at(-1)!.event, 'done');
  const answer = records.filter((x) => x.event === 'token').map((x) => (x.data as { content: string }).content).join('');
  assert.match(answer, /The tool said: error:/);

  const r = await fetch(`${stack.url}/v1/chat/agui/stream`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Look it up once more.' }], agent_id: agentId }),
  });
  const events = (await r.text()).split('\n\n').filter((b) => b.trim()).map((b) => JSON.parse(b.replace(/^data: /gm, '')) as { type: string; name?: string; value?: { failures: Array<{ server_id: string }> } });
  const custom = events.find((e) => e.type === 'CUSTOM' && e.name === 'mcp_failures');
  assert.equal(custom?.value?.failures[0]?.server_id, httpId);
  assert.equal(events.at(-1)!.type, 'RUN_FINISHED');
  // The server is reachable again after a reconnect.
  nextCall = null;
  const h = await api('POST', `/v1/admin/mcp-servers/${httpId}/health`);
  assert.equal(h.body.ok, true, JSON.stringify(h.body));
});

test('refusals: a URL at a service port of the workstation or link-local is url_not_allowed; a personal stdio server transport_not_allowed; opt-out; delete', async () => {
  const gw = await api('POST', '/v1/admin/mcp-servers', { name: 'gw', transport: 'streamable_http', url: `${stack.url}/mcp` });
  assert.equal(gw.status, 400, JSON.stringify(gw.body));
  assert.equal(gw.body.code, 'url_not_allowed');
  const port = stack.sup.status().find((x) => x.name === 'memory')!.port;
  const svc = await api('POST', '/v1/user/mcp-servers', { name: 'mem', transport: 'streamable_http', url: `http://127.0.0.1:${port}/mcp` });
  assert.equal(svc.status, 400);
  assert.equal(svc.body.code, 'url_not_allowed');
  const ll = await api('POST', '/v1/admin/mcp-servers', { name: 'meta', transport: 'streamable_http', url: 'http://169.254.169.254/mcp' });
  assert.equal(ll.body.code, 'url_not_allowed');
  const { command, args } = stdioServerCommand();
  const personal = await api('POST', '/v1/user/mcp-servers', { name: 'mine', transport: 'stdio', command, args });
  assert.equal(personal.status, 400);
  assert.equal(personal.body.code, 'transport_not_allowed');
  const own = await api('POST', '/v1/user/mcp-servers', { name: 'mine', transport: 'streamable_http', url: http.url, headers: { authorization: 'Bearer ${secret:MCP_TOKEN}' } });
  assert.equal(own.status, 201, JSON.stringify(own.body));
  assert.equal(own.body.scope, 'personal');
  assert.equal((await api('PUT', `/v1/user/mcp-servers/${httpId}/opt-out`, { opted_out: true })).body.opted_out, true);
  const tools = await api('GET', '/v1/tools');
  assert.ok(!tools.body.items.some((t: { source: string }) => t.source === `mcp:${httpId}`), 'an opted-out server offers no tools');
  assert.equal((await api('DELETE', `/v1/user/mcp-servers/${own.body.id}`)).status, 204);
  assert.equal((await api('DELETE', `/v1/admin/mcp-servers/${httpId}`)).status, 204);
  assert.equal((await api('GET', `/v1/admin/mcp-servers/${httpId}`)).status, 404);
});

test('plugins (item 4): tool groups and who sees them; a user outside the roles is neither shown nor offered the group; users cannot reach admin routes', async () => {
  const made = await api('POST', '/v1/admin/users', { email: 'mcp-user@example.test', display_name: 'MCP user', password: 'mcp-user-long-password', roles: ['user'] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const user = await login(stack.url, 'mcp-user@example.test', 'mcp-user-long-password');
  const asUser = (method: string, path: string, body?: unknown) => callJson(stack.url, user, method, path, body);
  const plugin = `mcp:${stdioId}`;
  const before = await asUser('GET', '/v1/user/plugins');
  assert.equal(before.status, 200);
  const mine = before.body.items.find((p: { id: string }) => p.id === plugin);
  assert.equal(mine.name, 'stdio-tools');
  assert.ok(mine.tools.includes(`mcp_${stdioId.slice(-8).toLowerCase()}_echo`));
  assert.ok(before.body.items.some((p: { id: string }) => p.id === 'builtin'));
  assert.equal((await asUser('GET', '/v1/user/mcp-servers')).body.items.some((s: { id: string }) => s.id === stdioId), true);
  assert.equal((await asUser('GET', '/v1/admin/mcp-servers')).status, 403);
  assert.equal((await asUser('PUT', `/v1/admin/plugins/${plugin}`, { roles: ['user'] })).status, 403);

  const put = await api('PUT', `/v1/admin/plugins/${plugin}`, { roles: ['auditor'] });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body.roles, ['auditor']);
  const after = await asUser('GET', '/v1/user/plugins');
  assert.ok(!after.body.items.some((p: { id: string }) => p.id === plugin), 'hidden from a user without the role');
  const tools = await asUser('GET', '/v1/tools');
  assert.ok(!tools.body.items.some((t: { source: string }) => t.source === plugin), 'its tools are not offered');
  assert.ok((await api('GET', '/v1/admin/plugins')).body.items.some((p: { id: string; roles: string[] }) => p.id === plugin && p.roles[0] === 'auditor'));
  assert.equal((await api('PUT', `/v1/admin/plugins/${plugin}`, {})).body.roles.length, 0);
  assert.ok((await asUser('GET', '/v1/user/plugins')).body.items.some((p: { id: string }) => p.id === plugin), 'visible again');
});
