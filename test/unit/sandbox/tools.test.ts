/**
 * The sandbox's agent tools and client, pure parts (issue 12 items 6 and 7): the plug-in's shape and
 * default policies, argument checks that refuse before any call, the session of a turn, output
 * cuts, the identity headers a call forwards, run deadlines, and the caps on the files a run hands
 * back (`fetchRunFiles` over a stand-in of the client's `readBinary`). The tools against the real
 * service are in test/integration/sandbox-tools.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TOOL_FILE_BYTES, MAX_TOOL_FILES, type ToolContext } from '../../../services/agent-runtime/src/contracts.js';
import { TOOL_NAME_RE } from '../../../services/agent-runtime/src/domain/tool-registry.js';
import { loadPlugin } from '../../../services/agent-runtime/src/tools/index.js';
import { SANDBOX_RUN_GRACE_MS, SandboxClient, forwardedHeaders, runDeadlineMs } from '../../../services/sandbox/src/client.js';
import type { RunResult } from '../../../services/sandbox/src/contracts.js';
import { cut, fetchRunFiles, plugin, sandboxTools, sessionOf } from '../../../services/sandbox/src/tools.js';

function ctx(over: Partial<ToolContext> = {}): ToolContext {
  return {
    tenantId: 'acme', userId: 'u1', agentId: 'default', sessionId: '01JSESSION0000000000000001', turnId: 't1', callId: 'c1',
    headers: {}, serviceUrls: { sandbox: 'http://127.0.0.1:1' }, signal: new AbortController().signal,
    callService: async () => ({ ok: true, status: 200, body: null }), ...over,
  };
}

test('the plug-in: six tools with valid names, object schemas, descriptions and default policy auto', async () => {
  assert.equal(plugin.name, 'sandbox');
  assert.deepEqual(sandboxTools.map((t) => t.name), ['execute_code', 'bash', 'read_file', 'write_file', 'grep', 'glob']);
  for (const t of sandboxTools) {
    assert.equal(t.definition.function.name, t.name);
    assert.match(t.name, TOOL_NAME_RE);
    assert.equal(t.definition.function.parameters.type, 'object');
    assert.ok(t.definition.function.description.length > 60, `${t.name} explains itself`);
    assert.equal(t.policy, 'auto');
  }
  const loaded = await loadPlugin({ service: 'sandbox', moduleUrl: new URL('../../../services/sandbox/src/tools.js', import.meta.url).href });
  assert.equal(loaded?.tools.length, 6, 'the runtime loads the module as a plug-in');
});

test('bad arguments are refused with invalid_arguments before the sandbox is called (its URL is a closed port)', async () => {
  const byName = Object.fromEntries(sandboxTools.map((t) => [t.name, t]));
  const cases: Array<[string, unknown]> = [
    ['execute_code', {}], ['execute_code', { code: '  ' }], ['execute_code', { code: 'print(1)', timeout: 0 }], ['execute_code', { code: 'print(1)', timeout: 1.5 }],
    ['execute_code', { code: 'x', timeout: 301 }], ['bash', { command: '' }], ['read_file', {}], ['read_file', { path: 'a', offset: -1 }],
    ['read_file', { path: 'a', limit: 0 }], ['write_file', { path: 'a' }], ['grep', { pattern: '' }], ['grep', { pattern: 'x', path: 3 }], ['glob', {}],
  ];
  for (const [name, args] of cases) {
    const out = await byName[name]!.execute(args, ctx());
    assert.equal(out.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.equal(JSON.parse(out.content).code, 'invalid_arguments', `${name} ${JSON.stringify(args)}`);
  }
});

test('a sandbox that does not answer is a tool error the model can read (sandbox_unreachable), not a throw', async () => {
  const out = await sandboxTools[0]!.execute({ code: 'print(1)' }, ctx());
  assert.equal(out.isError, true);
  assert.equal(JSON.parse(out.content).code, 'sandbox_unreachable');
  const none = await sandboxTools[5]!.execute({ pattern: '*' }, ctx({ serviceUrls: {} }));
  assert.equal(JSON.parse(none.content).code, 'sandbox_unreachable');
});

test('session of a turn, output cuts, forwarded headers and run deadlines', () => {
  assert.deepEqual(sessionOf(ctx()), { tenant_id: 'acme', session_id: '01JSESSION0000000000000001' });
  assert.equal(cut('abc', 3), 'abc');
  assert.match(cut('abcdef', 3), /^abc\n\[cut: 3 more characters/);
  assert.deepEqual(forwardedHeaders({ 'x-svc-principal': 'p', 'x-svc-turn-id': 't', authorization: 'Bearer x', cookie: 'c', 'x-svc-cap-token': ['a', 'b'] }), { 'x-svc-principal': 'p', 'x-svc-turn-id': 't' });
  assert.equal(runDeadlineMs(undefined), 30_000 + SANDBOX_RUN_GRACE_MS);
  assert.equal(runDeadlineMs(120), 120_000 + SANDBOX_RUN_GRACE_MS);
});

function runWith(artifacts: RunResult['artifacts']): RunResult {
  return { tenant_id: 'acme', session_id: 's', stdout: '', stderr: '', exit_code: 0, error: null, timed_out: false, duration_ms: 1, artifacts, restarted: false, runtime: 'runc' };
}

test('fetchRunFiles: at most 20 files, none over 10 MiB, each read back as the user; what is left out is noted', async () => {
  const reads: string[] = [];
  const client = {
    readBinary: async (b: { path: string }) => {
      reads.push(b.path);
      if (b.path === 'output/gone.png') throw new Error('file_not_found');
      return { path: b.path, content_base64: Buffer.from(b.path).toString('base64'), mime: 'image/png', bytes: b.path.length, sha256: 'a'.repeat(64) };
    },
  } as unknown as SandboxClient;
  const arts = [
    { name: 'output/huge.bin', mime: 'application/octet-stream', bytes: MAX_TOOL_FILE_BYTES + 1, sha256: 'b'.repeat(64) },
    { name: 'output/gone.png', mime: 'image/png', bytes: 10, sha256: 'c'.repeat(64) },
    ...Array.from({ length: MAX_TOOL_FILES + 2 }, (_, i) => ({ name: `output/f${i}.png`, mime: 'image/png', bytes: 10, sha256: 'd'.repeat(64) })),
  ];
  const r = await fetchRunFiles(client, { tenant_id: 'acme', session_id: 's' }, runWith(arts), { headers: {} });
  assert.equal(r.files.length, MAX_TOOL_FILES);
  assert.ok(!reads.includes('output/huge.bin'), 'an oversized file is not even read');
  assert.equal(r.files[0]!.name, 'output/f0.png');
  assert.equal(Buffer.from(r.files[0]!.content_base64, 'base64').toString(), 'output/f0.png');
  assert.equal(r.notes.length, 4);
  assert.match(r.notes[0]!, /huge\.bin .* files over/);
  assert.match(r.notes[1]!, /gone\.png could not be read back/);
  assert.match(r.notes[2]!, /at most 20 files/);
});
