/**
 * Scale-out shared state (issue 21 items 2, 3): two gateways and two agent runtimes on one data
 * directory with a real redis-server. Stack A is the desktop stack (supervisor, every service);
 * gateway B and runtime B run as a separate OS process started with `svc --service
 * gateway,agent-runtime` (main/cli.ts), calling A's other services through `SVC_<SERVICE>_URL`.
 * A turn started through gateway A parks on runtime A for a tool approval; the approval is decided
 * through gateway B (runtime B), and the parked turn on runtime A resumes and completes; the
 * approval's notification, stored by runtime A, reaches a notification stream open on gateway B.
 * An AG-UI run paused on an interrupt through gateway A is resumed through gateway B (the paused run
 * lives in A's memory; B finds A in the Redis directory and forwards the resume there).
 * An MCP server registered through runtime A brings its tools to runtime B at once (a change
 * message on the bus), and leaves A when removed through B.
 * A conversation run in progress on runtime A makes the conversation busy through runtime B, and a
 * cancel through B stops the run on A (Redis run locks and a cancel message).
 * Then SIGTERM stops process B cleanly (exit 0). Skipped where redis-server is absent.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, openChatStream, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { SseParser, type SseRecord } from '../../services/gateway/src/agui/sse.js';
import { stdioServerCommand } from '../helpers/mcp-servers.js';
import { eventually } from '../helpers/runtime-harness.js';
import { hasRedis, startPeerProcess, startRedis, type PeerProcess, type TestRedis } from '../helpers/scale-out.js';

let redis: TestRedis | null = null;
let llm: ScriptedLlm;
let stack: TestStack;
let b: PeerProcess | null = null;
let urlB = '';
let token = '';

before(async () => {
  if (!hasRedis) return;
  redis = await startRedis();
  llm = await startScriptedLlm({
    script: (r) => {
      const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
      const last = msgs.at(-1)!;
      if (last.role === 'tool') return { content: `Result: ${String(last.content)}` };
      return { content: 'Checking. ', toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"6*7"}' }] };
    },
  });
  const env = { REDIS_URL: redis.url, AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONVERSATIONS_ENABLED: 'true' };
  stack = await startStack(env);
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await callJson(stack.url, token, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status === 201 || prov.status === 200, JSON.stringify(prov.body));
  const role = await callJson(stack.url, token, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' });
  assert.ok(role.status < 300, JSON.stringify(role.body));
  assert.equal((await callJson(stack.url, token, 'PUT', '/v1/admin/policies/tools/calculator', { policy: 'ask' })).status, 200);

  // Process B: gateway and runtime of their own, every other service A's, one data dir, one Redis
  // (and, in the PostgreSQL pass, one database).
  b = await startPeerProcess(stack, ['gateway', 'agent-runtime'], env);
  urlB = b.url;
});

after(async () => {
  if (b && b.proc.exitCode === null) b.proc.kill('SIGKILL');
  await stack?.stop();
  await llm?.close();
  redis?.stop();
});

/** Open `GET /v1/notifications/stream` at `base`, collecting records until `close`. */
function notificationStream(base: string): { records: SseRecord[]; close(): void } {
  const ac = new AbortController();
  const records: SseRecord[] = [];
  void (async () => {
    const r = await fetch(`${base}/v1/notifications/stream`, { headers: { authorization: `Bearer ${token}` }, signal: ac.signal });
    const parser = new SseParser();
    const dec = new TextDecoder();
    for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) for (const rec of parser.push(dec.decode(chunk, { stream: true }))) records.push(rec);
  })().catch(() => {});
  return { records, close: () => ac.abort() };
}

test('a turn parked for approval on runtime A is approved through gateway B and resumes; its notice reaches a stream on gateway B', { skip: hasRedis ? false : 'redis-server is not installed' }, async () => {
  assert.notEqual(urlB, stack.url);
  // Gateway B validates A's tokens (same issuer, shared keys) and answers from its own runtime.
  const me = await callJson(urlB, token, 'GET', '/v1/notifications/unread-count');
  assert.equal(me.status, 200, JSON.stringify(me.body));
  const watchB = notificationStream(urlB);
  try {
    const streaming = openChatStream(stack.url, token, 'What is 6 times 7?', 'approval_required');
    const parked = await streaming.first;
    const approval = (parked.data as { approvals: Array<{ id: string; status: string }> }).approvals[0]!;
    assert.equal(approval.status, 'pending');
    const t0 = Date.now();
    const decided = await callJson(urlB, token, 'POST', `/v1/user/approvals/${approval.id}/approve`, {});
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.equal(decided.body.status, 'approved');
    const records = await Promise.race([
      streaming.done,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the parked turn on runtime A did not resume')), 15_000)),
    ]);
    process.stderr.write(`# resumed ${Date.now() - t0} ms after the decision through gateway B\n`);
    const names = records.map((r) => r.event);
    assert.ok(names.includes('tool_result') || names.some((n) => n?.startsWith('tool')), names.join(','));
    const text = records.filter((r) => r.event === 'token').map((r) => (r.data as { content: string }).content).join('');
    assert.match(text, /Result: .*42/, names.join(','));
    assert.ok(names.indexOf('tool_result') > names.indexOf('approval_required'), names.join(','));
    assert.equal(names.at(-1), 'done');
    // The approval_waiting notice was stored by runtime A; gateway B's stream saw it (via Redis).
    const deadline = Date.now() + 5000;
    while (!watchB.records.some((r) => r.event === 'notification') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const notice = watchB.records.find((r) => r.event === 'notification');
    assert.ok(notice, `records on B: ${watchB.records.map((r) => r.event).join(',')}`);
    assert.equal((notice.data as { kind: string }).kind, 'approval_waiting');
  } finally {
    watchB.close();
  }
});

/** POST a RunAgentInput to `base`'s AG-UI stream; the status, the turn header and the parsed events. */
async function aguiRun(base: string, bearer: string, extra: Record<string, unknown>): Promise<{ status: number; turn: string | null; events: Array<Record<string, unknown>>; raw: string }> {
  const body = { threadId: 'scale-out-thread', runId: 'r1', state: {}, messages: [], tools: [], context: [], forwardedProps: {}, ...extra };
  const r = await fetch(`${base}/v1/chat/agui/stream`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const raw = await r.text();
  const events = (r.headers.get('content-type') ?? '').includes('text/event-stream') ? raw.split('\n\n').filter(Boolean).map((x) => JSON.parse(x.slice(6)) as Record<string, unknown>) : [];
  return { status: r.status, turn: r.headers.get('x-svc-turn-id'), events, raw };
}

test('an AG-UI run paused on an interrupt through gateway A is resumed through gateway B (forwarded to A, once)', { skip: hasRedis ? false : 'redis-server is not installed' }, async () => {
  const paused = await aguiRun(stack.url, token, { messages: [{ id: 'u1', role: 'user', content: 'What is 6 times 7?' }] });
  assert.equal(paused.status, 200, paused.raw);
  const fin = paused.events.at(-1) as { type: string; outcome: { type: string; interrupts: Array<{ id: string }> }; runId: string };
  assert.equal(fin.type, 'RUN_FINISHED');
  assert.equal(fin.outcome.type, 'interrupt', paused.raw);
  const id = fin.outcome.interrupts[0]!.id;
  const resume = { resume: [{ interruptId: id, status: 'resolved', payload: { approved: true } }] };

  // Another user's resume through B reaches A, which refuses it (only who ran a run may resume it).
  const made = await callJson(stack.url, token, 'POST', '/v1/admin/users', { email: 'scale-other@example.test', display_name: 'Other', password: 'other-long-password', roles: ['user'] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const other = await login(urlB, 'scale-other@example.test', 'other-long-password');
  const stolen = await aguiRun(urlB, other, resume);
  assert.equal(stolen.status, 404, stolen.raw);
  assert.equal((JSON.parse(stolen.raw) as { code: string }).code, 'interrupt_not_found');

  const resumed = await aguiRun(urlB, token, resume);
  assert.equal(resumed.status, 200, resumed.raw);
  assert.equal(resumed.events[0]!.type, 'RUN_STARTED');
  const result = resumed.events.find((e) => e.type === 'TOOL_CALL_RESULT') as { content: string } | undefined;
  assert.ok(result, resumed.raw);
  assert.equal((JSON.parse(result.content) as { result: number }).result, 42, 'the approved call ran on runtime A');
  const done = resumed.events.at(-1) as { type: string; outcome: { type: string }; runId: string };
  assert.equal(done.type, 'RUN_FINISHED');
  assert.equal(done.outcome.type, 'success');
  assert.equal(done.runId, fin.runId, 'the resumed run is the turn paused on A');
  assert.equal(resumed.turn, fin.runId);
  // Taken once: a second resume finds nothing, on either gateway.
  assert.equal((await aguiRun(urlB, token, resume)).status, 404);
  assert.equal((await aguiRun(stack.url, token, resume)).status, 404);
});

test('an MCP server registered through runtime A brings its tools to runtime B; removed through B, they leave A', { skip: hasRedis ? false : 'redis-server is not installed' }, async () => {
  const mcpTools = async (base: string): Promise<string[]> => {
    const r = await callJson(base, token, 'GET', '/v1/tools');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.items as Array<{ name: string; source: string }>).filter((t) => t.source.startsWith('mcp:')).map((t) => t.name);
  };
  assert.deepEqual(await mcpTools(urlB), []);
  const { command, args } = stdioServerCommand();
  const made = await callJson(stack.url, token, 'POST', '/v1/admin/mcp-servers', { name: 'shared-tools', transport: 'stdio', command, args });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  // Each runtime lists the server's tools in the background (A on the write, B on the change message).
  const listed = async (base: string): Promise<string[]> => eventually(async () => { const t = await mcpTools(base); return t.length ? t.sort() : undefined; }, 15_000, 100);
  const onB = await listed(urlB);
  assert.deepEqual(onB, await listed(stack.url), 'runtime B offers the same MCP tools as runtime A');
  assert.equal((await callJson(urlB, token, 'DELETE', `/v1/admin/mcp-servers/${made.body.id as string}`)).status, 204);
  await eventually(async () => ((await mcpTools(stack.url)).length === 0 ? true : undefined), 15_000, 100);
});

test('a conversation run in progress on runtime A makes the conversation busy through runtime B; a cancel through B stops it on A', { skip: hasRedis ? false : 'redis-server is not installed' }, async () => {
  const made = await callJson(stack.url, token, 'POST', '/v1/conversations', { items: [{ role: 'user', content: 'What is 6 times 7?' }] });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const id = made.body.id as string;
  // The run parks on the calculator's approval (policy `ask`): in progress on runtime A until cancelled.
  const pending = callJson(stack.url, token, 'POST', `/v1/conversations/${id}/runs`, {});
  const active = await eventually(async () => {
    const list = await callJson(urlB, token, 'GET', `/v1/conversations/${id}/runs`);
    return (list.body.items as Array<{ id: string; status: string }>).find((r) => r.status === 'in_progress');
  }, 15_000, 50);
  const busyItems = await callJson(urlB, token, 'POST', `/v1/conversations/${id}/items`, { items: [{ role: 'user', content: 'more' }] });
  assert.equal(busyItems.status, 409, JSON.stringify(busyItems.body));
  assert.equal(busyItems.body.code, 'conversation_busy');
  const busyRun = await callJson(urlB, token, 'POST', `/v1/conversations/${id}/runs`, {});
  assert.equal(busyRun.status, 409, JSON.stringify(busyRun.body));
  assert.equal(busyRun.body.code, 'conversation_busy');
  const t0 = Date.now();
  const cancelled = await callJson(urlB, token, 'POST', `/v1/conversations/${id}/runs/${active.id}/cancel`, {});
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.equal(cancelled.body.status, 'cancelled');
  const started = await pending;
  assert.equal(started.body.status, 'cancelled', 'runtime A aborted the run itself');
  assert.ok(Date.now() - t0 < 4000, `the run on A stopped at once (${Date.now() - t0} ms), not at the cancel's wait limit`);
  // Free again on both runtimes.
  const after = await callJson(urlB, token, 'POST', `/v1/conversations/${id}/items`, { items: [{ role: 'user', content: 'hello again' }] });
  assert.equal(after.status, 201, JSON.stringify(after.body));
});

test('SIGTERM stops process B cleanly (exit 0), gateway before runtime', { skip: hasRedis ? false : 'redis-server is not installed' }, async () => {
  assert.equal(await b!.stop(), 0);
  // A keeps serving.
  assert.equal((await callJson(stack.url, token, 'GET', '/v1/notifications/unread-count')).status, 200);
});
