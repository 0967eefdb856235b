/**
 * The offline code (issue 14 item 4): RFC 6238 TOTP through `otpauth`, checked against the RFC's
 * Appendix B test vectors, and the ±1-step window of `matchTotp`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { matchTotp, newTotpSecret, totpAt, totpStep } from '../../../services/auth/src/domain/totp.js';

/** RFC 6238 Appendix B: seeds per algorithm, and (time in seconds, 8-digit codes SHA1/SHA256/SHA512). */
const SEEDS = {
  SHA1: '12345678901234567890',
  SHA256: '12345678901234567890123456789012',
  SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
} as const;
const VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

/** The RFC's SHA1 seed in base32 (what a phone would get at pairing). */
const SHA1_SEED_B32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP (RFC 6238)', () => {
  for (const [t, sha1, sha256, sha512] of VECTORS) {
    it(`matches Appendix B at T = ${t}`, () => {
      assert.equal(totpAt({ ascii: SEEDS.SHA1 }, t * 1000, { digits: 8, algorithm: 'SHA1' }), sha1);
      assert.equal(totpAt({ ascii: SEEDS.SHA256 }, t * 1000, { digits: 8, algorithm: 'SHA256' }), sha256);
      assert.equal(totpAt({ ascii: SEEDS.SHA512 }, t * 1000, { digits: 8, algorithm: 'SHA512' }), sha512);
    });
  }

  it('gives six digits of the same value with the base32 secret (the phone\'s parameters)', () => {
    for (const [t, sha1] of VECTORS) assert.equal(totpAt(SHA1_SEED_B32, t * 1000), sha1.slice(2));
  });

  it('accepts a code within one step either side and names its step; refuses two steps away and non-codes', () => {
    const code = totpAt(SHA1_SEED_B32, 59_000); // step 1
    assert.equal(totpStep(59_000), 1);
    assert.equal(matchTotp(SHA1_SEED_B32, code, 59_000), 1);
    assert.equal(matchTotp(SHA1_SEED_B32, code, 89_000), 1, 'one step later');
    assert.equal(matchTotp(SHA1_SEED_B32, code, 29_000), 1, 'one step earlier');
    assert.equal(matchTotp(SHA1_SEED_B32, code, 119_000), null, 'two steps later');
    assert.equal(matchTotp(SHA1_SEED_B32, '94287082', 59_000), null, 'eight digits');
    assert.equal(matchTotp(SHA1_SEED_B32, ` ${code}`, 59_000), null, 'not exactly six digits');
    assert.equal(matchTotp(SHA1_SEED_B32, String((Number(code) + 1) % 1e6).padStart(6, '0'), 59_000), null);
  });

  it('makes 160-bit base32 secrets, different each time', () => {
    const a = newTotpSecret();
    assert.match(a, /^[A-Z2-7]{32}$/);
    assert.notEqual(a, newTotpSecret());
  });
});
