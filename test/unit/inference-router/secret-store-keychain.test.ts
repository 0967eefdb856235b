/**
 * The keychain side of provider key storage (issue 4 item 1; DESIGN.md "Real parts": OS keychain
 * through keytar, the encrypted file when no keychain service exists, reported as such). keytar is
 * replaced by an in-memory fake here; test/integration/keychain.test.ts uses the real one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKeychain, type Keychain, type KeytarLike } from '../../../native/keychain.js';
import { EncryptedFileSecretStore, KeychainSecretStore, openSecretStore } from '../../../services/inference-router/src/store/secret-store.js';

function fakeKeytar(over: Partial<KeytarLike> = {}): KeytarLike & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const k = (s: string, a: string): string => `${s}\u0000${a}`;
  return {
    entries,
    getPassword: async (s, a) => entries.get(k(s, a)) ?? null,
    setPassword: async (s, a, p) => { entries.set(k(s, a), p); },
    deletePassword: async (s, a) => entries.delete(k(s, a)),
    findCredentials: async (s) => [...entries].filter(([key]) => key.startsWith(`${s}\u0000`)).map(([key, password]) => ({ account: key.split('\u0000')[1]!, password })),
    ...over,
  };
}

test('openKeychain answers null, never throws, when keytar is missing, rejects, hangs or is locked', async () => {
  const reasons: string[] = [];
  const onUnavailable = (r: string): void => { reasons.push(r); };
  assert.equal(await openKeychain('svc', { load: async () => { throw new Error('Cannot find package keytar'); }, onUnavailable }), null);
  assert.match(reasons[0]!, /keytar is not installed/);
  assert.equal(await openKeychain('svc', { load: async () => fakeKeytar({ getPassword: async () => { throw new Error('Cannot autolaunch D-Bus'); } }), onUnavailable }), null);
  assert.match(reasons[1]!, /no keychain service answers: Cannot autolaunch D-Bus/);
  const t0 = Date.now();
  assert.equal(await openKeychain('svc', { probeTimeoutMs: 50, load: async () => fakeKeytar({ getPassword: () => new Promise(() => undefined) }), onUnavailable }), null);
  assert.ok(Date.now() - t0 < 1000, 'a hanging service is given up after the probe timeout');
  assert.match(reasons[2]!, /did not answer within 50 ms/);
  assert.equal(await openKeychain('svc', { load: async () => fakeKeytar({ setPassword: async () => { throw new Error('Cannot create an item in a locked collection'); } }), onUnavailable }), null);
  assert.match(reasons[3]!, /locked collection/);
});

test('an answering keychain gets, sets, lists and deletes, and the probe leaves nothing behind', async () => {
  const kt = fakeKeytar();
  const kc = await openKeychain('svc', { load: async () => kt });
  assert.ok(kc);
  assert.equal(kt.entries.size, 0, 'probe entry removed');
  await kc.set('a', 'va');
  assert.equal(await kc.get('a'), 'va');
  assert.deepEqual(await kc.list(), [{ account: 'a', password: 'va' }]);
  assert.equal(await kc.delete('a'), true);
  assert.equal(await kc.get('a'), null);
});

test('no keychain: the encrypted file is used and the fallback is logged with its reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  const logs: string[] = [];
  const log = { info: (o: object, m: string) => { logs.push(`info ${m} ${JSON.stringify(o)}`); }, warn: (o: object, m: string) => { logs.push(`warn ${m} ${JSON.stringify(o)}`); } };
  const s = await openSecretStore(dir, { log, openKeychain: async (_svc, unavailable) => { unavailable('no keychain service answers: no D-Bus'); return null; } });
  assert.ok(s instanceof EncryptedFileSecretStore);
  assert.equal(s.kind, 'encrypted_file');
  assert.match(logs.join('\n'), /^warn OS keychain unavailable.*"reason":"no keychain service answers: no D-Bus"/m);
});

test('a keychain is chosen, serves from memory, moves keys out of the encrypted file, and a refused write changes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  const legacy = new EncryptedFileSecretStore(dir);
  legacy.set('p-old', 'sk-old-secret');
  const kt = fakeKeytar();
  await kt.setPassword('svc-test', 'p-kept', 'sk-kept');
  const logs: string[] = [];
  const log = { info: (o: object, m: string) => { logs.push(`${m} ${JSON.stringify(o)}`); }, warn: (o: object, m: string) => { logs.push(`${m} ${JSON.stringify(o)}`); } };
  const s = await openSecretStore(dir, { log, service: 'svc-test', openKeychain: (svc) => openKeychain(svc, { load: async () => kt }) });
  assert.ok(s instanceof KeychainSecretStore);
  assert.equal(s.kind, 'os_keychain');
  assert.equal(s.get('p-kept'), 'sk-kept', 'existing entries are read at open');
  assert.equal(s.get('p-old'), 'sk-old-secret', 'file entries moved in');
  assert.equal(await kt.getPassword('svc-test', 'p-old'), 'sk-old-secret');
  assert.deepEqual(new EncryptedFileSecretStore(dir).ids(), [], 'and removed from the file');
  await s.set('p1', 'sk-new');
  assert.equal(await kt.getPassword('svc-test', 'p1'), 'sk-new');
  assert.equal(s.get('p1'), 'sk-new');
  await s.delete('p1');
  assert.equal(await kt.getPassword('svc-test', 'p1'), null);
  assert.equal(s.get('p1'), null);
  assert.ok(!readFileSync(join(dir, 'secrets', 'inference-provider-keys.json'), 'utf8').includes('sk-'));
  assert.ok(!logs.join('\n').includes('sk-'), 'values are never logged');

  const refusing: Keychain = { service: 'x', get: async () => null, set: async () => { throw new Error('keychain locked'); }, delete: async () => false, list: async () => [] };
  const r = await KeychainSecretStore.open(refusing);
  await assert.rejects(Promise.resolve(r.set('p2', 'v')), /keychain locked/);
  assert.equal(r.get('p2'), null, 'the cache follows the keychain, not the attempt');
});
