/** Provider keys in the encrypted file (issue 4: never in the clear, never returned). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncryptedFileSecretStore } from '../../../services/inference-router/src/store/secret-store.js';

test('values round-trip, are encrypted at rest under a 0600 master key, and cannot move between ids', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  const s = new EncryptedFileSecretStore(dir);
  assert.equal(s.kind, 'encrypted_file');
  s.set('p1', 'sk-very-secret');
  s.set('p2', 'other');
  assert.equal(new EncryptedFileSecretStore(dir).get('p1'), 'sk-very-secret', 'survives a reopen');
  const file = join(dir, 'secrets', 'inference-provider-keys.json');
  assert.ok(!readFileSync(file, 'utf8').includes('sk-very-secret'));
  assert.equal(statSync(join(dir, 'secrets', 'inference-master.key')).mode & 0o777, 0o600);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...doc, p2: doc.p1 }));
  assert.throws(() => new EncryptedFileSecretStore(dir).get('p2'), 'a value moved to another id fails authentication');
  s.delete('p1');
  assert.equal(new EncryptedFileSecretStore(dir).get('p1'), null);
});
