/**
 * The verifier's pure SHA-256 / HMAC-SHA256 (used where node:crypto is absent, e.g. the renderer)
 * agree with node:crypto on FIPS/RFC 4231 vectors and random inputs of every padding length.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { hmacSha256Pure, sha256Pure, toHex } from '../../../services/audit/src/verifier/hash.js';

test('SHA-256 known answers', () => {
  assert.equal(toHex(sha256Pure(new Uint8Array())), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(toHex(sha256Pure(Buffer.from('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('HMAC-SHA256 RFC 4231 case 2', () => {
  assert.equal(toHex(hmacSha256Pure(Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'))),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
});

test('pure hashes equal node:crypto on random inputs 0..300 bytes and long keys', () => {
  for (let n = 0; n <= 300; n++) {
    const data = randomBytes(n);
    const key = randomBytes(n % 150);
    assert.equal(toHex(sha256Pure(data)), createHash('sha256').update(data).digest('hex'));
    assert.equal(toHex(hmacSha256Pure(key, data)), createHmac('sha256', key).update(data).digest('hex'));
  }
});
