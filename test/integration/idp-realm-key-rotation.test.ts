/**
 * Issue 15 item 1: the realm keys of the embedded IdP (services/auth/src/idp/keys.ts) on a real data
 * dir: generated once on first start (ES256 private JWKs with RFC 7638 kids, cookie keys, mode 0600);
 * a restart reuses them; the operator's rotation marker puts a new signing key first, keeps the
 * previous ones (so tokens they signed keep verifying) up to `REALM_KEYS_KEPT`, and is consumed; a
 * damaged file stops the start with a message that carries no key material.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { loadOrCreateRealmKeys, publicRealmJwk, REALM_KEYS_FILE, REALM_KEYS_KEPT, REALM_KEYS_ROTATE_MARKER } from '../../services/auth/src/idp/keys.js';

test('realm keys are generated once, rotate on the marker and keep the previous keys published', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'idp-keys-')), 'keys');
  const file = join(dir, REALM_KEYS_FILE);
  const first = await loadOrCreateRealmKeys(file);
  assert.equal(first.keys.length, 1);
  const k = first.keys[0]!;
  assert.equal(k.kty, 'EC');
  assert.equal(k.crv, 'P-256');
  assert.equal(k.kid, await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: k.x!, y: k.y! }, 'sha256'));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal((await loadOrCreateRealmKeys(file)).keys[0]!.kid, k.kid, 'a restart keeps the key');

  const kids = [k.kid];
  for (let i = 0; i < REALM_KEYS_KEPT + 1; i++) {
    writeFileSync(join(dir, REALM_KEYS_ROTATE_MARKER), '');
    const rotated = await loadOrCreateRealmKeys(file);
    assert.equal(existsSync(join(dir, REALM_KEYS_ROTATE_MARKER)), false, 'the marker is consumed');
    assert.notEqual(rotated.keys[0]!.kid, kids[0], 'a new signing key comes first');
    assert.equal(rotated.keys[1]!.kid, kids[0], 'the previous signing key stays published');
    kids.unshift(rotated.keys[0]!.kid!);
    assert.equal(rotated.keys.length, Math.min(i + 2, REALM_KEYS_KEPT));
    assert.equal(rotated.cookieKeys.length, rotated.keys.length);
  }
  const pub = publicRealmJwk(first.keys[0]!);
  assert.equal(pub.d, undefined);
});

test('a damaged realm key file stops the start without printing key material', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'idp-keys-'));
  const file = join(dir, REALM_KEYS_FILE);
  writeFileSync(file, JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'BBBB', d: 'SECRETD' }], cookieKeys: ['c'] }), { mode: 0o600 });
  await assert.rejects(loadOrCreateRealmKeys(file), (err: Error) => /move it away/.test(err.message) && !err.message.includes('SECRETD'));
  writeFileSync(file, '{not json', { mode: 0o600 });
  await assert.rejects(loadOrCreateRealmKeys(file), /not valid JSON/);
});
