/**
 * Key rotation through the gateway-owned admin (issue 19 item 3), on the real stack: every kind
 * (principal, captoken, audit, receipt) lists its versions with dates and fingerprints (never a key
 * value) and rotates without a restart; requests and chats keep working across the rotation (the
 * services verify the new stamps), a receipt sealed before the audit rotation still verifies, new
 * audit rows carry the new key_version; `GET /v1/receipts/keys` publishes old and new receipt keys
 * with no bearer; after a restart the rotated keys are still the current ones even though the
 * environment names other keys; an unknown kind is 404 `key_kind_unknown`, a non-admin 403.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN, callJson, login, startStack, type TestStack } from '../helpers/stack.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { eventually } from '../helpers/runtime-harness.js';
import { servicePrincipal, signStamp } from '../../services/shared/identity/principal.js';

const ENV_KEYS = {
  SVC_PRINCIPAL_KEYS: 'principal-env-key-0123456789abcdefghijklmnop',
  SVC_CAPTOKEN_KEYS: 'captoken-env-key-0123456789abcdefghijklmnopq',
  AUDIT_SIGNING_KEY: 'audit-env-key-0123456789abcdefghijklmnopqrstu',
  AUDIT_KEY_VERSION: 'v1',
};

let stack: TestStack | null = null;
let llm: ScriptedLlm | null = null;
const dirs: string[] = [];
after(async () => {
  await stack?.stop();
  await llm?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Version { version: string; fingerprint: string; created_at: string | null; retired_at: string | null; active: boolean; source: string }
interface Kind { kind: string; versions: Version[]; last_rotated_at: string | null }

function kindOf(body: { kinds: Kind[] }, kind: string): Kind {
  const k = body.kinds.find((x) => x.kind === kind);
  assert.ok(k, `kind ${kind} listed`);
  return k;
}

test('rotate principal, captoken, audit and receipt keys live; old receipts verify; rotated keys win after a restart', async () => {
  llm = await startScriptedLlm({ script: () => ({ content: 'ok' }) });
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
  dirs.push(dataDir);
  const env = { ...ENV_KEYS, SVC_DATA_DIR: dataDir, AGENT_RUNTIME_TITLES: 'false' };
  stack = await startStack(env);
  let token = await login(stack.url, ADMIN.email, ADMIN.password);
  const api = (method: string, path: string, body?: unknown) => callJson(stack!.url, token, method, path, body);

  const prov = await api('POST', '/v1/admin/inference/providers', { name: 'scripted', base_url: llm.baseUrl, adapter: 'chat_completions' });
  assert.ok(prov.status < 300, JSON.stringify(prov.body));
  assert.ok((await api('PUT', '/v1/admin/inference/roles/default', { provider_id: prov.body.id, model: 'scripted-model' })).status < 300);
  const chat = async (text: string): Promise<string> => {
    const r = await api('POST', '/v1/chat', { messages: [{ role: 'user', content: text }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.headers.get('x-svc-turn-id')!;
  };
  const verified = (turn: string) => eventually(async () => (await api('POST', `/v1/receipts/${turn}/verify`)).body?.ok === true || null, 20_000, 250);

  // Listing before any rotation: the environment's keys, a generated receipt key; no key values.
  const l0 = await api('GET', '/v1/admin/secrets');
  assert.equal(l0.status, 200, JSON.stringify(l0.body));
  assert.deepEqual(l0.body.kinds.map((k: Kind) => k.kind), ['principal', 'captoken', 'audit', 'receipt']);
  assert.equal(kindOf(l0.body, 'principal').versions[0]!.source, 'environment');
  assert.equal(kindOf(l0.body, 'audit').versions[0]!.version, 'v1');
  assert.equal(kindOf(l0.body, 'principal').last_rotated_at, null);
  const r0 = kindOf(l0.body, 'receipt').versions;
  assert.equal(r0.length, 1);
  assert.match(r0[0]!.fingerprint, /^[0-9a-f]{64}$/);
  for (const v of Object.values(ENV_KEYS)) if (v.length > 10) assert.ok(!JSON.stringify(l0.body).includes(v), 'no key value in the listing');
  // The receipt private key is mode 0600.
  const pem = readdirSync(join(dataDir, 'keys', 'receipt')).find((f) => f.endsWith('.pem'))!;
  assert.equal(statSync(join(dataDir, 'keys', 'receipt', pem)).mode & 0o777, 0o600);

  const pub0 = await fetch(`${stack.url}/v1/receipts/keys`);
  assert.equal(pub0.status, 200);
  const keys0 = await pub0.json() as { keys: Array<Record<string, unknown>> };
  assert.equal(keys0.keys.length, 1);
  assert.equal(keys0.keys[0]!.kty, 'OKP');
  assert.equal(keys0.keys[0]!.crv, 'Ed25519');
  assert.equal(keys0.keys[0]!.retired_at, undefined);
  assert.equal(keys0.keys[0]!.kid, r0[0]!.version);

  const before = await chat('before rotation');
  await verified(before);

  // Non-admin: 403; unknown kind: 404 key_kind_unknown.
  const u = await api('POST', '/v1/admin/users', { email: 'keys-user@example.test', display_name: 'U', password: 'keys-user-long-password', roles: ['user'] });
  assert.ok(u.status < 300, JSON.stringify(u.body));
  const userToken = await login(stack.url, 'keys-user@example.test', 'keys-user-long-password');
  assert.equal((await callJson(stack.url, userToken, 'GET', '/v1/admin/secrets')).status, 403);
  assert.equal((await callJson(stack.url, userToken, 'POST', '/v1/admin/secrets/principal/rotate')).status, 403);
  const bad = await api('POST', '/v1/admin/secrets/bogus/rotate');
  assert.equal(bad.status, 404);
  assert.equal(bad.body.code, 'key_kind_unknown');

  // Rotate every kind, with requests in flight around each rotation.
  const rotated: Record<string, string> = {};
  for (const kind of ['principal', 'captoken', 'audit', 'receipt']) {
    const busy = Promise.all([0, 1, 2, 3].map((i) => api('GET', i % 2 ? '/v1/user/me' : '/v1/receipts?limit=1')));
    const r = await api('POST', `/v1/admin/secrets/${kind}/rotate`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.kind, kind);
    const k = kindOf(r.body, kind);
    assert.equal(k.versions[0]!.active, true);
    assert.equal(k.versions[0]!.version, r.body.version);
    assert.ok(k.versions[1]!.retired_at, 'the previous key is retired and kept');
    assert.ok(k.last_rotated_at);
    rotated[kind] = r.body.version;
    for (const b of await busy) assert.equal(b.status, 200, `${kind}: ${JSON.stringify(b.body)}`);
    // Stamps signed with the new key are verified by the services.
    assert.equal((await api('GET', '/v1/user/me')).status, 200);
    assert.equal((await api('GET', '/v1/receipts?limit=1')).status, 200);
  }

  // The services verify a stamp signed with only the new principal key (read from the store the
  // rotation wrote), and refuse one signed with a key nobody rotated in.
  const store = JSON.parse(readFileSync(join(dataDir, 'secrets', 'rotated-keys.json'), 'utf8')) as Record<string, Array<{ key: string; version: string }>>;
  assert.equal(store.principal![0]!.version, rotated.principal);
  assert.equal(statSync(join(dataDir, 'secrets', 'rotated-keys.json')).mode & 0o777, 0o600);
  const auditPort = stack.sup.status().find((x) => x.name === 'audit')!.port;
  const direct = async (key: string): Promise<number> => (await fetch(`http://127.0.0.1:${auditPort}/v1/receipts?limit=1`, {
    headers: { authorization: `Bearer ${await stack!.serviceToken('gateway')}`, 'x-svc-principal': signStamp(servicePrincipal('gateway', 'acme'), [key]) },
  })).status;
  assert.equal(await direct(store.principal![0]!.key), 200);
  assert.equal(await direct(ENV_KEYS.SVC_PRINCIPAL_KEYS), 200, 'the retired key keeps verifying');
  assert.equal(await direct('an-unknown-key-0123456789abcdefghijklmnopq'), 401);

  // After the rotations: chats work, the receipt of before still verifies, new rows carry the new key_version.
  const afterTurn = await chat('after rotation');
  await verified(afterTurn);
  await verified(before);
  const chain = await api('GET', '/v1/admin/audit/verify?tenant_id=acme');
  assert.equal(chain.body.ok, true, JSON.stringify(chain.body));
  const rows = await api('GET', '/v1/admin/audit?limit=5');
  assert.equal(rows.body.items[0].key_version, rotated.audit);
  const oldRows = await api('GET', '/v1/admin/audit?limit=500');
  assert.ok(oldRows.body.items.some((r: { key_version: string }) => r.key_version === 'v1'), 'rows of before keep key_version v1');
  const bundle = await api('GET', `/v1/receipts/${afterTurn}/bundle`);
  assert.equal(bundle.body.proof.envelope.key_version, rotated.audit);

  const keys1 = await (await fetch(`${stack.url}/v1/receipts/keys`)).json() as { keys: Array<{ kid: string; retired_at?: string }> };
  assert.deepEqual(keys1.keys.map((k) => k.kid), [rotated.receipt, keys0.keys[0]!.kid]);
  assert.equal(keys1.keys[0]!.retired_at, undefined);
  assert.ok(keys1.keys[1]!.retired_at);

  // Rotate principal again: every retired key is kept, not only the previous one.
  const again = await api('POST', '/v1/admin/secrets/principal/rotate');
  assert.equal(kindOf(again.body, 'principal').versions.length, 3);
  rotated.principal = again.body.version;

  // Restart with the same environment: the rotated keys are still the current ones.
  await stack.stop();
  stack = await startStack(env);
  token = await login(stack.url, ADMIN.email, ADMIN.password);
  const l2 = await api('GET', '/v1/admin/secrets');
  assert.equal(l2.status, 200);
  for (const kind of ['principal', 'captoken', 'audit', 'receipt']) {
    const k = kindOf(l2.body, kind);
    assert.equal(k.versions[0]!.version, rotated[kind], `${kind} keeps its rotated key`);
    assert.equal(k.versions[0]!.active, true);
  }
  assert.equal(kindOf(l2.body, 'principal').versions.length, 3);
  assert.equal((await api('GET', '/v1/user/me')).status, 200);
  assert.equal((await api('GET', '/v1/receipts?limit=1')).status, 200);
  const third = await chat('after restart');
  await verified(third);
  await verified(before);
  const rows2 = await api('GET', '/v1/admin/audit?limit=1');
  assert.equal(rows2.body.items[0].key_version, rotated.audit);
  assert.equal((await api('GET', '/v1/admin/audit/verify?tenant_id=acme')).body.ok, true);
});
