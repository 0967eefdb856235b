/**
 * Permission profiles decide which knowledge a group may use (issue 13 item 8; spec "Roles and
 * groups" 4), from outside through the gateway of a whole stack: a profile naming knowledge tags
 * narrows a user's search, document list, document reads and the chat's grounding to documents
 * with those tags (their own excepted); an admin is never narrowed; deleting the profile lifts it;
 * the profile copy the runtime pushes to the knowledge service cannot be pushed by anyone else.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, login, startStack, type TestStack, callJson, type JsonAnswer } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { signStamp, type Principal } from '../../services/shared/identity/principal.js';

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;
let user: string;
const ids: Record<string, string> = {};
/** The stack's principal keys, so the test can sign a stamp as a service would. */
const PRINCIPAL_KEY = 'permission-profile-knowledge-test-principal-key-0123456789';

/** Call the stack's gateway as `token`. */
const api = (token: string, method: string, path: string, body?: unknown): Promise<JsonAnswer> => callJson(stack.url, token, method, path, body);

/** Titles of the documents a search for "zebra" finds as `token`. */
async function found(token: string): Promise<string[]> {
  const r = await api(token, 'POST', '/v1/knowledge/search', { query: 'zebra', limit: 20 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.results as Array<{ document_title: string }>).map((x) => x.document_title).sort();
}

/** Ingest one record as `token` and return its document id. */
async function ingest(token: string, title: string, content: string, tags: string[], shared: boolean): Promise<string> {
  const r = await api(token, 'POST', '/v1/knowledge/ingest/batch', {
    ...(shared ? { visibility_mode: 'shared', confirm_tenant_wide: true } : {}),
    records: [{ title, content, metadata: { tags } }],
  });
  assert.ok(r.status < 300, JSON.stringify(r.body));
  const id = JSON.stringify(r.body).match(/"document_id":"([^"]+)"/)?.[1];
  assert.ok(id, JSON.stringify(r.body));
  return id;
}

before(async () => {
  llm = await startScriptedLlm({ script: () => ({ content: 'Noted.' }) });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', SVC_PRINCIPAL_KEYS: PRINCIPAL_KEY });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
  const prov = await api(admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.equal(prov.status, 201, JSON.stringify(prov.body));
  assert.ok((await api(admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  assert.equal((await api(admin, 'POST', '/v1/admin/users', { email: 'kp@example.test', display_name: 'KP', password: 'kp-password-long', roles: ['user'] })).status, 201);
  user = await login(stack.url, 'kp@example.test', 'kp-password-long');
  ids.legal = await ingest(admin, 'Legal memo', 'The zebra clause governs termination of the lease.', ['legal'], true);
  ids.finance = await ingest(admin, 'Finance memo', 'The zebra budget for next year is approved.', ['finance'], true);
  ids.own = await ingest(user, 'My notes', 'My own zebra notes from the meeting.', [], false);
  // Indexing runs in the background: wait until every document is searchable.
  for (let i = 0; i < 100 && (await found(admin)).length < 3; i++) await new Promise((r) => setTimeout(r, 100));
});
after(async () => { await stack?.stop(); await llm?.close(); });

test('a profile naming knowledge tags narrows search, lists, reads and the chat\'s grounding; the admin is not narrowed; deleting it lifts it', async () => {
  assert.deepEqual(await found(user), ['Finance memo', 'Legal memo', 'My notes'], 'no profile: the visibility table alone');

  const prof = await api(admin, 'POST', '/v1/admin/roles/profiles', { name: 'Users: legal knowledge', roles: ['user'], knowledge: { tags: ['legal'] } });
  assert.equal(prof.status, 201, JSON.stringify(prof.body));
  try {
    const eff = await api(admin, 'GET', '/v1/admin/roles/effective?roles=user');
    assert.deepEqual(eff.body.knowledge, { audiences: [], tags: ['legal'] });
    assert.ok(eff.body.enforced.includes('knowledge'));

    assert.deepEqual(await found(user), ['Legal memo', 'My notes'], 'only legal documents, and the user\'s own');
    assert.deepEqual(await found(admin), ['Finance memo', 'Legal memo', 'My notes'], 'admins are never narrowed');
    const list = await api(user, 'GET', '/v1/knowledge/documents');
    assert.equal(list.status, 200);
    const listed = JSON.stringify(list.body);
    assert.ok(listed.includes(ids.legal!) && listed.includes(ids.own!) && !listed.includes(ids.finance!), listed);
    assert.equal((await api(user, 'GET', `/v1/knowledge/documents/${ids.finance}`)).status, 404);
    assert.equal((await api(user, 'GET', `/v1/knowledge/documents/${ids.legal}`)).status, 200);

    // The chat's grounding: the prefetch puts only what the user may use in front of the model.
    const n = llm.requests.length;
    const chat = await api(user, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'What do we know about the zebra?' }] });
    assert.equal(chat.status, 200, JSON.stringify(chat.body));
    const prompt = JSON.stringify(llm.requests.slice(n).map((r) => r.body.messages));
    assert.ok(prompt.includes('zebra clause'), 'the legal memo grounds the answer');
    assert.ok(!prompt.includes('zebra budget'), 'the finance memo never reaches the model');
  } finally {
    assert.equal((await api(admin, 'DELETE', `/v1/admin/roles/profiles/${prof.body.id}`)).status, 204);
  }
  assert.deepEqual(await found(user), ['Finance memo', 'Legal memo', 'My notes'], 'the profile deleted: the narrowing is lifted');
});

test('only the agent runtime pushes the profile copy to the knowledge service', async () => {
  const knowledge = stack.sup.status().find((x) => x.name === 'knowledge')!.url;
  const now = Math.floor(Date.now() / 1000);
  const as = async (p: Principal): Promise<Response> => fetch(`${knowledge}/v1/internal/knowledge/access-profiles`, {
    // Issue 15 item 4: the agent runtime's service token; the stamp decides who may push.
    method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${await stack.serviceToken('agent-runtime')}`, 'x-svc-principal': signStamp(p, [PRINCIPAL_KEY]) },
    body: JSON.stringify({ profiles: [] }),
  });
  for (const p of [
    { id: 'kp-user', tenant_id: 'acme', roles: ['user', 'admin'], groups: [], auth_method: 'password', iat: now, exp: now + 300 },
    { id: 'service:memory', tenant_id: 'acme', roles: [], groups: [], auth_method: 'service', iat: now, exp: now + 300 },
  ] satisfies Principal[]) {
    const r = await as(p);
    assert.equal(r.status, 403, p.id);
    assert.equal(((await r.json()) as { code: string }).code, 'service_account_required', p.id);
  }
  const ok = await as({ id: 'service:agent-runtime', tenant_id: 'acme', roles: [], groups: [], auth_method: 'service', iat: now, exp: now + 300 });
  assert.equal(ok.status, 200);
  // Through the gateway the internal route does not exist for a user.
  assert.notEqual((await api(user, 'PUT', '/v1/internal/knowledge/access-profiles', { profiles: [] })).status, 200);
});
