/** The login throttle's pure rules (issue 11 item 2): source keys, growing delays, forgetting. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { afterFailure, delayAfter, isForgotten, retryAt, sourceKey, throttlePolicy } from '../../../services/auth/src/domain/login-throttle.js';

const policy = throttlePolicy({ loginMaxFailuresPerAccount: 5, loginThrottleWindowSeconds: 900 });

describe('sourceKey', () => {
  it('keeps IPv4 addresses, also IPv4-mapped ones', () => {
    assert.equal(sourceKey('192.0.2.7'), '192.0.2.7');
    assert.equal(sourceKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(sourceKey('::FFFF:192.0.2.7'), '192.0.2.7');
  });

  it('reduces IPv6 addresses to their /64, whatever the spelling', () => {
    assert.equal(sourceKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
    assert.equal(sourceKey('2001:0DB8:0001:0002::1'), '2001:db8:1:2::/64');
    assert.equal(sourceKey('2001:db8:1:2::ffff%eth0'), '2001:db8:1:2::/64');
    assert.notEqual(sourceKey('2001:db8:1:3::1'), sourceKey('2001:db8:1:2::1'));
    assert.equal(sourceKey('::1'), '0:0:0:0::/64');
    assert.equal(sourceKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  });

  it('passes anything else through, bounded', () => {
    assert.equal(sourceKey('unknown'), 'unknown');
    assert.equal(sourceKey('x'.repeat(200)).length, 64);
  });
});

describe('growing delays', () => {
  it('is free up to the limit, then doubles from 1 s up to the window', () => {
    assert.deepEqual([0, 1, 4].map((n) => delayAfter(n, policy)), [0, 0, 0]);
    assert.deepEqual([5, 6, 7, 8, 12].map((n) => delayAfter(n, policy)), [1000, 2000, 4000, 8000, 128_000]);
    assert.equal(delayAfter(15, policy), 900_000);
    assert.equal(delayAfter(5000, policy), 900_000, 'capped, never Infinity');
  });

  it('says when a pair may retry', () => {
    assert.equal(retryAt(null, 1000, policy), null);
    assert.equal(retryAt({ failures: 4, last_at: 1000 }, 1000, policy), null);
    assert.equal(retryAt({ failures: 6, last_at: 1000 }, 1500, policy), 3000);
    assert.equal(retryAt({ failures: 6, last_at: 1000 }, 3000, policy), null);
  });

  it('forgets a pair a window after its delay ended, and restarts the count then', () => {
    const s = { failures: 6, last_at: 0 };
    assert.equal(isForgotten(s, 2000 + 900_000 - 1, policy), false);
    assert.equal(isForgotten(s, 2000 + 900_000, policy), true);
    assert.deepEqual(afterFailure(s, 5000, policy), { failures: 7, last_at: 5000 });
    assert.deepEqual(afterFailure(s, 2000 + 900_000, policy), { failures: 1, last_at: 902_000 });
    assert.deepEqual(afterFailure(null, 7, policy), { failures: 1, last_at: 7 });
  });
});
