/**
 * Files a tool call produced (issue 12 item 6) and chat file parts (issue 12 item 7), over fake
 * ports: files are bounded and re-digested, committed in `tool_returned`, stored through audit under
 * that event's id as base64, and announced by ONE `artifact` event `{call_id, artifacts: [{name,
 * mime, bytes, sha256, url}]}`; citations keep their own artifact. File parts: documents fetched as
 * the user before the turn (404 `document_not_found` when not readable), copied into the workspace
 * at `data/<name>`, and shown to the model as a note naming the path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { DomainError } from '../../../services/shared/kit/domain-error.js';
import {
  MAX_TOOL_FILE_BYTES, MAX_TOOL_FILES, type AgentRuntimeSettings, type AgentTool, type ChatMessageInput, type StreamEventMap, type StreamEventName, type ToolFile,
} from '../../../services/agent-runtime/src/contracts.js';
import { ApprovalCenter } from '../../../services/agent-runtime/src/domain/approvals.js';
import { ChatEngine, type ChatDeps, type TurnIdentity } from '../../../services/agent-runtime/src/domain/chat-engine.js';
import {
  attachmentPaths, filePartNote, modelContent, safeFileName,
} from '../../../services/agent-runtime/src/domain/chat/attach-files.js';
import { checkFiles, fileKind, storedContentType } from '../../../services/agent-runtime/src/domain/chat/tool-files.js';
import type {
  ApprovalStore, AttachmentPort, DocumentFailure, DocumentFile, MessageRow, ModelRequest, ModelResult, NewMessage, SessionRow, SessionStore,
} from '../../../services/agent-runtime/src/domain/ports.js';
import { ToolRegistry } from '../../../services/agent-runtime/src/domain/tool-registry.js';
import { ARTIFACT_KIND_PATTERN } from '../../../services/audit/src/contracts.js';
import { runtimeSettings } from '../../helpers/runtime-config.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const file = (name: string, data: Buffer, mime = 'image/png'): ToolFile => ({ name, mime, bytes: 1, sha256: '0'.repeat(64), content_base64: data.toString('base64') });

test('checkFiles recomputes size and digest, names kinds audit accepts, and enforces the caps', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const r = checkFiles([file('output/Figure 1 (final).PNG', png)]);
  assert.equal(r.kept.length, 1);
  assert.equal(r.kept[0]!.bytes, png.length, 'the stated size is not trusted');
  assert.equal(r.kept[0]!.sha256, sha(png), 'the stated digest is not trusted');
  assert.match(r.kept[0]!.kind, new RegExp(ARTIFACT_KIND_PATTERN));
  assert.equal(r.kept[0]!.kind, 'file-1-figure-1-final-.png');

  const many = checkFiles(Array.from({ length: MAX_TOOL_FILES + 3 }, (_, i) => file(`output/f${i}.txt`, Buffer.from(String(i)), 'text/plain')));
  assert.equal(many.kept.length, MAX_TOOL_FILES);
  assert.equal(many.dropped.length, 3);
  assert.equal(new Set(many.kept.map((k) => k.kind)).size, MAX_TOOL_FILES, 'kinds are unique within a call');

  const big = checkFiles([file('output/big.bin', Buffer.alloc(MAX_TOOL_FILE_BYTES + 1)), file('output/ok.bin', Buffer.alloc(10))]);
  assert.deepEqual(big.kept.map((k) => k.name), ['output/ok.bin']);
  assert.match(big.dropped[0]!, /big\.bin: larger than/);
});

test('fileKind and storedContentType: safe kinds, inert types kept, active content stored as octet-stream', () => {
  for (const name of ['output/..hidden', 'output/a b/c?d.png', 'x'.repeat(200), '', 'output/ÜBER.csv']) {
    assert.match(fileKind(3, name), new RegExp(ARTIFACT_KIND_PATTERN), name);
  }
  assert.equal(fileKind(2, ''), 'file-2');
  assert.equal(storedContentType('image/png'), 'image/png');
  assert.equal(storedContentType('text/csv; charset=utf-8'), 'text/csv');
  assert.equal(storedContentType('text/html'), 'application/octet-stream');
  assert.equal(storedContentType('image/svg+xml'), 'application/octet-stream');
  assert.equal(storedContentType('application/javascript'), 'application/octet-stream');
});

test('safeFileName and attachmentPaths: one segment, safe characters, repeated names numbered', () => {
  assert.equal(safeFileName('../../etc/passwd', 'x'), 'passwd');
  assert.equal(safeFileName('C:\\Users\\me\\sales 2024.csv', 'x'), 'sales_2024.csv');
  assert.equal(safeFileName('.bashrc', 'x'), 'bashrc');
  assert.equal(safeFileName('...', 'fallback'), 'fallback');
  assert.equal(safeFileName(`${'a'.repeat(300)}.csv`, 'x').length, 100);
  assert.ok(safeFileName(`${'a'.repeat(300)}.csv`, 'x').endsWith('.csv'));
  assert.deepEqual(attachmentPaths(['a.csv', 'A.csv', 'b', 'a.csv']), ['data/a.csv', 'data/A-2.csv', 'data/b', 'data/a-3.csv']);
});

test('modelContent: file parts become notes naming the path (or why the file is missing); other parts stay', () => {
  const parts = modelContent([
    { type: 'text', text: 'chart it' },
    { type: 'file', document_id: 'D1', filename: 'sales.csv', path: 'data/sales.csv' },
    { type: 'file', document_id: 'D2', filename: 'x.csv', error: 'sandbox down' },
  ]);
  assert.deepEqual(parts[0], { type: 'text', text: 'chart it' });
  assert.equal(parts[1]!.type, 'text');
  assert.match(String(parts[1]!.text), /"sales\.csv".*data\/sales\.csv/);
  assert.match(String(parts[2]!.text), /could not be put .*sandbox down/);
  assert.match(filePartNote({ type: 'file', document_id: 'D9' }), /knowledge document D9/);
});

// --- the engine over fake ports -------------------------------------------------------------------

class MemorySessions implements SessionStore {
  sessions = new Map<string, SessionRow>();
  msgs = new Map<string, MessageRow[]>();
  create(row: SessionRow, messages: NewMessage[] = []): void { this.sessions.set(row.id, row); this.msgs.set(row.id, []); this.appendMessages(row.id, messages); }
  get(id: string): SessionRow | undefined { return this.sessions.get(id); }
  update(): boolean { return true; }
  setGeneratedTitle(): boolean { return true; }
  delete(): boolean { return true; }
  list(): SessionRow[] { return [...this.sessions.values()]; }
  appendMessages(sessionId: string, messages: NewMessage[]): void {
    const list = this.msgs.get(sessionId)!;
    for (const m of messages) list.push({ ...m, session_id: sessionId, seq: list.length + 1 });
  }
  messages(sessionId: string): MessageRow[] { return this.msgs.get(sessionId) ?? []; }
}

const noApprovals: ApprovalStore = { insert: () => {}, get: () => undefined, decide: () => false, list: () => [], cancelPending: () => 0 };

interface Put { turnId: string; eventId: string; kind: string; content: string; contentType?: string; encoding?: string }

function engine(opts: { replies: Array<Partial<ModelResult>>; tools?: AgentTool[]; attachments?: AttachmentPort; putOk?: boolean; settings?: Partial<AgentRuntimeSettings> }) {
  const requests: ModelRequest[] = [];
  const emitted: Array<{ id: string; type: string; payload: Record<string, unknown> }> = [];
  const puts: Put[] = [];
  const sessions = new MemorySessions();
  const tools = new ToolRegistry();
  if (opts.tools) tools.register('extra', opts.tools);
  const allow = { available: true as const, decision: 'allow', reason: '', scanner_results: [], rewritten_content: null };
  const deps: ChatDeps = {
    settings: runtimeSettings(opts.settings),
    sessions,
    model: {
      async stream(body: ModelRequest): Promise<ModelResult> {
        requests.push(JSON.parse(JSON.stringify(body)) as ModelRequest);
        const r = opts.replies.shift() ?? { content: 'fallback' };
        return { content: '', reasoning: '', toolCalls: [], finishReason: 'stop', model: 'm1', usage: null, ttftMs: 1, latencyMs: 2, ...r };
      },
    },
    guardrail: { input: async () => allow, output: async () => allow },
    context: { memories: async () => ({ available: false, why: 'down' }), knowledge: async () => ({ available: false, why: 'down' }) },
    audit: {
      putArtifact: async (turnId, eventId, kind, content, contentType, encoding) => { puts.push({ turnId, eventId, kind, content, contentType, encoding }); return opts.putOk ?? true; },
      receipt: async () => null,
    },
    events: {
      emit: (_t, _p, type, payload) => { const id = `ev${emitted.length + 1}`; emitted.push({ id, type, payload: payload as Record<string, unknown> }); return id; },
      deliver: async () => true,
    },
    tools,
    policyRules: () => [],
    approvals: new ApprovalCenter(noApprovals),
    serviceUrls: {},
    serviceCall: () => async () => ({ ok: true, status: 200, body: null }),
    log: { warn: () => {} },
    ...(opts.attachments ? { attachments: opts.attachments } : {}),
  };
  return { engine: new ChatEngine(deps), requests, emitted, puts, sessions };
}

const who = (turnId: string | null = 'turn-1'): TurnIdentity => ({ tenantId: 'acme', userId: 'u1', turnId, headers: { 'x-svc-principal': 'stamp' } });

async function run(e: ChatEngine, messages: ChatMessageInput[], w = who()) {
  const events: Array<{ name: StreamEventName; data: unknown }> = [];
  const sink = <K extends StreamEventName>(name: K, data: StreamEventMap[K]): void => { events.push({ name, data }); };
  const prepared = await e.attach(await e.prepare({ messages }, w));
  const o = await e.run(prepared, sink, new AbortController().signal);
  return { o, events, names: events.map((x) => x.name) };
}

const figure = Buffer.from('not really a png, but bytes');
const plotTool: AgentTool = {
  definition: { type: 'function', function: { name: 'plot', description: 'plots', parameters: { type: 'object', properties: {} } } },
  execute: () => ({
    content: '{"stdout":"42\\n"}',
    files: [file('output/figure-1.png', figure), file('output/page.html', Buffer.from('<script>alert(1)</script>'), 'text/html')],
    citations: [{ index: 1, document_id: 'd', document_title: 't', chunk_index: 0, score: 1 }],
  }),
};

test('a tool\'s files: committed in tool_returned, stored as base64 under its id, announced by ONE artifact event before tool_result', async () => {
  const t = engine({ tools: [plotTool], replies: [{ toolCalls: [{ id: 'c1', name: 'plot', arguments: '{}' }] }, { content: 'done' }] });
  const r = await run(t.engine, [{ role: 'user', content: 'plot' }]);
  assert.equal(r.o.status, 'completed');
  const returned = t.emitted.find((e) => e.type === 'tool_returned')!;
  const committed = returned.payload.artifacts as Array<{ name: string; sha256: string; bytes: number; kind: string; mime: string }>;
  assert.deepEqual(committed.map((a) => [a.name, a.sha256, a.bytes]), [['output/figure-1.png', sha(figure), figure.length], ['output/page.html', sha(Buffer.from('<script>alert(1)</script>')), 25]]);
  const filePuts = t.puts.filter((p) => p.encoding === 'base64');
  assert.equal(filePuts.length, 2);
  assert.ok(filePuts.every((p) => p.eventId === returned.id && p.turnId === 'turn-1'), 'stored under the tool_returned event');
  assert.equal(Buffer.from(filePuts[0]!.content, 'base64').equals(figure), true);
  assert.equal(filePuts[0]!.contentType, 'image/png');
  assert.equal(filePuts[1]!.contentType, 'application/octet-stream', 'HTML is never served as HTML');
  const arts = r.events.filter((e) => e.name === 'artifact').map((e) => e.data as Record<string, unknown>);
  assert.equal(arts.length, 2, 'one files event, then the citations');
  assert.deepEqual(Object.keys(arts[0]!).sort(), ['artifacts', 'call_id']);
  assert.equal(arts[0]!.call_id, 'c1');
  const refs = arts[0]!.artifacts as Array<Record<string, unknown>>;
  assert.deepEqual(refs[0], { name: 'output/figure-1.png', mime: 'image/png', bytes: figure.length, sha256: sha(figure), url: `/v1/audit/turns/turn-1/artifacts/${returned.id}/${committed[0]!.kind}` });
  assert.equal(arts[1]!.type, 'citations');
  assert.ok(r.names.indexOf('artifact') < r.names.indexOf('tool_result'));
  const toolMsg = t.requests[1]!.messages.find((m) => m.role === 'tool')!;
  assert.equal(toolMsg.content, '{"stdout":"42\\n"}', 'the model gets the text, never the bytes');
});

test('files not stored (audit refused, or no turn id) are announced with url null', async () => {
  const t = engine({ putOk: false, tools: [plotTool], replies: [{ toolCalls: [{ id: 'c1', name: 'plot', arguments: '{}' }] }, { content: 'done' }] });
  const r = await run(t.engine, [{ role: 'user', content: 'plot' }]);
  const refs = (r.events.find((e) => e.name === 'artifact')!.data as { artifacts: Array<{ url: unknown }> }).artifacts;
  assert.deepEqual(refs.map((x) => x.url), [null, null]);
  const n = engine({ tools: [plotTool], replies: [{ toolCalls: [{ id: 'c1', name: 'plot', arguments: '{}' }] }, { content: 'done' }] });
  const rn = await run(n.engine, [{ role: 'user', content: 'plot' }], who(null));
  assert.deepEqual((rn.events.find((e) => e.name === 'artifact')!.data as { artifacts: Array<{ url: unknown }> }).artifacts.map((x) => x.url), [null, null]);
  assert.equal(n.puts.length, 0);
});

/** A fake attachment port: documents by id, copies recorded. */
function attachments(docs: Record<string, DocumentFile | DocumentFailure>, copyFails: string | null = null) {
  const copies: Array<{ tenantId: string; sessionId: string; files: Array<{ path: string; content_base64: string }>; headers: Record<string, string> }> = [];
  const fetched: Array<{ id: string; headers: Record<string, string> }> = [];
  const port: AttachmentPort = {
    document: async (id, _max, headers) => { fetched.push({ id, headers }); return docs[id] ?? { failure: 'not_found', message: 'no' }; },
    copy: async (tenantId, sessionId, files, headers) => { copies.push({ tenantId, sessionId, files, headers }); return copyFails; },
  };
  return { port, copies, fetched };
}

const csv = Buffer.from('region,revenue\nnorth,10\nsouth,32\n');
const csvDoc: DocumentFile = { document_id: 'DOC1', filename: 'Q1 sales.csv', mime: 'text/csv', bytes: csv.length, content_base64: csv.toString('base64') };

test('a file part: fetched as the user, copied into the chat\'s workspace at data/<name>, stored with its path, told to the model', async () => {
  const a = attachments({ DOC1: csvDoc });
  const t = engine({ attachments: a.port, replies: [{ content: 'ok' }] });
  const r = await run(t.engine, [{ role: 'user', content: [{ type: 'text', text: 'chart this' }, { type: 'file', document_id: 'DOC1', path: '/etc/passwd' } as never] }]);
  assert.equal(r.o.status, 'completed');
  assert.deepEqual(a.fetched, [{ id: 'DOC1', headers: { 'x-svc-principal': 'stamp' } }]);
  assert.equal(a.copies.length, 1);
  assert.deepEqual({ t: a.copies[0]!.tenantId, s: a.copies[0]!.sessionId, p: a.copies[0]!.files[0]!.path }, { t: 'acme', s: r.o.sessionId, p: 'data/Q1_sales.csv' });
  assert.equal(a.copies[0]!.files[0]!.content_base64, csv.toString('base64'));
  const stored = JSON.parse(t.sessions.messages(r.o.sessionId)[0]!.parts!) as Array<Record<string, unknown>>;
  assert.deepEqual(stored[1], { type: 'file', document_id: 'DOC1', filename: 'Q1 sales.csv', path: 'data/Q1_sales.csv' }, 'the client\'s path is replaced');
  const user = t.requests[0]!.messages.at(-1)!.content as Array<{ type: string; text: string }>;
  assert.ok(user.every((p) => p.type === 'text'), 'no file part reaches the model');
  assert.match(user[1]!.text, /data\/Q1_sales\.csv/);
  const patch = r.events.find((e) => e.name === 'trace_update' && 'attachments' in (e.data as { patch: object }).patch);
  assert.ok(patch, 'the trace says where the file went');
});

test('a file-only message is accepted; a failed copy leaves a note and the turn goes on', async () => {
  const a = attachments({ DOC1: csvDoc }, 'sandbox_image_missing');
  const t = engine({ attachments: a.port, replies: [{ content: 'ok' }] });
  const r = await run(t.engine, [{ role: 'user', content: [{ type: 'file', document_id: 'DOC1' }] }]);
  assert.equal(r.o.status, 'completed');
  const user = t.requests[0]!.messages.at(-1)!.content as Array<{ text: string }>;
  assert.match(user[0]!.text, /could not be put in the code sandbox workspace: sandbox_image_missing/);
});

test('a document the user may not read: 404 document_not_found before the turn starts, nothing copied', async () => {
  const a = attachments({ DOC1: csvDoc, DENY: { failure: 'forbidden', message: 'not yours' }, BIG: { failure: 'too_large', message: 'big' }, AWAY: { failure: 'unavailable', message: 'knowledge is away' } });
  const t = engine({ attachments: a.port, replies: [{ content: 'ok' }] });
  const attempt = async (id: string): Promise<DomainError<string>> => {
    try {
      await run(t.engine, [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'file', document_id: 'DOC1' }, { type: 'file', document_id: id }] }]);
    } catch (err) { return err as DomainError<string>; }
    throw new Error('no error');
  };
  const e404 = await attempt('NOPE');
  assert.ok(e404 instanceof DomainError);
  assert.equal(e404.code, 'document_not_found');
  assert.deepEqual(e404.extra, { document_id: 'NOPE' });
  assert.equal((await attempt('DENY')).code, 'forbidden');
  assert.equal((await attempt('BIG')).code, 'payload_too_large');
  assert.equal((await attempt('AWAY')).code, 'service_unavailable');
  assert.equal(a.copies.length, 0);
  assert.equal(t.requests.length, 0);
  assert.equal(t.sessions.sessions.size, 0, 'no session was written');
});

test('without an attachment port, file parts answer 503 service_unavailable', async () => {
  const t = engine({ replies: [{ content: 'ok' }] });
  await assert.rejects(run(t.engine, [{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'file', document_id: 'D' }] }]), (e: DomainError<string>) => e.code === 'service_unavailable');
  const plain = await run(t.engine, [{ role: 'user', content: 'no files' }]);
  assert.equal(plain.o.status, 'completed');
});
