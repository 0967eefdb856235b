import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, createLocalJWKSet, jwtVerify } from 'jose';
import { loadOrCreateSigningKey } from '../../../services/auth/src/store/signing-key-file.js';

describe('signing key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-auth-key-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const posix = process.platform !== 'win32';

  it('creates a private ES256 JWK once, mode 0600 in a 0700 directory, and reloads the same key', async () => {
    const file = join(dir, 'keys', 'auth-signing-key.json');
    const a = await loadOrCreateSigningKey(file);
    if (posix) {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(dir, 'keys')).mode & 0o777, 0o700);
    }
    assert.equal(a.publicJwk.d, undefined);
    assert.equal(a.publicJwk.kid, a.kid);
    if (posix) chmodSync(file, 0o644);
    const b = await loadOrCreateSigningKey(file);
    assert.equal(b.kid, a.kid);
    if (posix) assert.equal(statSync(file).mode & 0o777, 0o600, 'a loosened mode is tightened again');
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: b.kid }).setIssuer('i').sign(b.privateKey);
    await jwtVerify(token, createLocalJWKSet({ keys: [a.publicJwk] }), { issuer: 'i' });
  });

  it('agrees on one key when two starts race', async () => {
    const file = join(dir, 'race', 'k.json');
    const [a, b] = await Promise.all([loadOrCreateSigningKey(file), loadOrCreateSigningKey(file)]);
    assert.equal(a.kid, b.kid);
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).kid, a.kid);
  });

  it('refuses a corrupt or public-only file without echoing its content', async () => {
    const file = join(dir, 'bad', 'k.json');
    const good = await loadOrCreateSigningKey(join(dir, 'src', 'k.json'));
    await loadOrCreateSigningKey(file);
    writeFileSync(file, '{"kty":"EC","d":"SECRETSECRET"');
    await assert.rejects(loadOrCreateSigningKey(file), (e: Error) => /not valid JSON/.test(e.message) && !e.message.includes('SECRET'));
    writeFileSync(file, JSON.stringify(good.publicJwk));
    await assert.rejects(loadOrCreateSigningKey(file), /does not hold an ES256 private key/);
  });
});
