/**
 * Skills' optional files (issue 17 item 2 "optional files") through the whole stack:
 * - `POST/PUT /v1/skills` take `files: [{path, content}]`, the view and the versions return them;
 *   bad paths (`..`, absolute), duplicates, more than 16 files or a file over 64 KiB are 400;
 * - `sha256` of a skill without files is exactly the SKILL.md digest as before; with files it
 *   digests the SKILL.md form followed by the file manifest (contracts `skillFileManifest`), so a
 *   changed file changes the hash and makes a new version;
 * - `load_skill {name}` answers the body and the file paths, `load_skill {name, file}` that file's
 *   content, and the sealed receipt commits the skill's hash (and the file).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ADMIN, callJson, login, startStack, type JsonAnswer, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../helpers/scripted-llm.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let bob: string;

type Msg = { role: string; content: unknown };
const messagesOf = (r: RecordedRequest): Msg[] => r.body.messages as Msg[];
const lastUser = (r: RecordedRequest): string => String([...messagesOf(r)].reverse().find((m) => m.role === 'user')?.content ?? '');
const toolTexts = (r: RecordedRequest): string[] => messagesOf(r).filter((m) => m.role === 'tool').map((m) => String(m.content));

/** The scripted model: `load <json>` calls `load_skill` with that JSON once, then answers. */
function script(r: RecordedRequest): ScriptedReply {
  const user = lastUser(r);
  if (user.startsWith('load ') && !messagesOf(r).some((m) => m.role === 'tool')) {
    return { toolCalls: [{ id: 'call-load', name: 'load_skill', arguments: user.slice('load '.length) }] };
  }
  return { content: 'ok' };
}

const api = (token: string, method: string, path: string, body?: unknown): Promise<JsonAnswer> => callJson(stack.url, token, method, path, body);
const hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const markdown = (s: { name: string; description: string; content: string }): string => `---\nname: ${s.name}\ndescription: ${JSON.stringify(s.description)}\n---\n${s.content}`;

async function until<T>(fn: () => Promise<T | null>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

before(async () => {
  llm = await startScriptedLlm({ script });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', AGENT_RUNTIME_CONTEXT_PREFETCH: 'false' });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const c = await api(admin, 'POST', '/v1/admin/users', { email: 'bob@example.test', display_name: 'bob', password: 'bob-long-password', roles: ['user'] });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  bob = await login(stack.url, 'bob@example.test', 'bob-long-password');
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('skill files: round trip, versions, validation; the hash of a file-less skill is unchanged and files are committed to', async () => {
  const plain = { name: 'plain-skill', description: 'No files here', content: '# Plain\n\nJust a body.' };
  const p = await api(bob, 'POST', '/v1/skills', plain);
  assert.equal(p.status, 201, JSON.stringify(p.body));
  assert.deepEqual(p.body.files, []);
  assert.equal(p.body.sha256, hex(markdown(plain)), 'a skill without files hashes its SKILL.md form exactly as before');

  const files = [
    { path: 'templates/nda.md', content: '# NDA template\n\nParty A and Party B. Marker TAPIR-5.' },
    { path: 'checklist.txt', content: 'term; jurisdiction; non-solicit — überprüfen' },
  ];
  const body = { name: 'nda-kit', description: 'NDA review kit with templates', content: '# NDA kit\n\nUse the template.', files };
  const s = await api(bob, 'POST', '/v1/skills', body);
  assert.equal(s.status, 201, JSON.stringify(s.body));
  assert.deepEqual(s.body.files, [files[1], files[0]], 'files come back by path');
  const manifest = [files[1]!, files[0]!].map((f) => `\n--- file ${f.path} sha256:${hex(f.content)}`).join('');
  assert.equal(s.body.sha256, hex(markdown(body) + manifest), 'with files the hash commits to them');
  assert.notEqual(s.body.sha256, hex(markdown(body)));
  const id = s.body.id as string;
  assert.deepEqual((await api(bob, 'GET', `/v1/skills/${id}`)).body.files, s.body.files);

  // A changed file is a new version with a new hash; the old version keeps its files.
  const changed = [{ path: 'checklist.txt', content: 'term; jurisdiction' }];
  const u = await api(bob, 'PUT', `/v1/skills/${id}`, { files: changed });
  assert.equal(u.status, 200, JSON.stringify(u.body));
  assert.equal(u.body.version, 2);
  assert.deepEqual(u.body.files, changed);
  assert.notEqual(u.body.sha256, s.body.sha256);
  const same = await api(bob, 'PUT', `/v1/skills/${id}`, { files: changed });
  assert.equal(same.body.version, 2, 'the same files make no new version');
  const versions = (await api(bob, 'GET', `/v1/skills/${id}/versions`)).body.items as Array<{ version: number; files: unknown[]; sha256: string }>;
  assert.deepEqual(versions.map((v) => v.version), [2, 1]);
  assert.deepEqual(versions[1]!.files, s.body.files);
  assert.equal(versions[1]!.sha256, s.body.sha256);
  // Removing the files returns to the file-less hash.
  const none = await api(bob, 'PUT', `/v1/skills/${id}`, { files: [] });
  assert.equal(none.body.sha256, hex(markdown(body)));
  assert.equal((await api(bob, 'PUT', `/v1/skills/${id}`, { files })).body.version, 4);

  // Validation: 400 with a stable code, never 5xx.
  const bad = async (f: unknown): Promise<void> => {
    const r = await api(bob, 'POST', '/v1/skills', { name: 'bad-skill', description: 'x', content: 'x', files: f });
    assert.equal(r.status, 400, `${JSON.stringify(f).slice(0, 80)} -> ${JSON.stringify(r.body)}`);
    assert.equal(r.body.code, 'invalid_request');
  };
  await bad([{ path: '../etc/passwd', content: 'x' }]);
  await bad([{ path: 'a/../b', content: 'x' }]);
  await bad([{ path: '/abs', content: 'x' }]);
  await bad([{ path: 'a', content: 'x' }, { path: 'a', content: 'y' }]);
  await bad(Array.from({ length: 17 }, (_, i) => ({ path: `f${i}.md`, content: 'x' })));
  await bad([{ path: 'big.txt', content: 'é'.repeat(40_000) }]);
  await bad([{ path: 'bin.dat', content: 'a\u0000b' }]);
  const sixteen = await api(bob, 'POST', '/v1/skills', { name: 'many-files', description: 'x', content: 'x', files: Array.from({ length: 16 }, (_, i) => ({ path: `f${i}.md`, content: 'x'.repeat(64 * 1024) })) });
  assert.equal(sixteen.status, 201, 'sixteen files of 64 KiB are allowed');
});

test('load_skill: without file the body and the file list; with file that file; the receipt commits the hash and the file', async () => {
  const skill = (await api(bob, 'GET', '/v1/skills')).body.items.find((x: { name: string }) => x.name === 'nda-kit') as { id: string; sha256: string; version: number };
  assert.ok(skill);

  const listed = await api(bob, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'load {"name":"nda-kit"}' }] });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const first = llm.requests.filter((r) => lastUser(r) === 'load {"name":"nda-kit"}' && toolTexts(r).length)[0]!;
  const body = toolTexts(first)[0]!;
  assert.match(body, /# NDA kit/);
  assert.match(body, /- checklist\.txt/);
  assert.match(body, /- templates\/nda\.md/);
  assert.doesNotMatch(body, /TAPIR-5/, 'files are not loaded with the body');

  const q = 'load {"name":"nda-kit","file":"templates/nda.md"}';
  const r = await api(bob, 'POST', '/v1/chat', { messages: [{ role: 'user', content: q }] });
  assert.equal(r.status, 200);
  const second = llm.requests.filter((x) => lastUser(x) === q && toolTexts(x).length)[0]!;
  assert.equal(toolTexts(second)[0], '# NDA template\n\nParty A and Party B. Marker TAPIR-5.');

  const missing = 'load {"name":"nda-kit","file":"nope.md"}';
  await api(bob, 'POST', '/v1/chat', { messages: [{ role: 'user', content: missing }] });
  assert.match(toolTexts(llm.requests.filter((x) => lastUser(x) === missing && toolTexts(x).length)[0]!)[0]!, /skill_file_not_found/);

  const turnId = r.headers.get('x-svc-turn-id')!;
  const returned = await until(async () => {
    const rc = await api(bob, 'GET', `/v1/receipts/${turnId}`);
    if (rc.status !== 200) return null;
    const evs = rc.body.events as Array<{ payload_type: string; payload_json: string }>;
    if (!evs.some((e) => e.payload_type === 'turn_sealed')) return null;
    return evs.filter((e) => e.payload_type === 'tool_returned').map((e) => JSON.parse(e.payload_json) as Record<string, unknown>);
  });
  const loaded = returned.find((e) => e.tool === 'load_skill')!.skill_loaded as Record<string, unknown>;
  assert.equal(loaded.skill_id, skill.id);
  assert.equal(loaded.sha256, skill.sha256);
  assert.equal(loaded.version, skill.version);
  assert.equal(loaded.file, 'templates/nda.md');
});
