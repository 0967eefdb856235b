/**
 * The key stores behind `/v1/admin/secrets` (issue 19 item 3), on real files: keys rotated into
 * `secrets/rotated-keys.json` win over the environment in `loadStackConfig` while environment keys
 * the store does not hold keep verifying; every retired audit key reaches the audit key ring; the
 * receipt Ed25519 store generates one key on first run (private key 0600, kid = RFC 7638
 * thumbprint), rotation keeps the old public key, readers see a rotation without a push, and the
 * active private key's signature verifies under the published `x`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackConfig } from '../../main/config/index.js';
import { readKeyStore, rotateHmacKind, effectiveKeys, envListKeys, envAuditKeys } from '../../main/config/key-store.js';
import { keyRingFromConfig } from '../../services/audit/src/domain/keys.js';
import { ReceiptKeyStore, ensureReceiptKeys, rotateReceiptKey } from '../../services/audit/src/store/receipt-keys.js';

const ENV = {
  SVC_ENV: 'test', SVC_PRINCIPAL_KEYS: 'principal-env-key-0123456789abcdefghijklmnop', SVC_CAPTOKEN_KEYS: 'captoken-env-key-0123456789abcdefghijklmnopq',
  AUDIT_SIGNING_KEY: 'audit-env-key-0123456789abcdefghijklmnopqrstu', AUDIT_KEY_VERSION: 'v1',
};

test('rotated HMAC keys win over the environment; every retired key verifies', (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-keystore-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...ENV, SVC_DATA_DIR: dataDir };
  const before = loadStackConfig(env);
  assert.deepEqual(before.principalKeys, [ENV.SVC_PRINCIPAL_KEYS]);

  const p1 = rotateHmacKind(dataDir, 'principal', envListKeys(before.principalKeys));
  const p2 = rotateHmacKind(dataDir, 'principal', p1);
  assert.equal(statSync(join(dataDir, 'secrets', 'rotated-keys.json')).mode & 0o777, 0o600);
  let audit = envAuditKeys(before.audit);
  for (let i = 0; i < 3; i++) audit = rotateHmacKind(dataDir, 'audit', audit);

  // A restart where the environment names a new principal key too: the store's newest still signs.
  const after = loadStackConfig({ ...env, SVC_PRINCIPAL_KEYS: 'another-env-key-0123456789abcdefghijklmnopq' });
  assert.equal(after.principalKeys[0], p2[0]!.key);
  assert.deepEqual(after.principalKeys.slice(0, 3), p2.map((k) => k.key));
  assert.equal(after.principalKeys.at(-1), 'another-env-key-0123456789abcdefghijklmnopq', 'an unknown env key verifies only');
  assert.deepEqual(after.capTokenKeys, [ENV.SVC_CAPTOKEN_KEYS], 'a kind never rotated stays as the environment says');
  assert.equal(after.audit.keyVersion, audit[0]!.version);
  const ring = keyRingFromConfig(after.audit);
  assert.equal(ring.active.version, audit[0]!.version);
  assert.deepEqual([...ring.byVersion.keys()].sort(), audit.map((k) => k.version).sort());
  assert.ok(ring.byVersion.has('v1'), 'the environment key of before keeps verifying');
  assert.equal(p2[1]!.retired_at !== null && p2[2]!.retired_at !== null, true);
  const store = readKeyStore(dataDir);
  assert.equal(effectiveKeys(store, 'principal', envListKeys([ENV.SVC_PRINCIPAL_KEYS])).length, 3);
});

test('receipt key store: first-run key, 0600, thumbprint kid, rotation keeps old keys, readers follow', (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-receiptkeys-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const reader = new ReceiptKeyStore(dataDir);
  const first = reader.keys();
  assert.equal(first.length, 1);
  assert.deepEqual(ensureReceiptKeys(dataDir), first, 'generated once');
  const k = first[0]!;
  assert.equal(statSync(join(dataDir, 'keys', 'receipt', `${k.kid}.pem`)).mode & 0o777, 0o600);
  const thumb = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${k.x}"}`).digest('base64url');
  assert.equal(k.kid, thumb);

  const msg = Buffer.from('payload');
  const s1 = reader.signer();
  const sig1 = sign(null, msg, s1.key);
  const rotated = rotateReceiptKey(dataDir, new Date(Date.now() + 1000));
  assert.equal(rotated.length, 2);
  assert.equal(rotated[1]!.kid, k.kid);
  assert.ok(rotated[1]!.retired_at);
  assert.equal(rotated[0]!.retired_at, null);
  const seen = reader.keys();
  assert.equal(seen[0]!.kid, rotated[0]!.kid, 'the reader re-read the rotated set');
  assert.notEqual(reader.signer().kid, s1.kid);
  // Old signatures verify under the old (still published) key; the new key signs.
  const pub = (x: string) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  assert.ok(verify(null, msg, pub(seen[1]!.x), sig1));
  assert.ok(verify(null, msg, pub(seen[0]!.x), sign(null, msg, reader.signer().key)));
  assert.ok(!verify(null, msg, pub(seen[0]!.x), sig1));
});
