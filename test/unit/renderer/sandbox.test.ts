/**
 * The sandbox's pure parts in the renderer (issue 12 item 9): reading a run's result defensively
 * (the sandbox's `RunResult` JSON, a prefix the stream cut at 2,000 characters, `error: ...`, an
 * error body, plain text), the call's source from streamed arguments, output cutting, artifacts
 * keyed by `call_id` in the turn reducer, the replay's URLs, and the admin panel's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRenderer } from './load.js';

interface Artifact { name: string; mime: string; bytes: number | null; sha256: string | null; url: string | null }
type RunView =
  | { kind: 'pending' }
  | { kind: 'run'; stdout: string; stderr: string; exitCode: number | null; error: { name: string; message: string; traceback: string } | null; timedOut: boolean; durationMs: number | null; restarted: boolean; runtime: string | null; artifacts: Artifact[]; truncated: boolean }
  | { kind: 'error'; message: string; code: string | null }
  | { kind: 'text'; text: string };
interface ReplayOfCall { outputUrl: string | null; urlBySha: ReadonlyMap<string, string>; urlByName: ReadonlyMap<string, string> }
interface Lenient { parseLenientJson(text: string): { value: unknown; complete: boolean } | null }
interface Sandbox {
  isSandboxRun(name: string): boolean;
  runSource(name: string, args: string): { language: string; source: string } | null;
  fencedSource(s: { language: string; source: string }): string;
  parseRunResult(text: string | null): RunView;
  runFailed(v: RunView): boolean;
  cutOutput(text: string, maxLines?: number, maxChars?: number): { text: string; cut: boolean; totalLines: number; totalChars: number };
  formatBytes(n: number | null): string;
  formatDuration(ms: number): string;
  isInlineImage(mime: string): boolean;
  safeArtifactUrl(url: string): boolean;
  baseName(name: string): string;
  toArtifact(v: unknown): Artifact | null;
  artifactsOfEvent(v: Record<string, unknown>): Artifact[];
  mergeArtifacts(a: Artifact[], b: Artifact[]): Artifact[];
  replayOfCall(replay: unknown, callId: string): ReplayOfCall;
  withReplayUrls(list: Artifact[], r: ReplayOfCall): Artifact[];
}
interface Tool { id: string; name: string; args: string; result: string | null; done: boolean; artifacts?: Artifact[] }
interface Turn { answer: { tools: Tool[]; citations: unknown[] }; status: string }
type Event = { type: string; [k: string]: unknown };
interface Reducer { startTurn(localId: string, sessionId: string | null, text: string): Turn; reduceTurn(t: Turn, e: Event): Turn }
interface AdminView {
  formatSeconds(s: number | null | undefined): string;
  formatMemory(n: number | null | undefined): string;
  memoryText(used: number | null, limit: number): string;
  readinessRows(r: Record<string, unknown>): Array<{ label: string; value: string; ok: boolean | null }>;
  sandboxReady(r: Record<string, unknown> | null): boolean;
  fixOf(r: Record<string, unknown> | null, code: string | null): string | null;
  readinessOf(body: unknown): Record<string, unknown> | null;
}

const sb = await loadRenderer<Sandbox>('chat/sandbox-result.ts');
const lj = await loadRenderer<Lenient>('chat/lenient-json.ts');
const r = await loadRenderer<Reducer>('chat/turn-reducer.ts');
const adm = await loadRenderer<AdminView>('admin/sandbox-view.ts');

const SHA = 'a'.repeat(64);
const SHA2 = 'b'.repeat(64);
const URL1 = '/v1/audit/turns/T1/artifacts/E1/figure';
const RESULT = {
  tenant_id: 'acme', session_id: 'S1', stdout: 'mean 2.5\n', stderr: '', exit_code: 0, error: null, timed_out: false, duration_ms: 41.5,
  artifacts: [{ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA }], restarted: false, runtime: 'runsc',
};

test('isSandboxRun: execute_code and bash, also namespaced; nothing else', () => {
  for (const n of ['execute_code', 'bash', 'sandbox.bash', 'sandbox__execute_code']) assert.equal(sb.isSandboxRun(n), true, n);
  for (const n of ['read_file', 'knowledge_search', 'bashful', 'my_bash_tool', '', 'constructor', '__proto__']) assert.equal(sb.isSandboxRun(n), false, n);
});

test('parseLenientJson: whole documents, prefixes closed where they end, garbage refused', () => {
  assert.deepEqual(lj.parseLenientJson('{"a":1}'), { value: { a: 1 }, complete: true });
  assert.deepEqual(lj.parseLenientJson('{"stdout":"line 1\\nline'), { value: { stdout: 'line 1\nline' }, complete: false });
  assert.deepEqual(lj.parseLenientJson('{"a":"x","b":12'), { value: { a: 'x' }, complete: false }, 'a number cut at the end is left out');
  assert.deepEqual(lj.parseLenientJson('{"a":"x","b":tr'), { value: { a: 'x' }, complete: false });
  assert.deepEqual(lj.parseLenientJson('{"a":[1,2,{"c":"d'), { value: { a: [1, 2, { c: 'd' }] }, complete: false });
  assert.deepEqual(lj.parseLenientJson('{"a":"x","ke'), { value: { a: 'x' }, complete: false }, 'a key without its value is left out');
  assert.deepEqual(lj.parseLenientJson('{"a":"\\u00e9\\u00'), { value: { a: 'é' }, complete: false }, 'a cut escape is dropped');
  assert.deepEqual(lj.parseLenientJson('{"a":"x\\'), { value: { a: 'x' }, complete: false });
  assert.deepEqual(lj.parseLenientJson('{'), { value: {}, complete: false });
  assert.equal(lj.parseLenientJson('plain text'), null);
  assert.equal(lj.parseLenientJson('{"a" 1}'), null, 'not JSON');
  assert.equal(lj.parseLenientJson('{"a":1} trailing'), null);
  assert.equal(lj.parseLenientJson('{"a":nope}'), null);
  assert.equal(lj.parseLenientJson('"a string"'), null, 'only objects and arrays at the top');
});

test('runSource: code and command from streamed arguments, even before they are complete', () => {
  assert.deepEqual(sb.runSource('execute_code', '{"code":"print(1)"}'), { language: 'python', source: 'print(1)' });
  assert.deepEqual(sb.runSource('execute_code', '{"code":"import pandas as pd\\ndf = pd.read'), { language: 'python', source: 'import pandas as pd\ndf = pd.read' });
  assert.deepEqual(sb.runSource('bash', '{"command":"ls -la"}'), { language: 'bash', source: 'ls -la' });
  assert.deepEqual(sb.runSource('bash', ''), { language: 'bash', source: '' });
  assert.deepEqual(sb.runSource('bash', '{"command":42}'), { language: 'bash', source: '' });
  assert.equal(sb.runSource('read_file', '{"path":"x"}'), null);
  // The fence outgrows any backtick run in the code, so the code cannot close it.
  assert.equal(sb.fencedSource({ language: 'python', source: 'x = "```"' }), '````python\nx = "```"\n````\n');
  assert.equal(sb.fencedSource({ language: 'bash', source: 'ls' }), '```bash\nls\n```\n');
});

test('parseRunResult: a RunResult, an exception, a timeout', () => {
  const ok = sb.parseRunResult(JSON.stringify(RESULT));
  assert.equal(ok.kind, 'run');
  if (ok.kind !== 'run') return;
  assert.equal(ok.stdout, 'mean 2.5\n');
  assert.equal(ok.exitCode, 0);
  assert.equal(ok.durationMs, 41.5);
  assert.equal(ok.runtime, 'runsc');
  assert.equal(ok.truncated, false);
  assert.deepEqual(ok.artifacts, [{ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA, url: null }]);
  assert.equal(sb.runFailed(ok), false);

  const exc = sb.parseRunResult(JSON.stringify({ ...RESULT, stdout: '', exit_code: 1, error: { name: 'ZeroDivisionError', message: 'division by zero', traceback: 'Traceback (most recent call last):\n  File "<cell>", line 1\nZeroDivisionError: division by zero' }, artifacts: [] }));
  assert.equal(exc.kind, 'run');
  if (exc.kind !== 'run') return;
  assert.equal(exc.error?.name, 'ZeroDivisionError');
  assert.match(exc.error?.traceback ?? '', /^Traceback/);
  assert.equal(sb.runFailed(exc), true);

  const slow = sb.parseRunResult(JSON.stringify({ ...RESULT, exit_code: 124, timed_out: true, restarted: true }));
  assert.equal(slow.kind === 'run' && slow.timedOut && slow.restarted, true);
  assert.equal(sb.runFailed(slow), true);
  assert.equal(sb.runFailed(sb.parseRunResult(JSON.stringify({ ...RESULT, exit_code: 2 }))), true, 'a non-zero bash status fails');
});

test('parseRunResult: the execute_code tool\'s result (files by name, notes)', () => {
  const tool = { stdout: 'ok\n', stderr: '', exit_code: 0, error: null, timed_out: false, duration_ms: 12, files: [{ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048 }], notes: ['for the model'] };
  const v = sb.parseRunResult(JSON.stringify(tool));
  assert.equal(v.kind, 'run');
  if (v.kind !== 'run') return;
  assert.deepEqual(v.artifacts, [{ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: null, url: null }]);
  assert.equal(v.runtime, null);
  assert.equal(v.restarted, false);
  // The live event (digest and URL) and the result (name only) are one file.
  const fig = { name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA, url: URL1 };
  assert.deepEqual(sb.mergeArtifacts(v.artifacts, [fig]), [fig]);
});

test('parseRunResult: the stream cut a long result at 2,000 characters', () => {
  const full = Array.from({ length: 400 }, (_, i) => `row ${i}`).join('\n');
  const long = JSON.stringify({ ...RESULT, stdout: full });
  const cut = sb.parseRunResult(long.slice(0, 2000));
  assert.equal(cut.kind, 'run');
  if (cut.kind !== 'run') return;
  assert.equal(cut.truncated, true);
  assert.ok(cut.stdout.startsWith('row 0\nrow 1\n'));
  assert.ok(cut.stdout.length > 1500 && cut.stdout.length < 2000, String(cut.stdout.length));
  assert.ok(full.startsWith(cut.stdout), 'a prefix of the real output, ending where the cut fell');
  assert.equal(cut.exitCode, null, 'the fields after the cut are unknown');
  assert.deepEqual(cut.artifacts, []);
  assert.equal(sb.runFailed(cut), false, 'unknown is not failed');
});

test('parseRunResult: pending, error forms and plain text never throw', () => {
  assert.deepEqual(sb.parseRunResult(null), { kind: 'pending' });
  assert.deepEqual(sb.parseRunResult('error: the sandbox is unavailable'), { kind: 'error', message: 'the sandbox is unavailable', code: null });
  // The runtime's form of a tool error (services/agent-runtime toolError): `error: {"error","code"}`.
  assert.deepEqual(sb.parseRunResult('error: {"error":"Docker is not running","code":"sandbox_unavailable"}'), { kind: 'error', message: 'Docker is not running', code: 'sandbox_unavailable' });
  assert.deepEqual(sb.parseRunResult('{"error":"Docker is not running","code":"sandbox_unavailable"}'), { kind: 'error', message: 'Docker is not running', code: 'sandbox_unavailable' });
  assert.deepEqual(sb.parseRunResult('{"error":{"message":"no image"},"code":"sandbox_image_missing"}'), { kind: 'error', message: 'no image', code: 'sandbox_image_missing' });
  assert.deepEqual(sb.parseRunResult('just words'), { kind: 'text', text: 'just words' });
  assert.deepEqual(sb.parseRunResult('[1,2]'), { kind: 'text', text: '[1,2]' });
  assert.deepEqual(sb.parseRunResult('{"other":true}'), { kind: 'text', text: '{"other":true}' });
  assert.equal(sb.runFailed(sb.parseRunResult('error: x')), true);
  // Wrong types are dropped, not trusted.
  const odd = sb.parseRunResult('{"stdout":5,"exit_code":"0","duration_ms":"x","artifacts":[{"name":"a.csv","sha256":"nothex","url":"https://evil.example/x"},{"nope":1}]}');
  assert.equal(odd.kind, 'run');
  if (odd.kind !== 'run') return;
  assert.equal(odd.stdout, '');
  assert.equal(odd.exitCode, null);
  assert.equal(odd.durationMs, null);
  assert.deepEqual(odd.artifacts, [{ name: 'a.csv', mime: 'text/csv', bytes: null, sha256: null, url: null }]);
});

test('cutOutput: first 80 lines / 8,192 characters; short output untouched', () => {
  assert.deepEqual(sb.cutOutput('a\nb\n'), { text: 'a\nb\n', cut: false, totalLines: 2, totalChars: 4 });
  assert.deepEqual(sb.cutOutput(''), { text: '', cut: false, totalLines: 0, totalChars: 0 });
  const rows = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
  const c = sb.cutOutput(rows);
  assert.equal(c.cut, true);
  assert.equal(c.totalLines, 200);
  assert.equal(c.text.split('\n').filter(Boolean).length, 80);
  assert.ok(c.text.startsWith('line 0\n') && c.text.endsWith('line 79\n'));
  const wide = 'x'.repeat(20_000);
  const w = sb.cutOutput(wide);
  assert.equal(w.cut, true);
  assert.equal(w.text.length, 8192);
  assert.equal(w.totalLines, 1);
  assert.equal(sb.cutOutput('a\nb\nc', 2).text, 'a\nb\n');
  const emoji = `${'x'.repeat(9)}😀tail`;
  assert.equal(sb.cutOutput(emoji, 80, 10).text, 'x'.repeat(9), 'never half a surrogate pair');
});

test('formatting and artifact rules', () => {
  assert.deepEqual([sb.formatBytes(null), sb.formatBytes(10), sb.formatBytes(2048), sb.formatBytes(5 * 1024 * 1024)], ['', '10 B', '2.0 KB', '5.0 MB']);
  assert.deepEqual([sb.formatDuration(41.5), sb.formatDuration(1234), sb.formatDuration(125_000)], ['42 ms', '1.2 s', '2 min 5 s']);
  for (const m of ['image/png', 'image/svg+xml', 'image/jpeg', 'image/gif', 'image/webp', 'IMAGE/PNG; charset=binary']) assert.equal(sb.isInlineImage(m), true, m);
  for (const m of ['text/csv', 'image/tiff', 'application/pdf', 'text/html']) assert.equal(sb.isInlineImage(m), false, m);
  assert.equal(sb.safeArtifactUrl(URL1), true);
  for (const u of ['https://evil.example/v1/audit/turns/T/artifacts/E/k', '//evil.example/x', '/v1/audit/turns/T/artifacts/E/../../../admin', '/v1/audit/turns/T/artifacts/E/%2e%2e', '/v1/admin/users', '/v1/audit/turns/T/artifacts/E/k?x=1', 'javascript:alert(1)']) {
    assert.equal(sb.safeArtifactUrl(u), false, u);
  }
  assert.equal(sb.baseName('output/sub/fig.png'), 'fig.png');
  assert.equal(sb.toArtifact({ path: 'output/r.json', size: 3 })?.mime, 'application/json', 'replay-style fields and the extension');
  assert.equal(sb.toArtifact({ name: '' }), null);
});

test('artifactsOfEvent and mergeArtifacts: a list or one artifact; one entry per file, URLs filled in', () => {
  const fig = { name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA, url: URL1 };
  assert.deepEqual(sb.artifactsOfEvent({ call_id: 'c1', artifacts: [fig, { bad: true }] }), [fig]);
  assert.deepEqual(sb.artifactsOfEvent({ call_id: 'c1', ...fig }), [fig]);
  assert.deepEqual(sb.artifactsOfEvent({ type: 'chart' }), []);
  const named = sb.toArtifact({ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA })!;
  const list = [named];
  assert.equal(sb.mergeArtifacts(list, []), list);
  assert.deepEqual(sb.mergeArtifacts(list, [fig]), [fig], 'same digest: the URL fills in');
  const both = sb.mergeArtifacts([fig], [named]);
  assert.deepEqual(both, [fig]);
  const csv = { name: 'output/data.csv', mime: 'text/csv', bytes: 10, sha256: SHA2, url: null };
  assert.deepEqual(sb.mergeArtifacts([fig], [csv]).map((a) => a.name), ['output/figure-1.png', 'output/data.csv']);
  const twin = { ...fig, name: 'output/copy.png', url: null };
  assert.deepEqual(sb.mergeArtifacts([fig], [twin]).map((a) => a.name), ['output/figure-1.png', 'output/copy.png'], 'same bytes under two names are two files');
});

test('turn reducer: artifact events attach to their call by call_id; citations and other artifacts unchanged', () => {
  const fig = { name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA, url: URL1 };
  const csv = { name: 'output/data.csv', mime: 'text/csv', bytes: 10, sha256: SHA2, url: '/v1/audit/turns/T1/artifacts/E1/data' };
  const events: Event[] = [
    { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'execute_code' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"code":"plot()"}' },
    { type: 'TOOL_CALL_END', toolCallId: 'c1' },
    { type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'bash' },
    // The artifact event comes before the result (tool-calls.ts: tool_returned, artifact, tool_result).
    { type: 'CUSTOM', name: 'artifact', value: { call_id: 'c1', artifacts: [fig] } },
    { type: 'CUSTOM', name: 'artifact', value: { call_id: 'c1', ...csv } },
    { type: 'CUSTOM', name: 'artifact', value: { call_id: 'c1', artifacts: [fig] } },
    { type: 'TOOL_CALL_RESULT', toolCallId: 'c1', content: JSON.stringify(RESULT) },
    { type: 'CUSTOM', name: 'artifact', value: { call_id: 'c9', tool: 'execute_code', artifacts: [csv] } },
    { type: 'CUSTOM', name: 'artifact', value: { call_id: 'c2', artifacts: [] } },
    { type: 'CUSTOM', name: 'artifact', value: { artifacts: [fig] } },
    { type: 'CUSTOM', name: 'artifact', value: { type: 'citations', citations: [{ index: 1, document_id: 'd1', document_title: 'Plan', chunk_index: 0 }] } },
  ];
  const t = events.reduce((acc, e) => r.reduceTurn(acc, e), r.startTurn('L1', null, 'chart it'));
  const [c1, c2, c9] = t.answer.tools;
  assert.equal(t.answer.tools.length, 3);
  assert.deepEqual(c1!.artifacts, [fig, csv], 'both files on c1, no duplicate');
  assert.equal(c1!.result, JSON.stringify(RESULT), 'the result keeps the artifacts');
  assert.equal(c1!.done, true);
  assert.equal(c2!.artifacts, undefined, 'an empty list and an event without call_id change nothing');
  assert.deepEqual(c9, { id: 'c9', name: 'execute_code', args: '', result: null, done: false, artifacts: [csv] }, 'a call not seen yet is added');
  assert.equal(t.answer.citations.length, 1);
  // A call an artifact event announced first keeps one entry when its start arrives.
  const late = r.reduceTurn(t, { type: 'TOOL_CALL_START', toolCallId: 'c9', toolCallName: 'execute_code' });
  assert.equal(late.answer.tools.length, 3);
  assert.deepEqual(late.answer.tools[2]!.artifacts, [csv]);
});

test('replayOfCall: the whole output of the call and artifact URLs by sha256', () => {
  const replay = {
    events: [
      { payload_type: 'tool_called', payload: { call_id: 'c1' }, artifacts: [{ kind: 'tool_input', sha256: 'c'.repeat(64), url: '/v1/audit/turns/T1/artifacts/E0/tool_input' }] },
      { payload_type: 'tool_returned', payload: { call_id: 'c0' }, artifacts: [{ kind: 'tool_output', sha256: 'd'.repeat(64), url: '/v1/audit/turns/T1/artifacts/E9/tool_output' }] },
      { payload_type: 'tool_returned', payload: { call_id: 'c1', artifacts: [{ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048, sha256: SHA, kind: 'sandbox-0-figure-1.png' }, { name: 'output/x.csv', kind: 'evil' }] }, artifacts: [
        { kind: 'tool_output', sha256: 'e'.repeat(64), url: '/v1/audit/turns/T1/artifacts/E1/tool_output' },
        { kind: 'sandbox-0-figure-1.png', sha256: SHA, url: URL1 },
        { kind: 'evil', sha256: SHA2, url: 'https://evil.example/x' },
      ] },
      { payload_type: 'model_response', payload: null },
    ],
  };
  const rc = sb.replayOfCall(replay, 'c1');
  assert.equal(rc.outputUrl, '/v1/audit/turns/T1/artifacts/E1/tool_output');
  assert.equal(rc.urlBySha.get(SHA), URL1);
  assert.equal(rc.urlBySha.has(SHA2), false, 'an unsafe URL is never used');
  assert.deepEqual([...rc.urlByName], [['output/figure-1.png', URL1]], 'the call\'s committed files by name; the unsafe one left out');
  assert.equal(sb.replayOfCall(replay, 'c7').outputUrl, null);
  assert.equal(sb.replayOfCall(replay, 'c7').urlByName.size, 0, 'another call\'s files are not this call\'s names');
  assert.deepEqual(sb.replayOfCall({}, 'c1'), { outputUrl: null, urlBySha: new Map(), urlByName: new Map() });
  // A stored execute_code result names its files without digests: the names find the URLs.
  const byName = sb.parseRunResult(JSON.stringify({ stdout: '', exit_code: 0, files: [{ name: 'output/figure-1.png', mime: 'image/png', bytes: 2048 }, { name: 'output/other.txt' }] }));
  assert.equal(byName.kind, 'run');
  if (byName.kind !== 'run') return;
  assert.deepEqual(sb.withReplayUrls(byName.artifacts, rc).map((a) => a.url), [URL1, null]);
  const stored = sb.parseRunResult(JSON.stringify({ ...RESULT, artifacts: [...RESULT.artifacts, { name: 'output/x.csv', mime: 'text/csv', bytes: 1, sha256: SHA2 }] }));
  assert.equal(stored.kind, 'run');
  if (stored.kind !== 'run') return;
  const filled = sb.withReplayUrls(stored.artifacts, rc);
  assert.deepEqual(filled.map((a) => a.url), [URL1, null]);
});

test('admin sandbox view: durations, memory, readiness in words, the fix', () => {
  assert.deepEqual([adm.formatSeconds(null), adm.formatSeconds(42), adm.formatSeconds(600), adm.formatSeconds(7200), adm.formatSeconds(200_000), adm.formatSeconds(-1)], ['—', '42 s', '10 min', '2.0 h', '2.3 d', '—']);
  assert.deepEqual([adm.formatMemory(null), adm.formatMemory(512), adm.formatMemory(3 * 1024 * 1024), adm.formatMemory(512 * 1024 * 1024), adm.formatMemory(2 * 1024 ** 3)], ['—', '512 B', '3.0 MB', '512 MB', '2.0 GB']);
  assert.equal(adm.memoryText(128 * 1024 * 1024, 512 * 1024 * 1024), '128 MB / 512 MB (25%)');
  assert.equal(adm.memoryText(null, 512 * 1024 * 1024), '— / 512 MB');
  const ok = { backend: 'docker', docker: 'ok', image: 'ok', runtime: 'runsc', network: 'none', fix: null };
  assert.equal(adm.sandboxReady(ok), true);
  assert.deepEqual(adm.readinessRows(ok).map((r) => [r.label, r.ok]), [['Runtime', true], ['Docker engine', true], ['Sandbox image', true], ['Network', true], ['Backend', null]]);
  assert.match(adm.readinessRows({ runtime: 'runc' })[0]!.value, /shares the host kernel/);
  const noImage = { ...ok, image: 'missing', fix: 'npm run sandbox:image' };
  assert.equal(adm.sandboxReady(noImage), false);
  assert.equal(adm.fixOf(noImage, null), 'npm run sandbox:image');
  assert.equal(adm.sandboxReady({ ...ok, docker: 'unavailable' }), false);
  assert.equal(adm.sandboxReady(null), false);
  assert.equal(adm.fixOf(null, 'sandbox_image_missing'), 'npm run sandbox:image');
  assert.equal(adm.fixOf({ ...ok, docker: 'unavailable', fix: 'sudo systemctl start docker' }, null), 'sudo systemctl start docker');
  assert.equal(adm.fixOf(ok, null), null);
  assert.deepEqual(adm.readinessOf({ status: 'ready', service: 'sandbox', docker: 'ok', runtime: 'runc' }), { docker: 'ok', runtime: 'runc' });
  assert.equal(adm.readinessOf({ status: 'ready', service: 'sandbox' }), null);
  assert.equal(adm.readinessOf(null), null);
});
