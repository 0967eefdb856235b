/**
 * The chat's pure modules (renderer/src/chat): the AG-UI turn reducer, stored messages to chat
 * items (tool results folded, citations recovered), and the Markdown renderer's safety rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface Citation { index: number; document_id: string; document_title: string; chunk_index: number }
interface Tool { id: string; name: string; args: string; result: string | null; done: boolean }
interface Item {
  id: string; serverId: string | null; role: string; content: string; reasoning: string; turnId: string | null;
  receipt: { turn_id: string; status: string } | null; tools: Tool[]; approvals: Array<{ id: string }>;
  notices: Array<{ kind: string; text: string }>; citations: Citation[]; streaming: boolean;
}
interface Turn { localId: string; sessionId: string | null; turnId: string | null; user: Item; answer: Item; status: string; error: { message: string; code: string | null } | null }
type Event = { type: string; [k: string]: unknown };
interface Reducer {
  startTurn(localId: string, sessionId: string | null, text: string): Turn;
  reduceTurn(t: Turn, e: Event): Turn;
  stopTurn(t: Turn): Turn;
  failTurn(t: Turn, message: string, code: string | null): Turn;
  withTurnId(t: Turn, id: string | null): Turn;
}
interface Model {
  fromStored(messages: unknown[]): Item[];
  citationsOf(tools: Tool[]): Citation[];
  mergeCitations(a: Citation[], b: Citation[]): Citation[];
}
interface Markdown { escapeHtml(s: string): string; safeHref(h: string): boolean; renderMarkdown(t: string): string }

const r = await loadRenderer<Reducer>('chat/turn-reducer.ts');
const m = await loadRenderer<Model>('chat/model.ts');
const md = await loadRenderer<Markdown>('chat/markdown.ts');

const run = (events: Event[], sessionId: string | null = null): Turn => events.reduce((t, e) => r.reduceTurn(t, e), r.startTurn('L1', sessionId, 'hi'));

test('startTurn: the user message and a streaming, empty answer', () => {
  const t = r.startTurn('L1', 's1', 'hello');
  assert.equal(t.status, 'streaming');
  assert.equal(t.sessionId, 's1');
  assert.equal(t.user.content, 'hello');
  assert.equal(t.user.id, 'L1-u');
  assert.equal(t.answer.id, 'L1-a');
  assert.equal(t.answer.streaming, true);
  assert.equal(t.answer.role, 'assistant');
});

test('RUN_STARTED names the turn; the thread id is the session only when it differs from the run id', () => {
  assert.deepEqual([run([{ type: 'RUN_STARTED', threadId: 'T1', runId: 'T1' }]).sessionId, run([{ type: 'RUN_STARTED', threadId: 'T1', runId: 'T1' }]).turnId], [null, 'T1']);
  const t = run([{ type: 'RUN_STARTED', threadId: 'S9', runId: 'T1' }]);
  assert.equal(t.sessionId, 'S9');
  assert.equal(t.answer.turnId, 'T1');
  assert.equal(t.user.turnId, 'T1');
});

test('text, reasoning and tool calls accumulate; results attach to their call', () => {
  const t = run([
    { type: 'TEXT_MESSAGE_START', messageId: 'M1', role: 'assistant' },
    { type: 'REASONING_MESSAGE_CONTENT', delta: 'think ' },
    { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'more' },
    { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'calculator' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"x":' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '1}' },
    { type: 'TOOL_CALL_END', toolCallId: 'c1' },
    { type: 'TOOL_CALL_RESULT', toolCallId: 'c1', content: '2' },
    { type: 'TOOL_CALL_RESULT', toolCallId: 'c2', content: 'orphan' },
    { type: 'TEXT_MESSAGE_CONTENT', delta: 'Hel' },
    { type: 'TEXT_MESSAGE_CHUNK', delta: 'lo' },
    { type: 'SOMETHING_NEW' },
  ]);
  assert.equal(t.answer.serverId, 'M1');
  assert.equal(t.answer.reasoning, 'think more');
  assert.equal(t.answer.content, 'Hello');
  assert.deepEqual(t.answer.tools, [
    { id: 'c1', name: 'calculator', args: '{"x":1}', result: '2', done: true },
    { id: 'c2', name: 'tool', args: '', result: 'orphan', done: true },
  ]);
  assert.equal(t.status, 'streaming');
});

test('CUSTOM events: approvals deduplicated, block, retract, redaction, failures, citations', () => {
  const approval = { id: 'a1', tool: 'shell', status: 'pending' };
  const t = run([
    { type: 'TEXT_MESSAGE_CONTENT', delta: 'leaked' },
    { type: 'CUSTOM', name: 'approval_required', value: { approvals: [approval], session_id: 'S1' } },
    { type: 'CUSTOM', name: 'approval_required', value: { approvals: [approval] } },
    { type: 'CUSTOM', name: 'blocked', value: { reason: 'pii' } },
    { type: 'CUSTOM', name: 'retract', value: {} },
    { type: 'CUSTOM', name: 'user_redaction', value: { categories_scrubbed: ['email', 'phone'], entities_redacted: 2, display_content: 'my mail is [EMAIL]' } },
    { type: 'CUSTOM', name: 'mcp_failures', value: { failures: [{ server_name: 'files', error: 'timeout' }, {}] } },
    { type: 'CUSTOM', name: 'artifact', value: { type: 'citations', citations: [{ index: 1, document_id: 'd1', document_title: 'Plan', chunk_index: 0 }, { index: 'x' }, null] } },
    { type: 'CUSTOM', name: 'artifact', value: { type: 'citations', citations: [{ index: 1, document_id: 'd1', document_title: 'Plan', chunk_index: 0 }] } },
    { type: 'CUSTOM', name: 'artifact', value: { type: 'chart' } },
  ]);
  assert.equal(t.sessionId, 'S1');
  assert.deepEqual(t.answer.approvals.map((a) => a.id), ['a1']);
  assert.equal(t.answer.content, '', 'retracted text goes');
  assert.deepEqual(t.answer.notices, [
    { kind: 'blocked', text: 'Blocked by the guardrail: pii' },
    { kind: 'retract', text: 'The answer was retracted: policy' },
    { kind: 'mcp_failures', text: 'Tool servers failed: files (timeout), ? (error)' },
  ]);
  assert.equal(t.user.content, 'my mail is [EMAIL]');
  assert.deepEqual(t.user.notices, [{ kind: 'user_redaction', text: '2 items redacted before sending (email, phone)' }]);
  assert.deepEqual(t.answer.citations, [{ index: 1, document_id: 'd1', document_title: 'Plan', chunk_index: 0 }]);
});

test('RUN_FINISHED: the done payload sets session, receipt and message id; the turn ends', () => {
  const t = run([
    { type: 'TEXT_MESSAGE_CONTENT', delta: 'ok' },
    { type: 'RUN_FINISHED', result: { session_id: 'S2', receipt: { turn_id: 'T7', status: 'pending' }, assistant_message_id: 'M7' } },
  ]);
  assert.equal(t.status, 'done');
  assert.equal(t.answer.streaming, false);
  assert.equal(t.sessionId, 'S2');
  assert.equal(t.turnId, 'T7');
  assert.deepEqual(t.answer.receipt, { turn_id: 'T7', status: 'pending' });
  assert.equal(t.answer.serverId, 'M7');
  const plain = run([{ type: 'RUN_FINISHED' }]);
  assert.equal(plain.status, 'done');
  const failed = run([{ type: 'CUSTOM', name: 'error', value: { message: 'no model', code: 'role_not_configured' } }, { type: 'RUN_FINISHED' }]);
  assert.equal(failed.status, 'error', 'an error event makes the finish an error');
  assert.deepEqual(failed.error, { message: 'no model', code: 'role_not_configured' });
});

test('RUN_ERROR fails the turn (abort stops it); stop, fail and the turn id header', () => {
  const e = run([{ type: 'RUN_ERROR', message: 'boom', code: 'backend_unavailable' }]);
  assert.equal(e.status, 'error');
  assert.deepEqual(e.error, { message: 'boom', code: 'backend_unavailable' });
  assert.deepEqual(e.answer.notices.at(-1), { kind: 'error', text: 'boom' });
  assert.equal(run([{ type: 'RUN_ERROR', message: '' }]).error?.message, 'The turn failed.');
  const aborted = run([{ type: 'RUN_ERROR', code: 'abort' }]);
  assert.equal(aborted.status, 'stopped');
  assert.deepEqual(aborted.answer.notices, [{ kind: 'stopped', text: 'Stopped.' }]);
  assert.equal(r.stopTurn(aborted), aborted, 'only a streaming turn stops');
  const f = r.failTurn(r.startTurn('L', null, 'x'), 'unreachable', 'network_error');
  assert.equal(f.status, 'error');
  assert.equal(f.answer.streaming, false);
  const t0 = r.startTurn('L', null, 'x');
  assert.equal(r.withTurnId(t0, null), t0);
  assert.equal(r.withTurnId(t0, 'T1').answer.turnId, 'T1');
});

test('fromStored: tool messages fold into their call; tool-only assistant messages merge into the next answer', () => {
  const passages = JSON.stringify({ passages: [{ cite: '[1]', title: 'Plan', document_id: 'd1', chunk_index: 3 }, { cite: 'x', document_id: 'd2' }] });
  const items = m.fromStored([
    { id: 'm0', role: 'system', content: 'sys' },
    { id: 'm1', role: 'user', content: 'find it', turn_id: 'T1' },
    { id: 'm2', role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'knowledge_search', arguments: '{"q":"plan"}' }] },
    { id: 'm3', role: 'tool', content: passages, tool_call_id: 'c1' },
    { id: 'm4', role: 'assistant', content: 'See [1].', turn_id: 'T1', receipt: { turn_id: 'T1', status: 'sealed' } },
    { id: 'm5', role: 'assistant', content: '', tool_calls: [{ id: 'c9', name: 'calculator', arguments: '{}' }] },
  ]);
  assert.deepEqual(items.map((i) => [i.id, i.role]), [['m1', 'user'], ['m4', 'assistant'], ['tools-c9', 'assistant']]);
  const answer = items[1]!;
  assert.equal(answer.serverId, 'm4');
  assert.deepEqual(answer.tools, [{ id: 'c1', name: 'knowledge_search', args: '{"q":"plan"}', result: passages, done: true }]);
  assert.deepEqual(answer.citations, [{ index: 1, document_id: 'd1', document_title: 'Plan', chunk_index: 3 }]);
  assert.deepEqual(answer.receipt, { turn_id: 'T1', status: 'sealed' });
  assert.deepEqual(items[2]!.tools.map((t) => t.id), ['c9']);
});

test('citationsOf ignores other tools and bad JSON; mergeCitations keeps one per number and source', () => {
  assert.deepEqual(m.citationsOf([{ id: 'c', name: 'knowledge_search', args: '', result: 'not json', done: true }, { id: 'd', name: 'calc', args: '', result: '{"passages":[{"cite":"[1]","document_id":"x"}]}', done: true }]), []);
  const a = { index: 1, document_id: 'd1', document_title: 'A', chunk_index: 0 };
  const b = { index: 2, document_id: 'd1', document_title: 'A', chunk_index: 1 };
  const list = [a];
  assert.equal(m.mergeCitations(list, [a]), list, 'nothing new: the same array');
  assert.deepEqual(m.mergeCitations(list, [a, b]), [a, b]);
});

test('markdown: raw HTML shown as text, unsafe links dropped, images as links, code highlighted', () => {
  assert.equal(md.escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.equal(md.safeHref('https://example.com/x'), true);
  assert.equal(md.safeHref('mailto:a@example.com'), true);
  assert.equal(md.safeHref('javascript:alert(1)'), false);
  assert.equal(md.safeHref('/v1/admin'), false);
  assert.equal(md.safeHref('./x'), false);
  const html = md.renderMarkdown('Hi <script>alert(1)</script> **bold** [ok](https://example.com) [bad](javascript:alert(1)) ![img](https://example.com/i.png)\n\n```ts\nconst x = 1;\n```\n');
  assert.ok(!html.includes('<script>'), html);
  assert.ok(html.includes('&lt;script&gt;'));
  assert.ok(html.includes('<strong>bold</strong>'));
  assert.ok(html.includes('<a href="https://example.com" target="_blank" rel="noopener noreferrer">ok</a>'));
  assert.ok(!html.includes('javascript:'), 'the unsafe target is gone');
  assert.ok(html.includes('>bad<') || html.includes('bad'));
  assert.ok(!html.includes('<img'), 'no image fetch');
  assert.ok(html.includes('<a href="https://example.com/i.png" target="_blank" rel="noopener noreferrer">img</a>'));
  assert.match(html, /<code class="hljs language-ts"><span class="hljs-keyword">const<\/span>/);
  assert.equal(md.renderMarkdown('same'), md.renderMarkdown('same'));
});
