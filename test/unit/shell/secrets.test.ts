/** The shell's secret store: keytar when it answers, else the AES-GCM file; the installer handoff reader. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptedFileStore, loadDataKey, openSecretStore, type KeyWrapper } from '../../../main/app/secrets.js';
import { handoffReader } from '../../../main/app/handoff.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'svc-secrets-'));

/** A stand-in for safeStorage: reversible, marks its output. */
const wrapper: KeyWrapper = {
  isEncryptionAvailable: () => true,
  encryptString: (s) => Buffer.from(`W:${s}`),
  decryptString: (b) => { const s = b.toString(); assert.ok(s.startsWith('W:')); return s.slice(2); },
};

test('encrypted file: round trip, 0600, no plaintext on disk, tamper detected', async () => {
  const dir = tmp();
  const { key, protection } = loadDataKey(join(dir, 'k.json'), null);
  assert.equal(protection, 'file-permissions');
  const s = new EncryptedFileStore(join(dir, 's.json'), key);
  assert.equal(await s.get('refresh_token'), null);
  await s.set('refresh_token', 'very-secret-refresh-token');
  assert.equal(await s.get('refresh_token'), 'very-secret-refresh-token');
  const raw = readFileSync(join(dir, 's.json'), 'utf8');
  assert.doesNotMatch(raw, /very-secret/);
  if (process.platform !== 'win32') {
    assert.equal(statSync(join(dir, 's.json')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'k.json')).mode & 0o777, 0o600);
  }
  // Same key from the key file: a restart reads the secrets back.
  const again = new EncryptedFileStore(join(dir, 's.json'), loadDataKey(join(dir, 'k.json'), null).key);
  assert.equal(await again.get('refresh_token'), 'very-secret-refresh-token');
  await again.delete('refresh_token');
  assert.equal(await again.get('refresh_token'), null);

  await s.set('a', 'b');
  const doc = JSON.parse(readFileSync(join(dir, 's.json'), 'utf8')) as { data: string };
  const bytes = Buffer.from(doc.data, 'base64');
  bytes[0] = bytes[0]! ^ 1;
  writeFileSync(join(dir, 's.json'), JSON.stringify({ ...doc, data: bytes.toString('base64') }));
  await assert.rejects(s.get('a'));
});

test('the data key is wrapped by the OS when safeStorage is available', () => {
  const dir = tmp();
  const a = loadDataKey(join(dir, 'k.json'), wrapper);
  assert.equal(a.protection, 'os');
  assert.match(readFileSync(join(dir, 'k.json'), 'utf8'), /"wrapped"/);
  assert.deepEqual(loadDataKey(join(dir, 'k.json'), wrapper).key, a.key);
  assert.throws(() => loadDataKey(join(dir, 'k.json'), { ...wrapper, isEncryptionAvailable: () => false }), /not available/);
});

test('openSecretStore: keytar when it loads and answers, the encrypted file otherwise', async () => {
  const mem = new Map<string, string>();
  const keytar = {
    getPassword: async (s: string, a: string) => mem.get(`${s}/${a}`) ?? null,
    setPassword: async (s: string, a: string, p: string) => { mem.set(`${s}/${a}`, p); },
    deletePassword: async (s: string, a: string) => mem.delete(`${s}/${a}`),
  };
  const k = await openSecretStore({ service: 'svc', dir: tmp(), wrapper: null, loadKeytar: async () => keytar });
  assert.equal(k.kind, 'keychain');
  await k.set('refresh_token', 'x');
  assert.equal(mem.get('svc/refresh_token'), 'x');

  const logs: string[] = [];
  const f = await openSecretStore({ service: 'svc', dir: tmp(), wrapper: null, log: (m) => logs.push(m) });
  assert.equal(f.kind, 'encrypted-file', 'keytar is not installed here');
  assert.equal(f.keyProtection, 'file-permissions');
  assert.ok(logs[0]?.includes('keychain unavailable'));

  const noService = await openSecretStore({ service: 'svc', dir: tmp(), wrapper, loadKeytar: async () => ({ ...keytar, getPassword: async () => { throw new Error('no Secret Service'); } }) });
  assert.equal(noService.kind, 'encrypted-file');
  assert.equal(noService.keyProtection, 'os');
});

test('installer handoff: read once, then null; malformed or missing is null', async () => {
  const dir = tmp();
  const id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
  writeFileSync(join(dir, 'installer-handoff.json'), JSON.stringify({ handoff_id: id, created_at: new Date().toISOString() }));
  const take = handoffReader(dir);
  assert.equal(await take(), id);
  assert.equal(await take(), null);
  assert.equal(await handoffReader(tmp())(), null);
  const bad = tmp();
  writeFileSync(join(bad, 'installer-handoff.json'), '{"handoff_id":"../../etc"}');
  assert.equal(await handoffReader(bad)(), null);
});
