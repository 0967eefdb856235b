/**
 * Secrets at rest (issue 13 item 3): AES-256-GCM sealing bound to tenant, user and name; the vault
 * over the real SQLite store (migration 0003) with `resolve` (user first, then tenant), a moved
 * ciphertext that does not open, a keyring that fails and recovers; and the data keyring: the key
 * file (0600) and the OS keychain through an injected keychain (the key moved out of the file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SecretVault, seal, secretAad, unseal, type DataKeyring } from '../../../services/agent-runtime/src/domain/secrets.js';
import { KEYCHAIN_ACCOUNT, keyFileOf, keyId, openDataKeyring } from '../../../services/agent-runtime/src/store/secret-key.js';
import { openRuntimeStore } from '../../../services/agent-runtime/src/store/runtime-store.js';
import type { Keychain } from '../../../native/keychain.js';

const quiet = { info: () => {}, warn: () => {} };

/** An in-memory keychain (stands in for keytar). */
function memoryKeychain(service: string): Keychain & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    service, entries,
    get: async (a) => entries.get(a) ?? null,
    set: async (a, v) => { entries.set(a, v); },
    delete: async (a) => entries.delete(a),
    list: async () => [...entries].map(([account, password]) => ({ account, password })),
  };
}

test('seal/unseal: a value opens only with its key and its tenant, user and name', () => {
  const key = randomBytes(32);
  const aad = secretAad('acme', 'u1', 'TOKEN');
  const s = seal(key, aad, 'hello');
  assert.equal(unseal(key, aad, s), 'hello');
  assert.notDeepEqual(seal(key, aad, 'hello').iv, s.iv, 'a fresh IV per write');
  assert.throws(() => unseal(key, secretAad('acme', 'u2', 'TOKEN'), s));
  assert.throws(() => unseal(key, secretAad('acme', null, 'TOKEN'), s));
  assert.throws(() => unseal(key, secretAad('acme', 'u1', 'OTHER'), s));
  assert.throws(() => unseal(randomBytes(32), aad, s));
  assert.notDeepEqual(secretAad('a|b', 'c', 'n'), secretAad('a', 'b|c', 'n'), 'unambiguous');
});

test('the vault: put, list, resolve user first then tenant, delete; a moved ciphertext does not open', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-unit-'));
  const store = openRuntimeStore({ dbDir: dir, migrationsDir: join(process.cwd(), 'migrations') });
  const warnings: string[] = [];
  try {
    let opens = 0;
    const vault = new SecretVault({
      store: store.secrets, log: { warn: (_o, m) => { warnings.push(m); } },
      openKeyring: () => { opens++; return openDataKeyring(dir, { mode: 'file' }); },
    });
    assert.deepEqual(await vault.put({ tenantId: 't', userId: null }, 'API', { value: 'tenant-value' }).then((r) => r.created), true);
    assert.equal(await vault.resolve('t', 'u1', 'API'), 'tenant-value', 'the tenant secret when the user has none');
    await vault.put({ tenantId: 't', userId: 'u1' }, 'API', { value: 'user-value', description: 'mine' });
    assert.equal(await vault.resolve('t', 'u1', 'API'), 'user-value', "the user's first");
    assert.equal(await vault.resolve('t', 'u2', 'API'), 'tenant-value');
    assert.equal(await vault.resolve('t', null, 'API'), 'tenant-value');
    assert.equal(await vault.resolve('other', 'u1', 'API'), null, 'tenants apart');
    assert.equal(await vault.resolve('t', 'u1', 'MISSING'), null);
    assert.equal(await vault.resolve('t', 'u1', '../etc'), null, 'not a name');
    assert.equal(opens, 1, 'the keyring is opened once');
    assert.deepEqual((await vault.list({ tenantId: 't', userId: 'u1' })).map((s) => [s.name, s.description]), [['API', 'mine']]);

    // Copy u1's ciphertext into u2's row: the AAD no longer matches, so it does not open.
    const row = store.secrets.get('t', 'u1', 'API')!;
    assert.ok(!row.ciphertext.toString('utf8').includes('user-value'));
    store.secrets.put({ ...row, user_id: 'u2' });
    await assert.rejects(vault.resolve('t', 'u2', 'API'), { code: 'secret_store_unavailable' });
    assert.ok(warnings.some((w) => w.includes('does not open')));

    await vault.delete({ tenantId: 't', userId: 'u1' }, 'API');
    await assert.rejects(() => vault.delete({ tenantId: 't', userId: 'u1' }, 'API'), { code: 'secret_not_found' });
    await assert.rejects(() => vault.delete({ tenantId: 't', userId: 'u1' }, 'bad name'), { code: 'invalid_request' });
    await assert.rejects(vault.put({ tenantId: 't', userId: 'u1' }, 'BIG', { value: 'x'.repeat(16 * 1024 + 1) }), { code: 'payload_too_large' });
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a keyring that cannot be opened answers secret_store_unavailable and is tried again later', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-unit-'));
  const store = openRuntimeStore({ dbDir: dir, migrationsDir: join(process.cwd(), 'migrations') });
  try {
    let fail = true;
    const vault = new SecretVault({
      store: store.secrets, log: quiet,
      openKeyring: async (): Promise<DataKeyring> => { if (fail) throw new Error('no keychain'); return openDataKeyring(dir, { mode: 'file' }); },
    });
    await assert.rejects(vault.put({ tenantId: 't', userId: 'u' }, 'A', { value: 'v' }), { code: 'secret_store_unavailable' });
    fail = false;
    assert.equal((await vault.put({ tenantId: 't', userId: 'u' }, 'A', { value: 'v' })).created, true);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the key file: created 0600 once and reused; SVC_SECRET_STORE=keychain without a keychain refuses', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-key-'));
  try {
    const a = await openDataKeyring(dir, { mode: 'file' });
    assert.equal(a.kind, 'encrypted_file');
    assert.equal(statSync(keyFileOf(dir)).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'secrets')).mode & 0o777, 0o700);
    const b = await openDataKeyring(dir, { mode: 'auto', openKeychain: async (_s, unavailable) => { unavailable('none here'); return null; } });
    assert.equal(b.primary.id, a.primary.id, 'the same key');
    await assert.rejects(openDataKeyring(dir, { mode: 'keychain', openKeychain: async () => null }), /SVC_SECRET_STORE=keychain/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the OS keychain holds the key when one answers; a key file from before moves into it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-key-'));
  try {
    const fileRing = await openDataKeyring(dir, { mode: 'file' });
    const chain = memoryKeychain('svc-workstation.agent-runtime');
    const ring = await openDataKeyring(dir, { log: quiet, openKeychain: async () => chain });
    assert.equal(ring.kind, 'os_keychain');
    assert.equal(ring.primary.id, fileRing.primary.id, 'the file key moved');
    assert.equal(keyId(Buffer.from(chain.entries.get(KEYCHAIN_ACCOUNT)!, 'base64')), fileRing.primary.id);
    assert.equal(existsSync(keyFileOf(dir)), false, 'the key file is gone');
    const again = await openDataKeyring(dir, { log: quiet, openKeychain: async () => chain });
    assert.equal(again.primary.id, ring.primary.id);

    // A key file with ANOTHER key (written while the keychain was away) stays readable.
    const other = await openDataKeyring(dir, { mode: 'file' });
    assert.notEqual(other.primary.id, ring.primary.id);
    const both = await openDataKeyring(dir, { log: quiet, openKeychain: async () => chain });
    assert.equal(both.primary.id, ring.primary.id, 'the keychain key seals new values');
    assert.ok(both.key(other.primary.id), 'the file key still opens old ones');
    assert.equal(existsSync(keyFileOf(dir)), true);

    const fresh = mkdtempSync(join(tmpdir(), 'svc-secrets-key-'));
    const chain2 = memoryKeychain('x');
    const r2 = await openDataKeyring(fresh, { openKeychain: async () => chain2 });
    assert.equal(r2.kind, 'os_keychain');
    assert.equal(existsSync(keyFileOf(fresh)), false, 'no file when the keychain answers');
    assert.ok(chain2.entries.has(KEYCHAIN_ACCOUNT));
    rmSync(fresh, { recursive: true, force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
