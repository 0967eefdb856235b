/**
 * Pure parts of the phone second factor (issue 14): number matching (three distinct numbers in
 * 10-99, one of them the browser's, shuffled), recovery codes (format, normalisation, hashing), the
 * enrollment URL, and the in-process challenge bus.
 */
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChallengeBus } from '../../../services/auth/src/domain/challenge-bus.js';
import { enrollmentUrl } from '../../../services/auth/src/domain/enrollment.js';
import { NUMBER_MAX, NUMBER_MIN, numberMatch } from '../../../services/auth/src/domain/number-match.js';
import { newRecoveryCode, normaliseRecoveryCode, recoveryCodeHash } from '../../../services/auth/src/domain/recovery-codes.js';

describe('number matching', () => {
  it('gives three distinct numbers in [10, 99] that include the number', () => {
    for (let i = 0; i < 2000; i++) {
      const { number, numbers } = numberMatch();
      assert.equal(numbers.length, 3);
      assert.equal(new Set(numbers).size, 3);
      assert.ok(numbers.includes(number));
      for (const n of numbers) assert.ok(Number.isInteger(n) && n >= NUMBER_MIN && n <= NUMBER_MAX, String(n));
    }
  });

  it('puts the number in every position (shuffled), and uses the whole range', () => {
    const positions = new Set<number>();
    const seen = new Set<number>();
    for (let i = 0; i < 3000; i++) {
      const { number, numbers } = numberMatch();
      positions.add(numbers.indexOf(number));
      seen.add(number);
    }
    assert.deepEqual([...positions].sort(), [0, 1, 2]);
    assert.ok(seen.has(NUMBER_MIN) && seen.has(NUMBER_MAX) && seen.size === 90, `${seen.size} distinct numbers`);
  });

  it('skips repeated draws to stay distinct (scripted random source)', () => {
    const draws = [5, 5, 5, 7, 80, /* shuffle */ 0, 0];
    const { number, numbers } = numberMatch(() => draws.shift()!);
    assert.equal(number, 15);
    assert.deepEqual([...numbers].sort(), [15, 17, 90]);
  });
});

describe('recovery codes', () => {
  it('look like xxxx-xxxx-xxxx in lower-case base32', () => {
    for (let i = 0; i < 200; i++) assert.match(newRecoveryCode(), /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
  });

  it('normalise case, dashes and spaces; refuse anything else', () => {
    assert.equal(normaliseRecoveryCode('ABCD-efgh-2345'), 'abcdefgh2345');
    assert.equal(normaliseRecoveryCode(' abcd efgh 2345 '), 'abcdefgh2345');
    assert.equal(normaliseRecoveryCode('abcd-efgh-234'), null);
    assert.equal(normaliseRecoveryCode('abcd-efgh-2341'), null, '1 is not base32');
    assert.equal(normaliseRecoveryCode('123456'), null);
  });

  it('hash to sha256 hex of the normalised form', () => {
    assert.equal(recoveryCodeHash('abcdefgh2345'), createHash('sha256').update('abcdefgh2345').digest('hex'));
    assert.match(recoveryCodeHash('abcdefgh2345'), /^[0-9a-f]{64}$/);
    assert.notEqual(recoveryCodeHash('abcdefgh2345'), recoveryCodeHash('abcdefgh2346'));
  });
});

describe('enrollment URL', () => {
  it('puts token and fingerprint in the fragment of /m/ on the public URL', () => {
    const url = enrollmentUrl('https://192.0.2.7:8443', 'aaa.bbb.ccc', 'ab'.repeat(32));
    assert.equal(url, `https://192.0.2.7:8443/m/#pair?token=aaa.bbb.ccc&fp=${'ab'.repeat(32)}`);
    const u = new URL(url);
    const q = new URLSearchParams(u.hash.slice('#pair?'.length));
    assert.equal(q.get('token'), 'aaa.bbb.ccc');
    assert.equal(u.pathname, '/m/', 'the token is not in the path or query, so no server log sees it');
    assert.equal(u.search, '');
  });
});

describe('challenge bus', () => {
  it('wakes the subscribers of one user only, until they unsubscribe', () => {
    const bus = new ChallengeBus();
    const hits: string[] = [];
    const off = bus.subscribe('u1', () => hits.push('a'));
    bus.subscribe('u2', () => hits.push('b'));
    bus.subscribe('u1', () => { throw new Error('boom'); });
    bus.publish('u1');
    assert.deepEqual(hits, ['a']);
    off();
    bus.publish('u1');
    assert.deepEqual(hits, ['a']);
    assert.equal(bus.size, 2);
  });
});
