/**
 * The parking stores of password-verified logins (issue 14 item 3): the in-process Map gives a login
 * back once and never after its deadline; the Redis store's sealing (AES-256-GCM under a key derived
 * from the principal keys, the challenge id as additional data) opens only with the right key and id
 * and shows no token. The Redis store against a real redis-server is in
 * test/integration/gateway-login-2fa-redis.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { MemoryChallengeParking } from '../../../services/gateway/src/store/challenge-parking.js';
import { open, seal } from '../../../services/gateway/src/store/challenge-parking-redis.js';

const login = { bundle: '{"access_token":"a.b.c","refresh_token":"r-secret"}', user_id: 'u1', expires_at: '2030-01-01T00:02:00.000Z' };

test('memory parking: take is once; a second take and an unknown id are null', async () => {
  const p = new MemoryChallengeParking();
  await p.park('c1', login, 60_000);
  const takes = await Promise.all([p.take('c1'), p.take('c1'), p.take('c1')]);
  assert.equal(takes.filter((t) => t !== null).length, 1);
  assert.deepEqual(takes.find((t) => t !== null), login);
  assert.equal(await p.take('c2'), null);
});

test('memory parking: past the deadline nothing is given back, and the sweep drops it', async () => {
  let now = 1000;
  const p = new MemoryChallengeParking(() => now);
  await p.park('a', login, 500);
  await p.park('b', login, 5000);
  now = 1500;
  assert.equal(p.sweep(), 1);
  assert.equal(p.size, 1);
  now = 6001;
  assert.equal(await p.take('b'), null);
  assert.equal(p.size, 0);
});

test('sealing: round trip; another key or another challenge id does not open; the sealed text shows no token', () => {
  const key = createHmac('sha256', 'k1').update('x').digest();
  const other = createHmac('sha256', 'k2').update('x').digest();
  const sealed = seal(key, 'c1', JSON.stringify(login));
  assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.doesNotMatch(sealed, /r-secret|refresh_token/);
  assert.equal(open(key, 'c1', sealed), JSON.stringify(login));
  assert.equal(open(other, 'c1', sealed), null);
  assert.equal(open(key, 'c2', sealed), null);
  const parts = sealed.split('.');
  const flipped = Buffer.from(parts[3]!, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  assert.equal(open(key, 'c1', [parts[0], parts[1], parts[2], flipped.toString('base64url')].join('.')), null, 'tampered');
  assert.equal(open(key, 'c1', [parts[0], parts[1], parts[2]!.slice(0, 8), parts[3]].join('.')), null, 'a truncated tag');
  assert.equal(open(key, 'c1', 'v2.a.b.c'), null);
  assert.equal(open(key, 'c1', 'garbage'), null);
});
