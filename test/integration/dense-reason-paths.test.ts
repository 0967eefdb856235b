/**
 * Regression (issue 11 item 9, "Smaller leaks"): answers to ordinary users named the install and
 * data directories: `dense_reason` (and the embedder's `reason` and `path`) of knowledge and memory
 * status, and knowledge search's `retrieval.dense_reason`. Users now read "no embedding model
 * installed"; admins still read the folders searched. `/readyz`, which needs no token, names no
 * directory either.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack } from '../helpers/stack.js';

let s: TestStack;
let adminToken: string;
let userToken: string;

before(async () => {
  // A model name no folder holds: dense retrieval is off, and the embedder's reason lists the folders.
  s = await startStack({ SVC_EMBEDDING_MODEL: 'no-such-embedding-model' });
  adminToken = await login(s.url, ADMIN.email, ADMIN.password);
  const created = await fetch(`${s.url}/v1/admin/users`, {
    method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'plain@example.com', display_name: 'Plain', password: 'plain-user-password', roles: ['user'] }),
  });
  assert.equal(created.status, 201, await created.text());
  userToken = await login(s.url, 'plain@example.com', 'plain-user-password');
});
after(async () => { await s.stop(); });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON bodies
async function call(method: string, path: string, token: string | null, body?: unknown, base = s.url): Promise<{ status: number; text: string; json: any }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, text, json: text ? JSON.parse(text) as unknown : null };
}

/** The folders the admin's reason names (`... in <dir>, <dir>; ...`), which no user answer may contain. */
function foldersOf(reason: string): string[] {
  const m = /" in (.+?); /.exec(reason);
  assert.ok(m, `no folder list in ${reason}`);
  return m[1]!.split(', ');
}

function assertNoFolders(text: string, folders: string[], what: string): void {
  for (const f of [...folders, s.dataDir]) assert.ok(!text.includes(f), `${what} names ${f}: ${text}`);
}

test('admins read the folders searched; users read "no embedding model installed" and no directory', async () => {
  const adminKnowledge = await call('GET', '/v1/knowledge/status', adminToken);
  assert.equal(adminKnowledge.status, 200);
  assert.equal(adminKnowledge.json.dense_enabled, false);
  assert.match(adminKnowledge.json.dense_reason, /no embedding model "no-such-embedding-model" in /);
  assert.ok(adminKnowledge.json.dense_reason.includes(s.dataDir), 'the admin reason names the data directory');
  const folders = foldersOf(adminKnowledge.json.dense_reason as string);
  assert.ok(folders.length >= 2, 'install and data folders are searched');

  const adminMemory = await call('GET', '/v1/memory/status', adminToken);
  assert.equal(adminMemory.status, 200);
  assert.ok((adminMemory.json.dense_reason as string).includes(s.dataDir));
  assert.ok((adminMemory.json.embedder.reason as string).includes(s.dataDir));

  const userKnowledge = await call('GET', '/v1/knowledge/status', userToken);
  assert.equal(userKnowledge.status, 200);
  assert.equal(userKnowledge.json.dense_enabled, false);
  assert.match(userKnowledge.json.dense_reason, /^no embedding model installed/);
  assert.equal(userKnowledge.json.embedder.path, null);
  assert.match(userKnowledge.json.embedder.reason, /^no embedding model installed/);
  assert.equal(userKnowledge.json.embedder.state, 'unavailable');
  assertNoFolders(userKnowledge.text, folders, 'knowledge status');

  const userMemory = await call('GET', '/v1/memory/status', userToken);
  assert.equal(userMemory.status, 200);
  assert.match(userMemory.json.dense_reason, /^no embedding model installed/);
  assert.equal(userMemory.json.embedder.path, null);
  assertNoFolders(userMemory.text, folders, 'memory status');

  const ingest = await call('POST', '/v1/knowledge/ingest/batch', userToken, { records: [{ title: 'Tea', content: 'Green tea is brewed at 80 degrees.' }] });
  assert.equal(ingest.status, 201, ingest.text);
  const userSearch = await call('POST', '/v1/knowledge/search', userToken, { query: 'green tea' });
  assert.equal(userSearch.status, 200);
  assert.equal(userSearch.json.retrieval.dense, false);
  assert.match(userSearch.json.retrieval.dense_reason, /^no embedding model installed/);
  assertNoFolders(userSearch.text, folders, 'knowledge search');
  const adminSearch = await call('POST', '/v1/knowledge/search', adminToken, { query: 'green tea' });
  assert.ok((adminSearch.json.retrieval.dense_reason as string).includes(s.dataDir));
});

test('/readyz needs no token and names no directory (services and gateway)', async () => {
  const admin = await call('GET', '/v1/knowledge/status', adminToken);
  const folders = foldersOf(admin.json.dense_reason as string);
  for (const name of ['knowledge', 'memory'] as const) {
    const url = s.sup.status().find((x) => x.name === name)!.url;
    const r = await call('GET', '/readyz', null, undefined, url);
    assert.equal(r.status, 200, `${name}: ${r.text}`);
    assert.equal(r.json.dense_retrieval, 'off');
    assert.match(r.json.dense_reason, /^no embedding model installed/, name);
    assertNoFolders(r.text, folders, `${name} /readyz`);
  }
  const gw = await call('GET', '/readyz', null);
  assert.equal(gw.status, 200);
  assertNoFolders(gw.text, folders, 'gateway /readyz');
  // The gateway's service overview, which carries readiness, is for admins only.
  assert.equal((await call('GET', '/v1/admin/status', userToken)).status, 403);
});
