/**
 * User and tenant secrets over real sockets (issue 13 item 3; spec "Agent runtime surfaces":
 * `/v1/user/secrets`, `/v1/admin/tenant-secrets/*`): a secret is stored and never shown again (no
 * value in any answer, not in the SQLite files, not in the log), names and sizes are validated,
 * delete answers 204 then 404, a user's secrets are their own, and tenant secrets are admin-only
 * (a user gets 403 `admin_required` whatever the body).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startProfileStack, type ProfileStack } from '../helpers/profile-stack.js';
import type { SecretView } from '../../services/agent-runtime/src/contracts.js';

let s: ProfileStack;
const PLAIN = 'sk-live-PLAINTEXT-8c1d2e3f4a5b6c7d';
const PLAIN2 = 'sk-live-REPLACED-0a9b8c7d6e5f4a3b';
const TENANT_PLAIN = 'tenant-token-PLAINTEXT-77aa88bb99';
const ADMIN = { id: 'admin-1', roles: ['admin', 'user'] };

before(async () => { s = await startProfileStack(); });
after(async () => { await s.close(); });

/** Every file under `dir`, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

test('a user secret is stored, listed without its value, replaced, and never shown again', async () => {
  const put = await s.call('PUT', '/v1/user/secrets/OPENAI_API_KEY', { value: PLAIN, description: 'my OpenAI key' });
  assert.equal(put.status, 201, JSON.stringify(put.body));
  assert.deepEqual(Object.keys(put.body).sort(), ['created_at', 'description', 'name', 'updated_at']);
  assert.equal(put.body.name, 'OPENAI_API_KEY');
  assert.equal(put.body.description, 'my OpenAI key');
  const again = await s.call('PUT', '/v1/user/secrets/OPENAI_API_KEY', { value: PLAIN2 });
  assert.equal(again.status, 200, 'replaced');
  assert.equal(again.body.description, 'my OpenAI key', 'a description left out is kept');
  assert.equal(again.body.created_at, put.body.created_at);
  const list = await s.call('GET', '/v1/user/secrets');
  assert.equal(list.status, 200);
  const items = list.body.items as SecretView[];
  assert.deepEqual(items.map((i) => i.name), ['OPENAI_API_KEY']);
  assert.deepEqual(Object.keys(items[0]!).sort(), ['created_at', 'description', 'name', 'updated_at']);
  assert.ok(!JSON.stringify(list.body).includes('PLAINTEXT') && !JSON.stringify(list.body).includes('REPLACED'));
  const other = await s.call('GET', '/v1/user/secrets', undefined, { id: 'user-2' });
  assert.deepEqual(other.body.items, [], "another user's secrets are not listed");
  const cleared = await s.call('PUT', '/v1/user/secrets/OPENAI_API_KEY', { value: PLAIN2, description: null });
  assert.equal(cleared.body.description, null, 'null clears the description');
});

test('names and values are validated', async () => {
  for (const name of ['bad%20name', 'a'.repeat(65), 'semi%3Bcolon', 'sl%2Fash']) {
    const r = await s.call('PUT', `/v1/user/secrets/${name}`, { value: 'x' });
    assert.equal(r.status, 400, name);
    assert.equal(r.body.code, 'invalid_request', name);
  }
  assert.equal((await s.call('PUT', '/v1/user/secrets/ok.name-1_2', { value: 'x' })).status, 201, 'letters, digits, _ . -');
  assert.equal((await s.call('PUT', '/v1/user/secrets/EMPTY', { value: '' })).status, 400, 'empty value');
  assert.equal((await s.call('PUT', '/v1/user/secrets/NOVALUE', { description: 'x' })).status, 400, 'no value');
  assert.equal((await s.call('PUT', '/v1/user/secrets/EXTRA', { value: 'x', owner: 'y' })).status, 400, 'unknown field');
  assert.equal((await s.call('PUT', '/v1/user/secrets/MAX', { value: 'v'.repeat(16 * 1024) })).status, 201, '16 KiB fits');
  const big = await s.call('PUT', '/v1/user/secrets/BIG', { value: 'v'.repeat(16 * 1024 + 1) });
  assert.equal(big.status, 413);
  assert.equal(big.body.code, 'payload_too_large');
  const wide = await s.call('PUT', '/v1/user/secrets/WIDE', { value: '€'.repeat(6000) });
  assert.equal(wide.status, 413, 'bytes of UTF-8, not characters');
});

test('delete answers 204, then 404 secret_not_found; another user cannot delete it', async () => {
  await s.call('PUT', '/v1/user/secrets/TO_DELETE', { value: 'gone-soon' });
  const foreign = await s.call('DELETE', '/v1/user/secrets/TO_DELETE', undefined, { id: 'user-2' });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.code, 'secret_not_found');
  assert.equal((await s.call('DELETE', '/v1/user/secrets/TO_DELETE')).status, 204);
  const again = await s.call('DELETE', '/v1/user/secrets/TO_DELETE');
  assert.equal(again.status, 404);
  assert.equal(again.body.code, 'secret_not_found');
  assert.ok(!(await s.call('GET', '/v1/user/secrets')).body.items.some((i: SecretView) => i.name === 'TO_DELETE'));
});

test('tenant secrets are admin-only: a user gets 403 admin_required on every route, whatever the body', async () => {
  const probes: Array<[string, string, unknown]> = [
    ['GET', '/v1/admin/tenant-secrets', undefined],
    ['PUT', '/v1/admin/tenant-secrets/SHARED_TOKEN', { value: 'x' }],
    ['PUT', '/v1/admin/tenant-secrets/bad%20name', { nonsense: true }],
    ['DELETE', '/v1/admin/tenant-secrets/SHARED_TOKEN', undefined],
  ];
  for (const [method, path, body] of probes) {
    const r = await s.call(method, path, body);
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.code, 'admin_required', `${method} ${path}`);
  }
  const put = await s.call('PUT', '/v1/admin/tenant-secrets/SHARED_TOKEN', { value: TENANT_PLAIN, description: 'team token' }, ADMIN);
  assert.equal(put.status, 201, JSON.stringify(put.body));
  assert.equal((await s.call('PUT', '/v1/admin/tenant-secrets/SHARED_TOKEN', { value: TENANT_PLAIN }, ADMIN)).status, 200);
  const list = await s.call('GET', '/v1/admin/tenant-secrets', undefined, ADMIN);
  assert.deepEqual(list.body.items.map((i: SecretView) => i.name), ['SHARED_TOKEN']);
  assert.ok(!JSON.stringify(list.body).includes(TENANT_PLAIN));
  const mine = await s.call('GET', '/v1/user/secrets', undefined, ADMIN);
  assert.ok(!mine.body.items.some((i: SecretView) => i.name === 'SHARED_TOKEN'), 'tenant secrets are not the admin\'s own');
  assert.equal((await s.call('PUT', '/v1/admin/tenant-secrets/bad%20name', { value: 'x' }, ADMIN)).body.code, 'invalid_request');
  await s.call('PUT', '/v1/admin/tenant-secrets/TEMP', { value: 'x' }, ADMIN);
  assert.equal((await s.call('DELETE', '/v1/admin/tenant-secrets/TEMP', undefined, ADMIN)).status, 204);
  assert.equal((await s.call('DELETE', '/v1/admin/tenant-secrets/TEMP', undefined, ADMIN)).body.code, 'secret_not_found');
});

test('no plaintext in the SQLite files or the log; the data key file is 0600', async () => {
  const all = files(s.dataDir);
  const db = all.filter((f) => f.includes('agent-runtime.sqlite'));
  assert.ok(db.length >= 1, 'the runtime database exists');
  const log = all.find((f) => f.endsWith('agent-runtime.log'));
  assert.ok(log, 'the runtime log exists');
  assert.ok(readFileSync(log!).length > 0, 'the log has lines (requests are logged at info)');
  for (const f of all) {
    const bytes = readFileSync(f);
    for (const secret of [PLAIN, PLAIN2, TENANT_PLAIN]) {
      assert.equal(bytes.indexOf(Buffer.from(secret, 'utf8')), -1, `${secret.slice(0, 12)}... not in ${f}`);
    }
  }
  const keyFile = all.find((f) => f.endsWith('agent-runtime-secrets.key'));
  assert.ok(keyFile, 'SVC_SECRET_STORE=file keeps the data key in the key file');
  assert.equal(statSync(keyFile!).mode & 0o777, 0o600);
});
