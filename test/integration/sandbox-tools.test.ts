/**
 * The sandbox's agent tools through the whole stack (issue 12 items 6 and 7, "Done when"): the
 * supervisor's stack with the real sandbox on the real Docker engine, the real runtime, audit,
 * knowledge and gateway, and the scripted LLM as the only stand-in. As a user, through the gateway:
 *
 * (a) the model calls `execute_code` computing a number and plotting a chart: the stream has the
 *     tool result with stdout and ONE `artifact` event `{call_id, artifacts: [{name, mime, bytes,
 *     sha256, url}]}`; the user GETs the url through the gateway and the bytes match the sha256;
 *     the `tool_returned` event commits it and the sealed receipt (which verifies) includes that event;
 * (b) a follow-up turn in the same session uses a variable of the previous call;
 * (c) a CSV uploaded to knowledge and named by a file part is in the workspace at `data/<name>` and
 *     pandas reads it (over the AG-UI stream: the artifact arrives as `CUSTOM {name: "artifact"}`);
 *     a document another user may not read is 404 `document_not_found`;
 * (d) a stack whose sandbox image is missing: the sandbox is not ready, its tools are not offered,
 *     and chat still answers.
 *
 * Skipped, with the reason, when no Docker engine answers or the image `svc-sandbox:latest` is not
 * built (`npm run sandbox:image`).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';
import { dockerClient, dockerMissing } from '../helpers/sandbox.js';
import { multipart } from '../helpers/embedder/documents.js';

const IMAGE = 'svc-sandbox:latest';
const SANDBOX_TOOLS = ['bash', 'execute_code', 'glob', 'grep', 'read_file', 'write_file'];

/** Why these tests cannot run here, or null. */
async function whySkip(): Promise<string | null> {
  const missing = await dockerMissing();
  if (missing) return missing;
  try {
    await dockerClient().getImage(IMAGE).inspect();
    return null;
  } catch {
    return `the sandbox image ${IMAGE} is not built: run npm run sandbox:image to run the sandbox tool tests`;
  }
}

const skip = await whySkip();
if (skip) process.stderr.write(`sandbox-tools: skipped: ${skip}\n`);

let llm: ScriptedLlm;
let stack: TestStack;
let token: string;

type Json = Record<string, unknown>;

/** The text of the last user message the model got (string or the text of its parts). */
function lastUserText(r: RecordedRequest): string {
  const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
  const u = [...msgs].reverse().find((m) => m.role === 'user');
  if (!u) return '';
  return typeof u.content === 'string' ? u.content : (u.content as Array<{ text?: string }>).map((p) => p.text ?? '').join('\n');
}

let callNo = 0;
/** The scripted model: keywords of the user's message pick the code it runs; after a tool result it reports it. */
function script(r: RecordedRequest): ScriptedReply {
  const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = msgs.at(-1)!;
  if (last.role === 'tool') return { content: `The sandbox said: ${String(last.content).slice(0, 3000)}` };
  const offered = ((r.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
  const text = lastUserText(r);
  const call = (code: string): ScriptedReply => ({ content: 'Running it. ', toolCalls: [{ id: `call_${++callNo}`, name: 'execute_code', arguments: JSON.stringify({ code }) }] });
  if (!offered.includes('execute_code')) return { content: `No sandbox here; tools: ${offered.join(',')}` };
  if (/compute/i.test(text)) {
    return call('import matplotlib\nmatplotlib.use("Agg")\nimport matplotlib.pyplot as plt\nanswer = sum(i * i for i in range(1, 11))\nprint("answer", answer)\nplt.plot([1, 2, 3], [answer, answer / 2, answer / 3])\nplt.title("answer")');
  }
  if (/double/i.test(text)) return call('print("doubled", answer * 2)');
  if (/read the note/i.test(text)) {
    const path = /workspace at (data\/[^\s]+) \(/.exec(text)?.[1] ?? 'data/missing.txt';
    return call(`print(open(${JSON.stringify(path)}).read().upper())`);
  }
  if (/csv/i.test(text)) {
    const path = /workspace at (data\/[^\s]+) \(/.exec(text)?.[1] ?? 'data/missing.csv';
    return call(`import pandas as pd\ndf = pd.read_csv(${JSON.stringify(path)})\nprint("rows", len(df), "total", int(df["revenue"].sum()))\ndf.plot(x="region", y="revenue", kind="bar")`);
  }
  return { content: 'Nothing to run.' };
}

async function api(method: string, path: string, body?: unknown, tok = token): Promise<{ status: number; body: unknown; raw: Buffer; headers: Headers }> {
  const r = await fetch(stack.url + path, {
    method, headers: { authorization: `Bearer ${tok}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const raw = Buffer.from(await r.arrayBuffer());
  let parsed: unknown = null;
  try { parsed = raw.length ? JSON.parse(raw.toString('utf8')) : null; } catch { parsed = raw.toString('utf8'); }
  return { status: r.status, body: parsed, raw, headers: r.headers };
}

/** POST /v1/chat/stream and parse the SSE records. */
async function chatStream(body: unknown, tok = token): Promise<{ status: number; events: Array<{ type: string; data: Json }>; text: string }> {
  const r = await fetch(`${stack.url}/v1/chat/stream`, { method: 'POST', headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await r.text();
  if (r.status !== 200) return { status: r.status, events: [], text };
  const events = text.split('\n\n').filter((b) => /^data: /m.test(b)).map((b) => ({
    type: /^event: (.+)$/m.exec(b)?.[1] ?? '', data: JSON.parse(/^data: (.+)$/m.exec(b)![1]!) as Json,
  }));
  return { status: r.status, events, text };
}

/** Poll `fn` until it returns a truthy value (at most `ms`). */
async function eventually<T>(fn: () => Promise<T | null | undefined | false>, ms = 30_000, every = 200): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Tool names the runtime offers now. */
async function toolNames(): Promise<string[]> {
  const t = await api('GET', '/v1/tools');
  return ((t.body as { items?: Array<{ name: string }> }).items ?? []).map((x) => x.name);
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

before(async () => {
  if (skip) return;
  llm = await startScriptedLlm({ script });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false', SANDBOX_WARM_POOL: '1' });
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' })).status < 300);
  // The sandbox's tools plug in once it answers /readyz (its engine and image are there).
  await eventually(async () => { const names = await toolNames(); return SANDBOX_TOOLS.every((n) => names.includes(n)); }, 60_000);
});
after(async () => { await stack?.stop(); await llm?.close(); });

let sessionId = '';

test('(a) execute_code: stdout in the tool result, ONE artifact event, the figure fetched through the gateway, committed in the sealed receipt', { skip: skip ?? false }, async () => {
  const listed = ((await api('GET', '/v1/tools')).body as { items: Array<{ name: string; policy: string }> }).items;
  for (const n of SANDBOX_TOOLS) assert.equal(listed.find((t) => t.name === n)?.policy, 'auto', `${n} runs without an approval click by default`);

  const r = await chatStream({ messages: [{ role: 'user', content: 'Please compute the sum of squares and plot it.' }] });
  assert.equal(r.status, 200, r.text);
  const types = r.events.map((e) => e.type);
  assert.equal(types.at(-1), 'done', types.join(','));
  sessionId = String(r.events.find((e) => e.type === 'session_created')!.data.session_id);
  const result = r.events.find((e) => e.type === 'tool_result')!.data;
  assert.equal(result.tool, 'execute_code');
  const run = JSON.parse(String(result.result)) as { stdout: string; exit_code: number; files: Array<{ name: string; mime: string }> };
  assert.equal(run.stdout, 'answer 385\n');
  assert.equal(run.exit_code, 0);
  assert.equal(run.files.length, 1);
  assert.match(run.files[0]!.name, /^output\/figure-.*\.png$/);

  const arts = r.events.filter((e) => e.type === 'artifact');
  assert.equal(arts.length, 1, 'one artifact event for the call');
  assert.deepEqual(Object.keys(arts[0]!.data).sort(), ['artifacts', 'call_id']);
  assert.equal(arts[0]!.data.call_id, result.call_id);
  assert.ok(types.indexOf('artifact') < types.indexOf('tool_result'));
  const fig = (arts[0]!.data.artifacts as Array<{ name: string; mime: string; bytes: number; sha256: string; url: string }>)[0]!;
  assert.equal(fig.name, run.files[0]!.name);
  assert.equal(fig.mime, 'image/png');
  const turnId = String((r.events.at(-1)!.data.receipt as { turn_id: string }).turn_id);
  assert.match(fig.url, new RegExp(`^/v1/audit/turns/${turnId}/artifacts/[0-9A-Z]+/file-1-figure-`));

  // The user fetches the figure through the gateway; the bytes are a PNG with the announced digest.
  const got = await api('GET', fig.url);
  assert.equal(got.status, 200);
  assert.equal(got.headers.get('content-type'), 'image/png');
  assert.equal(got.raw.length, fig.bytes);
  assert.equal(sha256(got.raw), fig.sha256);
  assert.deepEqual([...got.raw.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.equal(got.headers.get('x-content-sha256'), fig.sha256);

  // tool_returned commits the digest; the sealed receipt includes that event and verifies.
  const bundle = await eventually(async () => {
    const b = await api('GET', `/v1/receipts/${turnId}/bundle`);
    return b.status === 200 ? b.body as { detail: { receipt: { status: string }; envelope: { payload: { event_ids: string[] } }; events: Array<{ event_id: string; payload_type: string; payload_json: string }> } } : null;
  });
  const returned = bundle.detail.events.find((e) => e.payload_type === 'tool_returned')!;
  const payload = JSON.parse(returned.payload_json) as { call_id: string; artifacts: Array<{ name: string; sha256: string; bytes: number; kind: string }> };
  assert.equal(payload.call_id, result.call_id);
  assert.deepEqual(payload.artifacts.map((a) => [a.name, a.sha256, a.bytes]), [[fig.name, fig.sha256, fig.bytes]]);
  assert.ok(fig.url.endsWith(`/${returned.event_id}/${payload.artifacts[0]!.kind}`), 'the url names the committing event');
  assert.ok(bundle.detail.envelope.payload.event_ids.includes(returned.event_id));
  const verified = await api('POST', `/v1/receipts/${turnId}/verify`, {});
  assert.equal(verified.status, 200);
  assert.equal((verified.body as { ok: boolean }).ok, true, JSON.stringify(verified.body));
});

test('(b) a follow-up turn in the same session uses the variable of the previous call', { skip: skip ?? false }, async () => {
  assert.ok(sessionId, 'needs (a)');
  const r = await chatStream({ session_id: sessionId, messages: [{ role: 'user', content: 'Now double the answer.' }] });
  assert.equal(r.status, 200, r.text);
  const result = JSON.parse(String(r.events.find((e) => e.type === 'tool_result')!.data.result)) as { stdout: string; error: unknown };
  assert.equal(result.error, null);
  assert.equal(result.stdout, 'doubled 770\n');
  assert.equal(r.events.filter((e) => e.type === 'artifact').length, 0, 'no files, no artifact event');
  const answer = r.events.filter((e) => e.type === 'token').map((e) => String(e.data.content)).join('');
  assert.match(answer, /doubled 770/);
});

test('(c) a CSV from knowledge named by a file part is in the workspace and pandas reads it; another user\'s document is 404', { skip: skip ?? false }, async () => {
  const csv = Buffer.from('region,revenue\nnorth,120\nsouth,80\neast,45\nwest,55\n');
  const m = multipart({ title: 'Quarterly sales' }, { filename: 'sales q1.csv', contentType: 'text/csv', data: csv });
  const up = await fetch(`${stack.url}/v1/knowledge/ingest`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': m.contentType }, body: m.body });
  assert.equal(up.status, 201, await up.clone().text());
  const documentId = (await up.json() as { document_id: string }).document_id;

  const r = await fetch(`${stack.url}/v1/chat/agui/stream`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Chart the CSV I uploaded.' }, { type: 'file', document_id: documentId }] }] }),
  });
  assert.equal(r.status, 200);
  const agui = (await r.text()).split('\n\n').filter((b) => b.startsWith('data: ')).map((b) => JSON.parse(b.slice(6)) as Json);
  assert.equal(agui.at(-1)!.type, 'RUN_FINISHED', JSON.stringify(agui.filter((e) => e.type === 'RUN_ERROR')));
  const toolResult = agui.find((e) => e.type === 'TOOL_CALL_RESULT')!;
  const out = JSON.parse(String(toolResult.content)) as { stdout: string; error: unknown };
  assert.equal(out.error, null, JSON.stringify(out));
  assert.equal(out.stdout, 'rows 4 total 300\n');
  const custom = agui.filter((e) => e.type === 'CUSTOM' && e.name === 'artifact');
  assert.equal(custom.length, 1);
  const value = custom[0]!.value as { call_id: string; artifacts: Array<{ mime: string; url: string; sha256: string }> };
  assert.equal(value.call_id, toolResult.toolCallId);
  assert.equal(value.artifacts[0]!.mime, 'image/png');
  const fig = await api('GET', value.artifacts[0]!.url);
  assert.equal(sha256(fig.raw), value.artifacts[0]!.sha256);

  // The model was told where the file is; the stored message keeps the path; the file is in the workspace.
  const req = llm.requests.find((q) => /Chart the CSV/.test(lastUserText(q)))!;
  assert.match(lastUserText(req), /workspace at data\/sales_q1\.csv/);
  const threadId = String(agui.find((e) => e.type === 'RUN_FINISHED')!.threadId);
  const s = (await api('GET', `/v1/sessions/${threadId}`)).body as { messages: Array<{ role: string; parts?: Array<Json> }> };
  assert.deepEqual(s.messages[0]!.parts?.[1], { type: 'file', document_id: documentId, filename: 'sales q1.csv', path: 'data/sales_q1.csv' });

  // Another user may not read the admin's private upload: 404 document_not_found, no turn runs.
  const created = await api('POST', '/v1/admin/users', { email: 'analyst@example.com', display_name: 'Analyst', password: 'analyst-password-1', roles: ['user'] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const other = await login(stack.url, 'analyst@example.com', 'analyst-password-1');
  const before = llm.requests.length;
  const denied = await chatStream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'chart the csv' }, { type: 'file', document_id: documentId }] }] }, other);
  assert.equal(denied.status, 404, denied.text);
  assert.equal((JSON.parse(denied.text) as { code: string }).code, 'document_not_found');
  const missing = await chatStream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'csv' }, { type: 'file', document_id: 'NO_SUCH_DOCUMENT' }] }] });
  assert.equal(missing.status, 404);
  assert.equal(llm.requests.length, before, 'no model call for refused requests');
});

test('(c2) a text document (no stored original) is copied as its extracted text, <title>.txt', { skip: skip ?? false }, async () => {
  const m = multipart({ title: 'Meeting notes', content: 'ship the chart on friday' });
  const up = await fetch(`${stack.url}/v1/knowledge/ingest/text`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': m.contentType }, body: m.body });
  assert.equal(up.status, 201, await up.clone().text());
  const documentId = (await up.json() as { document_id: string }).document_id;
  const r = await chatStream({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Read the note aloud.' }, { type: 'file', document_id: documentId }] }] });
  assert.equal(r.status, 200, r.text);
  const out = JSON.parse(String(r.events.find((e) => e.type === 'tool_result')!.data.result)) as { stdout: string };
  assert.match(out.stdout, /SHIP THE CHART ON FRIDAY/);
  const patch = r.events.find((e) => e.type === 'trace_update' && 'attachments' in (e.data.patch as Json))!.data.patch as { attachments: Array<{ path: string }> };
  assert.equal(patch.attachments[0]!.path, 'data/Meeting_notes.txt');
});

test('(d) sandbox image missing: the sandbox is not ready, its tools are not offered, chat still answers', { skip: skip ?? false }, async () => {
  const llm2 = await startScriptedLlm({ script });
  const s2 = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false', SANDBOX_IMAGE: 'svc-sandbox:no-such-image' });
  try {
    const tok = await login(s2.url, ADMIN.email, ADMIN.password);
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
      const r = await fetch(s2.url + path, { method, headers: { authorization: `Bearer ${tok}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const t = await r.text();
      return { status: r.status, body: t ? JSON.parse(t) as unknown : null };
    };
    const prov = await call('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm2.baseUrl, adapter: 'chat_completions' });
    await call('PUT', '/v1/admin/inference/roles/default', { provider_id: (prov.body as { id: string }).id, model: 'scripted-model' });
    // The other plug-ins come up (knowledge, memory): discovery has run, and still no sandbox tool.
    const offered = await eventually(async () => {
      const items = ((await call('GET', '/v1/tools')).body as { items: Array<{ name: string }> }).items.map((x) => x.name);
      return items.includes('knowledge_search') && items.includes('memory_recall') ? items : null;
    }, 60_000);
    assert.deepEqual(offered.filter((n) => SANDBOX_TOOLS.includes(n)), []);
    const ready = await call('GET', '/v1/sandbox/readyz');
    assert.equal(ready.status, 503, 'a sandbox without its image is not ready');
    assert.equal((ready.body as { code: string }).code, 'not_ready');
    assert.match((ready.body as { error: string }).error, /image/i);
    const r = await fetch(`${s2.url}/v1/chat`, { method: 'POST', headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'Please compute something.' }] }) });
    assert.equal(r.status, 200);
    const answer = (await r.json() as { message: { content: string } }).message.content;
    assert.match(answer, /^No sandbox here/);
    assert.doesNotMatch(answer, /execute_code/);
  } finally {
    await s2.stop();
    await llm2.close();
  }
});
