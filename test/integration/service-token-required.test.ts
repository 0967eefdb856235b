/**
 * Service-to-service tokens (issue 15 item 4; spec "Service-to-service", "Identity headers"), from
 * outside, on a whole stack whose tokens come from the embedded IdP's client_credentials grant:
 *
 * - a direct call to EVERY service port (a real route) without a service token is refused 401
 *   `service_token_missing`; with a token signed by a key the realm does not hold, or a client the
 *   receiver's allow-list does not name, 401 `service_token_invalid`; `/healthz`, `/readyz` and
 *   `/metrics` stay open; with the right service token and a stamp the route answers;
 * - the IdP issues no token to an unknown client or a wrong secret;
 * - the normal flows through the gateway still work (login, a chat turn and its sealed receipt);
 * - one service alone, its `internalAuth` pointing at a test realm, refuses a token for the wrong
 *   audience, from another issuer, of an unknown client, expired, or of a user.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { eventually } from '../helpers/runtime-harness.js';
import { startServiceIssuer } from '../helpers/service-issuer.js';
import { memoryConfig, removeDir } from '../helpers/service-configs.js';
import { stampedHeaders, testPrincipal } from '../helpers/principals.js';
import { start as startMemory } from '../../services/memory/src/index.js';
import { signStamp } from '../../services/shared/identity/principal.js';
import type { ServiceName } from '../../services/shared/services.js';

const PRINCIPAL_KEY = 'service-token-required-test-principal-key-0123456789';

/** One real, non-health route per service: method, path and body. */
const ROUTES: Record<Exclude<ServiceName, 'gateway'>, { method: string; path: string; body?: unknown }> = {
  'agent-runtime': { method: 'GET', path: '/v1/sessions' },
  guardrail: { method: 'GET', path: '/v1/guard/policy' },
  memory: { method: 'POST', path: '/v1/memory/search', body: { query: 'window seats' } },
  'inference-router': { method: 'GET', path: '/v1/internal/providers' },
  sandbox: { method: 'GET', path: '/sessions' },
  knowledge: { method: 'GET', path: '/v1/knowledge/status' },
  audit: { method: 'GET', path: '/v1/admin/audit' },
  observability: { method: 'GET', path: '/v1/generations' },
  dirauth: { method: 'GET', path: '/.well-known/jwks.json' },
  auth: { method: 'GET', path: '/v1/user/me' },
};

let stack: TestStack;
let llm: ScriptedLlm;
let admin: string;

before(async () => {
  llm = await startScriptedLlm({ script: () => ({ content: 'Tokens on every hop.' }) });
  stack = await startStack({ AGENT_RUNTIME_TITLES: 'false', SVC_PRINCIPAL_KEYS: PRINCIPAL_KEY });
  admin = await login(stack.url, ADMIN.email, ADMIN.password);
});
after(async () => { await stack?.stop(); await llm?.close(); });

function urlOf(name: ServiceName): string {
  return stack.sup.status().find((s) => s.name === name)!.url;
}

async function hit(name: Exclude<ServiceName, 'gateway'>, headers: Record<string, string> = {}): Promise<{ status: number; code: string | undefined }> {
  const r = ROUTES[name];
  const res = await fetch(urlOf(name) + r.path, {
    method: r.method,
    headers: { ...headers, ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}),
  });
  const text = await res.text();
  let code: string | undefined;
  try { code = (JSON.parse(text) as { code?: string }).code; } catch { /* not JSON */ }
  return { status: res.status, code };
}

/** An admin principal stamped with the stack's key. */
function adminStamp(): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  return { 'x-svc-principal': signStamp({ id: 'st-admin', tenant_id: 'acme', roles: ['user', 'admin'], groups: [], auth_method: 'password', iat: now, exp: now + 300 }, [PRINCIPAL_KEY]) };
}

test('every service port refuses a request without a service token; health and metrics stay open', async () => {
  for (const name of Object.keys(ROUTES) as Array<keyof typeof ROUTES>) {
    const bare = await hit(name, adminStamp());
    assert.deepEqual(bare, { status: 401, code: 'service_token_missing' }, name);
    const basic = await hit(name, { authorization: 'Basic c2VydmljZS1tZW1vcnk6eA==', ...adminStamp() });
    assert.deepEqual(basic, { status: 401, code: 'service_token_invalid' }, `${name}: not a bearer`);
    const junk = await hit(name, { authorization: 'Bearer not-a-token', ...adminStamp() });
    assert.deepEqual(junk, { status: 401, code: 'service_token_invalid' }, `${name}: junk`);
    for (const open of ['/healthz', '/readyz', '/metrics']) {
      assert.equal((await fetch(urlOf(name) + open)).status, 200, `${name}${open}`);
    }
    // The gateway's genuine token (every service takes the gateway) opens the route: it is real.
    const ok = await hit(name, { authorization: `Bearer ${await stack.serviceToken('gateway')}`, ...adminStamp() });
    assert.ok(ok.status !== 401 && ok.status !== 404 && ok.status < 500, `${name} with a token: ${ok.status} ${ok.code}`);
  }
});

test('a token the realm did not sign, or of a caller outside the allow-list, is refused', async () => {
  const realm = await startServiceIssuer({ clients: {} });
  try {
    // Right issuer string and audience, wrong key: the realm's JWKS does not verify it.
    const cfg = (await (await fetch(`${urlOf('auth')}/idp/realms/svc/.well-known/openid-configuration`)).json()) as { issuer: string };
    const forged = await realm.mint({ iss: cfg.issuer, client_id: 'service-gateway', sub: 'service-gateway' });
    assert.deepEqual(await hit('memory', { authorization: `Bearer ${forged}`, ...adminStamp() }), { status: 401, code: 'service_token_invalid' });
  } finally {
    await realm.close();
  }
  // A genuine token of the memory service: dirauth takes only the gateway and auth.
  const memoryToken = await stack.serviceToken('memory');
  assert.deepEqual(await hit('dirauth', { authorization: `Bearer ${memoryToken}` }), { status: 401, code: 'service_token_invalid' });
  // The same token is good where memory is a real caller (audit takes every service).
  const audit = await hit('audit', { authorization: `Bearer ${memoryToken}`, ...adminStamp() });
  assert.notEqual(audit.status, 401);
});

test('the IdP gives no service token to an unknown client or a wrong secret', async () => {
  const tokenUrl = `${urlOf('auth')}/idp/realms/svc/protocol/openid-connect/token`;
  const ask = (id: string, secret: string): Promise<Response> => fetch(tokenUrl, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  assert.equal((await ask('service-nobody', 'whatever-secret-0123456789')).status, 401);
  assert.equal((await ask('service-memory', 'wrong-secret-0123456789abcdef')).status, 401);
});

test('through the gateway everything still works: login, a chat turn, its sealed receipt', async () => {
  const prov = await callJson(stack.url, admin, 'POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status === 201 || prov.status === 200, JSON.stringify(prov.body));
  const role = await callJson(stack.url, admin, 'PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' });
  assert.ok(role.status < 300, JSON.stringify(role.body));
  const chat = await callJson(stack.url, admin, 'POST', '/v1/chat', { messages: [{ role: 'user', content: 'Hello through tokens' }] });
  assert.equal(chat.status, 200, JSON.stringify(chat.body));
  assert.equal(chat.body.message.content, 'Tokens on every hop.');
  const turn = chat.headers.get('x-svc-turn-id')!;
  const receipt = await eventually(async () => {
    const x = await callJson(stack.url, admin, 'GET', `/v1/receipts/${turn}`);
    const types = x.status === 200 ? (x.body.events as Array<{ payload_type: string }>).map((e) => e.payload_type) : [];
    return types.includes('turn_sealed') ? types : null;
  }, 15_000, 200);
  assert.ok(receipt.includes('model_invoked'));
  const v = await callJson(stack.url, admin, 'POST', `/v1/receipts/${turn}/verify`);
  assert.equal(v.status, 200);
  assert.equal(v.body.ok, true);
  // The provider never saw the user's bearer, nor a service token.
  assert.ok(llm.requests.every((r) => !String(r.headers.authorization ?? '').includes(admin)));
});

test('one service alone refuses tokens for the wrong audience, issuer, client, user or time', async () => {
  const realm = await startServiceIssuer({ clients: { 'service-memory': 'memory-secret-0123456789abcdef0123', 'service-gateway': 'gateway-secret-0123456789abcdef012' } });
  const cfg = memoryConfig({ tenantId: 'acme' }, {});
  const svc = await startMemory({ ...cfg, internalAuth: realm.config('service-memory', ['service-gateway', 'service-agent-runtime']) }, { events: false });
  try {
    const base = `http://127.0.0.1:${svc.port}`;
    const stamp = stampedHeaders(testPrincipal('u1', ['user'], 'acme'));
    const search = async (token: string | null): Promise<{ status: number; code: string }> => {
      const r = await fetch(`${base}/v1/memory/search`, {
        method: 'POST', headers: { ...stamp, 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify({ query: 'x' }),
      });
      return { status: r.status, code: ((await r.json()) as { code: string }).code };
    };
    const invalid = { status: 401, code: 'service_token_invalid' };
    assert.deepEqual(await search(null), { status: 401, code: 'service_token_missing' });
    assert.deepEqual(await search(await realm.mint({ client_id: 'service-gateway', sub: 'service-gateway', aud: 'svc-frontend' })), invalid, 'wrong audience');
    assert.deepEqual(await search(await realm.mint({ client_id: 'service-gateway', iss: 'http://127.0.0.1:1/realms/svc' })), invalid, 'other issuer');
    assert.deepEqual(await search(await realm.mint({ client_id: 'service-unknown', sub: 'service-unknown' })), invalid, 'unknown client');
    assert.deepEqual(await search(await realm.mint({ sub: 'user-1', email: 'u@example.com' })), invalid, 'a user token');
    assert.deepEqual(await search(await realm.mint({ client_id: 'service-gateway', sub: 'service-gateway' }, -5)), invalid, 'expired');
    const own = await fetch(realm.tokenUrl, {
      method: 'POST', headers: { authorization: `Basic ${Buffer.from('service-memory:memory-secret-0123456789abcdef0123').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials',
    });
    assert.deepEqual(await search(((await own.json()) as { access_token: string }).access_token), invalid, 'a genuine token of a client outside the allow-list');
    const good = await search(await realm.mint({ client_id: 'service-gateway', sub: 'service-gateway' }));
    assert.equal(good.status, 200, JSON.stringify(good));
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
  } finally {
    await svc.close();
    await realm.close();
    removeDir(cfg.dataDir);
  }
});
