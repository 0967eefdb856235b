import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PasswordHasher } from '../../../services/auth/src/domain/passwords.js';

describe('PasswordHasher', () => {
  const h = new PasswordHasher(1024);

  it('writes scrypt$N$r$p$salt$hash with a 32-byte key and a fresh salt', async () => {
    const a = await h.hash('hunter2-hunter2');
    const b = await h.hash('hunter2-hunter2');
    const parts = a.split('$');
    assert.deepEqual(parts.slice(0, 4), ['scrypt', '1024', '8', '1']);
    assert.equal(Buffer.from(parts[5]!, 'base64').length, 32);
    assert.notEqual(a, b, 'salted');
  });

  it('verifies the right password and rejects others', async () => {
    const stored = await h.hash('correct horse');
    assert.equal(await h.verify('correct horse', stored), true);
    assert.equal(await h.verify('correct hors', stored), false);
    assert.equal(await h.verify('Correct horse', stored), false);
  });

  it('treats Unicode compositions of the same password alike', async () => {
    const stored = await h.hash('caf\u00e9-latte');
    assert.equal(await h.verify('cafe\u0301-latte', stored), true);
  });

  it('returns false (after a dummy derivation) for missing, malformed or abusive hashes', async () => {
    assert.equal(await h.verify('x', null), false);
    for (const bad of ['', 'bcrypt$1$2$3$4$5', 'scrypt$1000$8$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==', `scrypt$${2 ** 24}$8$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==`]) {
      assert.equal(await h.verify('x', bad), false, bad);
    }
  });

  it('verifies hashes made at another cost and flags them for rehash', async () => {
    const old = await new PasswordHasher(2048).hash('pw-at-2048');
    assert.equal(await h.verify('pw-at-2048', old), true);
    assert.equal(h.needsRehash(old), true);
    assert.equal(h.needsRehash(await h.hash('same cost')), false);
  });

  it('refuses a cost that is not a power of two', () => {
    assert.throws(() => new PasswordHasher(1000), RangeError);
  });
});
